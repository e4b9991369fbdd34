"""Run a REAL `sussurro serve` subprocess for tests.

    from tests.support.server_proc import ServerProc

    with ServerProc(tmp_path / "s.db") as srv:      # starts, waits for /healthz
        srv.url("/api/rooms")                        # "http://127.0.0.1:PORT/api/rooms"
        srv.restart()                                # SIGTERM, then start again on the same DB
        srv.kill(); srv.start()                      # a crash (SIGKILL) and a cold start

The server listens on a free 127.0.0.1 port with a temporary SQLite file and
relaxed throttles (so tests may create many rooms quickly); pass `env={...}`
to override any `SUSSURRO_*` setting (e.g. `{"SUSSURRO_JOIN_BURST": "3"}`) and
`args=[...]` for more flags (`["--lan"]`: HTTPS beside HTTP on the same port;
`/healthz` is still polled over http).
The server is the real command, forked from a process per test run that has already
imported it (tests/support/server_fork.py; `fork=False` or `SUSSURRO_TEST_FORK=0` for a
fresh process). The port stays the same across restarts. Its log is `srv.log_path`;
`srv.log_tail()` is handy in assertion messages.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.server_fork import ROOT, Template

# Throttles wide open: tests exercise them on purpose with their own env.
RELAXED = {
    "SUSSURRO_JOIN_BURST": "100000",
    "SUSSURRO_JOIN_RATE": "100000",
    "SUSSURRO_LOOKUP_BURST": "100000",
    "SUSSURRO_LOOKUP_RATE": "100000",
    "SUSSURRO_CREATE_BURST": "100000",
    "SUSSURRO_CREATE_RATE": "100000",
    # WebRTC host candidates on loopback only: no test traffic on other addresses.
    "SUSSURRO_RTC_ADDRESSES": "127.0.0.1",
    # ... and the server may check loopback candidates (refused by default).
    "SUSSURRO_RTC_ALLOW_LOCAL_CANDIDATES": "1",
    "SUSSURRO_RTC_OFFERS_PER_MINUTE": "100000",
    "SUSSURRO_WS_BURST": "1000",
    "SUSSURRO_WS_RATE": "1000",
    "SUSSURRO_WS_CONNECT_BURST": "100000",
    "SUSSURRO_WS_CONNECT_RATE": "100000",
    "SUSSURRO_WS_ADDRESS_CONNECT_BURST": "100000",
    "SUSSURRO_WS_ADDRESS_CONNECT_RATE": "100000",
    "SUSSURRO_MAX_SOCKETS_PER_ADDRESS": "100000",
    "SUSSURRO_MAX_ROOMS_PER_ADDRESS": "100000",
}


def free_port() -> int:
    """A TCP port nobody listens on right now (on 127.0.0.1)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


class PortTaken(RuntimeError):
    """The server could not bind its port: another process took it first."""


class ServerProc:
    """One server subprocess bound to one database file and one port."""

    def __init__(self, db: str | os.PathLike[str], port: int | None = None,
                 env: dict[str, str] | None = None, relaxed: bool = True,
                 log_path: str | os.PathLike[str] | None = None,
                 log_level: str = "warning", args: list[str] | None = None,
                 fork: bool | None = None) -> None:
        self.db = str(db)
        # Forked from the test process's server template (tests/support/server_fork.py)
        # unless told not to (fork=False, or SUSSURRO_TEST_FORK=0 for the whole run).
        self.fork = os.environ.get("SUSSURRO_TEST_FORK", "1") != "0" if fork is None else fork
        self.args = list(args or [])  # more `sussurro serve` flags (e.g. ["--lan"])
        self.port = port or free_port()
        # A port picked here may be taken by another process before the server binds it
        # (tests run side by side): the first start may then move to another free port.
        self._own_port = port is None
        self.env = {**(RELAXED if relaxed else {}), **(env or {})}
        self.log_path = Path(log_path or (self.db + ".log"))
        self.log_level = log_level
        self.proc: subprocess.Popen[bytes] | None = None
        self._atexit = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def url(self, path: str = "/") -> str:
        return self.base_url + path

    def start(self, timeout: float = 20.0) -> ServerProc:
        """Start the process and wait until /healthz answers."""
        if self.proc is not None and self.proc.poll() is None:
            return self
        for _ in range(3):
            try:
                return self._start(timeout)
            except PortTaken:
                if not self._own_port:
                    raise
                self.port = free_port()
                self.proc = None
        return self._start(timeout)

    def _start(self, timeout: float) -> ServerProc:
        first = self.proc is None
        env = {**os.environ, **self.env, "PYTHONUNBUFFERED": "1"}
        argv = ["serve", "--host", "127.0.0.1", "--port", str(self.port), "--db", self.db,
                "--log-level", self.log_level, *self.args]
        template = Template.get(_python()) if self.fork else None
        if template is not None and template.forkable(env):
            # The same command, forked from a process that has imported the server
            # (tests/support/server_fork.py): 1.3 s of a core less for each start.
            self.proc = template.start(argv, env, str(self.log_path))
        else:
            log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
            try:
                self.proc = subprocess.Popen([_python(), "-m", "sussurro.cli", *argv], cwd=ROOT,
                                             env=env, stdout=log, stderr=subprocess.STDOUT,
                                             start_new_session=True)
            finally:
                log.close()
        if not self._atexit:
            # A test run that dies without its teardown must not leave servers behind.
            atexit.register(self.kill)
            self._atexit = True
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                if first and "address already in use" in self.log_tail(8):
                    raise PortTaken(f"port {self.port} was taken before the server bound it")
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(self.url("/healthz"), timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"server did not answer /healthz in {timeout}s:\n{self.log_tail()}")

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM (graceful shutdown) and wait; SIGKILL if it hangs. The exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        code, self.proc = self.proc.returncode, None
        return code

    def kill(self) -> None:
        """SIGKILL: a crash, nothing flushed beyond what was committed."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def restart(self, crash: bool = False) -> ServerProc:
        """Stop (or kill, with crash=True) and start again on the same DB and port."""
        if crash:
            self.kill()
        else:
            self.stop()
        return self.start()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n: int = 40) -> str:
        """The last lines of the server's log."""
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def __enter__(self) -> ServerProc:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
