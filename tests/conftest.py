"""Fixtures shared by every test folder."""

from __future__ import annotations

import pytest

from tests.support.server_proc import ServerProc


@pytest.fixture
def server(tmp_path):
    """A real `sussurro serve` process on a free port with a fresh DB (relaxed throttles).

    Yields a ServerProc: `.base_url`, `.url(path)`, `.restart()`, `.kill()`,
    `.start()`, `.db`. Stopped after the test.
    """
    srv = ServerProc(tmp_path / "sussurro.db")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory):
    """One server for a whole test module (faster; tests must use their own rooms)."""
    srv = ServerProc(tmp_path_factory.mktemp("srv") / "sussurro.db")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session", autouse=True)
def _webrtc_on_loopback():
    """The tests' own aiortc peers (bots) offer loopback candidates only, like the server."""
    from server.rtc import restrict_host_addresses

    restrict_host_addresses(["127.0.0.1"])
