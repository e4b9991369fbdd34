"""`sussurro serve --redis ... --workers N`: N node processes on consecutive ports.

One Python process serves about one core's worth of rooms; on a machine with
more cores, N nodes of the same cluster (the same Redis) use them. This
supervisor starts `sussurro serve` N times on ports PORT, PORT+1, ...
(each its own node, with `{port}` and `{worker}` of --public-url filled in),
passes SIGTERM/SIGINT on (each node drains: its rooms move to the others,
then it exits), and restarts a node that dies on its own, at most five times
a minute each.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from collections import deque

from server.config import ENV_PREFIX, Settings

RESTARTS_PER_MINUTE = 5


def worker_command(settings: Settings, i: int) -> list[str]:
    """The command line of worker `i` (0-based)."""
    cmd = [sys.executable, "-m", "sussurro.cli", "serve", "--host", settings.host,
           "--port", str(settings.port + i), "--redis", settings.redis, "--workers", "1",
           "--log-level", settings.log_level]
    if settings.public_url:
        cmd += ["--public-url", settings.public_url.replace("{worker}", str(i))]
    return cmd


def worker_env(settings: Settings) -> dict[str, str]:
    """The environment of a worker: every setting of the supervisor (flags included) as
    SUSSURRO_* variables, so a worker is configured like the command that started it."""
    env = dict(os.environ)
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        if isinstance(value, tuple):
            raw = json.dumps(list(value))
        elif isinstance(value, bool):
            raw = "1" if value else "0"
        else:
            raw = str(value)
        env[ENV_PREFIX + f.name.upper()] = raw
    return env


def check(settings: Settings) -> str | None:
    """Why these settings cannot run N workers, or None."""
    if not settings.redis:
        return "--workers needs --redis: the workers share their rooms through it"
    url = settings.public_url
    if url and "{port}" not in url and "{worker}" not in url:
        return ("with --workers, --public-url must tell the workers apart: put {port} or "
                "{worker} in it (e.g. http://example.org:{port})")
    return None


def supervise(settings: Settings) -> int:
    """Run the workers until a signal; the exit code."""
    problem = check(settings)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    n = settings.workers
    procs: list[subprocess.Popen[bytes] | None] = [None] * n
    restarts = [deque[float]() for _ in range(n)]
    stopping = False

    def start(i: int) -> None:
        # Own session: a Ctrl-C reaches the workers once, through on_signal.
        procs[i] = subprocess.Popen(worker_command(settings, i), env=worker_env(settings),
                                    start_new_session=True)

    def on_signal(sig: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for p in procs:
            if p is not None and p.poll() is None:
                p.send_signal(sig)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    for i in range(n):
        start(i)
    while not stopping:
        time.sleep(0.5)
        for i, p in enumerate(procs):
            if stopping or p is None or p.poll() is None:
                continue
            window = restarts[i]
            now = time.monotonic()
            while window and now - window[0] > 60:
                window.popleft()
            if len(window) >= RESTARTS_PER_MINUTE:
                print(f"worker {i} keeps dying; not restarting it", file=sys.stderr)
                procs[i] = None
                continue
            window.append(now)
            print(f"worker {i} exited with {p.returncode}; restarting", file=sys.stderr)
            start(i)
        if all(p is None for p in procs):
            return 1
    # Each worker drains (at most drain_timeout), then exits.
    deadline = time.monotonic() + settings.drain_timeout + 15
    for p in procs:
        if p is None:
            continue
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)
    return 0
