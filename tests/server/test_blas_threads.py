"""numpy's BLAS runs one thread in a started server unless the operator says otherwise.

The mixer's matrix products are small (a few hundred microseconds a tick); OpenBLAS's
worker threads spin beside the voice loop and, on a busy 2-core machine, made a spatial
tick wait for a core (bench/README.md, "numpy's BLAS threads"). `sussurro` sets
OPENBLAS_NUM_THREADS=1 before numpy is imported unless OPENBLAS_NUM_THREADS or
OMP_NUM_THREADS is already set; /metrics shows what the server's OpenBLAS uses.
"""

from __future__ import annotations

import os
import re

import httpx
import pytest

from tests.support.server_proc import ServerProc

KNOBS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "GOTO_NUM_THREADS")


def _blas_threads(srv: ServerProc) -> int:
    text = httpx.get(srv.url("/metrics"), timeout=10).text
    m = re.search(r"^sussurro_blas_threads (\d+)$", text, re.M)
    assert m, text
    return int(m.group(1))


def _started(tmp_path, name: str, env: dict[str, str]) -> ServerProc:
    # The test process's own environment must not decide: none of the knobs but `env`'s.
    with pytest.MonkeyPatch.context() as mp:
        for knob in KNOBS:
            mp.delenv(knob, raising=False)
        return ServerProc(tmp_path / f"{name}.db", env=env).start()


def test_server_runs_numpy_blas_on_one_thread_by_default(tmp_path):
    """Deploy knob: no BLAS setting given -> the server's OpenBLAS uses one thread."""
    srv = _started(tmp_path, "default", {})
    try:
        assert _blas_threads(srv) == 1
    finally:
        srv.stop()


def test_operators_own_blas_threads_setting_is_kept(tmp_path):
    """Deploy knob: OPENBLAS_NUM_THREADS=2 set by the operator is what the server uses
    (OpenBLAS itself caps it at the machine's cores)."""
    srv = _started(tmp_path, "operator", {"OPENBLAS_NUM_THREADS": "2"})
    try:
        assert _blas_threads(srv) == min(2, os.cpu_count() or 1)
    finally:
        srv.stop()
