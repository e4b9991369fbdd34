"""Run a REAL Debian `redis-server` for the cluster tests, on a free loopback port.

    from tests.support.redis_proc import RedisProc

    with RedisProc(tmp_path) as redis:     # starts, waits for PING
        redis.url                          # "redis://127.0.0.1:PORT/0"
        redis.cli("DBSIZE")                # one command through a plain socket client

Its data (an append-only file, fsync every second, as docs/cluster.md
recommends) lives in the given temporary folder; nothing listens beyond
127.0.0.1, and the process is killed at exit even if a test dies. Tests that
need it skip when `redis-server` is not installed (./scripts/test.sh installs it).
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import redis as redis_sync

from tests.support.server_proc import free_port

REDIS_SERVER = shutil.which("redis-server")


def need_redis() -> None:
    """Skip the calling test when Debian's redis-server is not installed."""
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (./scripts/test.sh installs it)")


class RedisProc:
    """One redis-server process with its data in `folder`."""

    def __init__(self, folder: str | os.PathLike[str], port: int | None = None) -> None:
        self.folder = Path(folder)
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._atexit = False

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> RedisProc:
        need_redis()
        self.folder.mkdir(parents=True, exist_ok=True)
        cmd = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
               "--dir", str(self.folder), "--appendonly", "yes", "--appendfsync", "everysec",
               "--save", "", "--protected-mode", "yes", "--daemonize", "no",
               "--logfile", str(self.folder / "redis.log")]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        if not self._atexit:
            atexit.register(self.stop)
            self._atexit = True
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
            try:
                if self.client().ping():
                    return self
            except redis_sync.exceptions.ConnectionError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer in {timeout}s")

    def client(self) -> redis_sync.Redis:
        """A synchronous client (tests read the keys the nodes wrote)."""
        return redis_sync.Redis(host="127.0.0.1", port=self.port, decode_responses=True,
                                socket_timeout=5)

    def cli(self, *args: str):
        """One command, its reply."""
        with self.client() as c:
            return c.execute_command(*args)

    def stop(self) -> None:
        """Kill the server (its folder is the test's temporary one)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def __enter__(self) -> RedisProc:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
