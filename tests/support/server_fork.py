"""Start test servers by forking a process that has already imported the server.

A `sussurro serve` spends about 1.3 s of a core importing its stack (FastAPI, aiortc,
PyAV, numpy, the rules) before it serves, and the suite starts well over a hundred of
them on two cores. Each test process (an xdist worker) keeps one *template*: a Python
process started with `python -m tests.support.server_fork` that imports those modules
once and then, for each server asked of it, forks. The child sets the asked environment,
working folder and log, becomes the leader of its own session, and runs the very
`sussurro.cli.main(["serve", ...])` the command line runs: the same code, only with its
imports already done. What cannot be the same in a fork falls back to a fresh process
(tests/support/server_proc.py decides): an environment that sets a knob read when a
module is imported (OpenBLAS's thread count), or a template that could not start.

The template reads one JSON request per line on its stdin and answers one JSON line:
`{"start": {argv, env, cwd, log}}` -> `{"pid": N}`; `{"poll": N}` -> `{"code": C or null}`
(it reaps its children as it answers). It exits when its stdin closes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from sussurro.cli import BLAS_THREAD_KNOBS, limit_blas_threads

ROOT = Path(__file__).resolve().parents[2]

# Environment variables read when a module is imported (not when the server runs): a
# server asked with one of them set differently from the template gets a fresh process.
IMPORT_TIME_KNOBS = (*BLAS_THREAD_KNOBS, "PYTHONPATH", "PYTHONMALLOC")


def _effective(env: dict[str, str]) -> dict[str, str | None]:
    """The knobs as the server sees them once `sussurro.cli` has set its default (one BLAS
    thread where none is chosen): a test process that ran the command in-process has that
    default in its own environment, and it is the same server."""
    env = dict(env)
    limit_blas_threads(env)
    return {k: env.get(k) for k in IMPORT_TIME_KNOBS}


class ForkedProc:
    """The part of subprocess.Popen that ServerProc uses, for a template's child."""

    def __init__(self, template: Template, pid: int) -> None:
        self._template, self.pid, self.returncode = template, pid, None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._template.poll(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired(f"server {self.pid}", timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Template:
    """One template process and the pipe to it (one per test process, made on first use)."""

    _lock = threading.Lock()
    _current: Template | None = None
    _failed = False

    def __init__(self, python: str) -> None:
        env = dict(os.environ)
        self.knobs = _effective(env)  # as the template's imports saw them
        self.proc = subprocess.Popen([python, "-u", "-m", "tests.support.server_fork"], cwd=ROOT,
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self._io = threading.Lock()
        ready = json.loads(self.proc.stdout.readline() or "null")
        if not ready or not ready.get("ready"):
            self.proc.kill()
            raise RuntimeError(f"the server template did not start: {ready}")

    @classmethod
    def get(cls, python: str) -> Template | None:
        """The test process's template, started on first use; None if it cannot be."""
        with cls._lock:
            if cls._current is None and not cls._failed:
                try:
                    cls._current = cls(python)
                except (OSError, RuntimeError, ValueError):
                    cls._failed = True
            return cls._current

    def forkable(self, env: dict[str, str]) -> bool:
        """Whether a server with `env` may be a fork of this template."""
        return _effective(env) == self.knobs

    def _ask(self, request: dict) -> dict:
        with self._io:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the server template is gone")
        return json.loads(line)

    def start(self, argv: list[str], env: dict[str, str], log: str) -> ForkedProc:
        answer = self._ask({"start": {"argv": argv, "env": env, "cwd": str(ROOT), "log": log}})
        return ForkedProc(self, answer["pid"])

    def poll(self, pid: int) -> int | None:
        return self._ask({"poll": pid})["code"]


def _child(request: dict) -> None:
    """In the forked child: become the asked server process, run it, exit."""
    code = 1
    try:
        os.setsid()
        # The signals as a fresh interpreter has them: SIGINT raises KeyboardInterrupt,
        # SIGPIPE is ignored (a write to a closed socket is an error, not the end: a
        # default SIGPIPE killed a node whose Redis connection was cut).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        for sig in (signal.SIGTERM, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        log = os.open(request["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = ["sussurro", *request["argv"]]
        from sussurro.cli import main

        code = main(request["argv"]) or 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 - whatever it was, it goes to the server's log
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110 - exiting anyway
                pass
        os._exit(code)


def _serve_requests() -> None:
    limit_blas_threads()  # as the command does, before numpy is imported
    import game  # noqa: F401 - imported here so that every fork has it
    import server.main  # noqa: F401
    from server.rooms.voicelink import voice_module

    voice_module()
    codes: dict[int, int] = {}
    out = sys.stdout
    # A fork of a process with threads could inherit a held lock: say so and fork nothing.
    threads = len(os.listdir("/proc/self/task"))
    out.write(json.dumps({"ready": threads == 1, "threads": threads}) + "\n")
    out.flush()
    if threads != 1:
        return
    for line in sys.stdin:
        request = json.loads(line)
        while True:  # reap what has ended
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            codes[pid] = os.waitstatus_to_exitcode(status)
        if "start" in request:
            pid = os.fork()
            if pid == 0:
                _child(request["start"])
            answer = {"pid": pid}
        else:
            answer = {"code": codes.get(request["poll"])}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    _serve_requests()
