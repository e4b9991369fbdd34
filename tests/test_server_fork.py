"""tests/support/server_fork.py: test servers forked from a process that has imported the
server behave as the command started fresh does."""

from __future__ import annotations

import os
import subprocess

import httpx

from tests.support.server_fork import ForkedProc
from tests.support.server_proc import ServerProc


def _signals(pid: int) -> list[str]:
    """What the process ignores and catches (/proc's masks)."""
    return [line for line in open(f"/proc/{pid}/status") if line.startswith(("SigIgn", "SigCgt"))]


def test_a_forked_server_has_its_own_environment_session_log_and_exit(tmp_path):
    # Its environment is the one asked: one room per address, the second refused.
    srv = ServerProc(tmp_path / "f.db", env={"SUSSURRO_CREATE_BURST": "1", "SUSSURRO_CREATE_RATE":
                                             "0.001"}, log_level="info")
    fresh = ServerProc(tmp_path / "p.db", fork=False)
    try:
        srv.start()
        fresh.start()
        assert isinstance(srv.proc, ForkedProc) and isinstance(fresh.proc, subprocess.Popen)
        create = [httpx.post(srv.url("/api/rooms"), json={"name": "Ada"}).status_code
                  for _ in range(2)]
        assert create == [200, 429]
        assert httpx.post(fresh.url("/api/rooms"), json={"name": "Ada"}).status_code == 200
        assert os.getsid(srv.proc.pid) == srv.proc.pid  # its own session, as start_new_session
        assert httpx.get(srv.url("/healthz")).status_code == 200
        # The signals as a fresh interpreter has them (a SIGPIPE left at its default killed a
        # forked node whose Redis connection was cut).
        assert _signals(srv.proc.pid) == _signals(fresh.proc.pid)
        assert "live room(s) restored" in srv.log_path.read_text()
        pid = srv.proc.pid
        srv.restart(crash=True)  # SIGKILL, then a new fork on the same port and DB
        assert srv.proc.pid != pid and httpx.get(srv.url("/healthz")).status_code == 200
        assert srv.stop() == fresh.stop()  # SIGTERM ends both alike
    finally:
        srv.kill()
        fresh.kill()


def test_the_commands_own_default_in_the_environment_still_forks(tmp_path, monkeypatch):
    """A test that ran `sussurro.cli.main` in this process left OPENBLAS_NUM_THREADS=1 in
    its environment (the command's default): the same server, still forked (in one run
    every later server of that worker was a fresh process)."""
    from sussurro.cli import BLAS_THREAD_KNOBS, limit_blas_threads

    for knob in BLAS_THREAD_KNOBS:
        monkeypatch.delenv(knob, raising=False)
    with ServerProc(tmp_path / "first.db") as srv:  # the template, if this process had none
        assert isinstance(srv.proc, ForkedProc)
    limit_blas_threads(env := {})
    for knob, value in env.items():
        monkeypatch.setenv(knob, value)
    with ServerProc(tmp_path / "d.db") as srv:
        assert isinstance(srv.proc, ForkedProc)


def test_a_knob_read_at_import_gets_a_fresh_process(tmp_path):
    with ServerProc(tmp_path / "b.db", env={"OPENBLAS_NUM_THREADS": "3"}) as srv:
        assert isinstance(srv.proc, subprocess.Popen)
