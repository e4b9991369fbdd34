"""Fixtures shared by every test folder."""

from __future__ import annotations

import pytest

from tests.support import schedule
from tests.support.server_proc import ServerProc

# Tests marked `solo` measure real-time voice in several browser pages at once (who hears
# whom, by spectrum, in Web Audio), or voice coming back on a cluster node that has just
# taken over several rooms' peers. On a 2-core machine another heavy test beside them
# starves their audio, which proves nothing about the code. scripts/test.sh runs the
# suite in two stages: everything else on two workers (`--solo=skip`), then the solo
# tests one at a time with the machine to themselves (`--solo=only`).
SOLO_CHOICES = ("with", "skip", "only")


def pytest_addoption(parser):
    parser.addoption("--solo", choices=SOLO_CHOICES, default="with",
                     help="tests marked solo: run them with the others (default), skip them, "
                          "or run only them")
    parser.addoption("--record-durations", action="store_true",
                     help="write each module's seconds in this run into tests/durations.json "
                          "(the order pytest-xdist's workers get the modules in)")


def pytest_configure(config):
    # The units go out in the order tests/support/schedule.py gives them (longest first),
    # not sorted by their number of tests (pytest-xdist's default for loadgroup).
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    if config.getoption("--record-durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(schedule.Recorder(), "sussurro-durations")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist names each test's group in its id
def pytest_collection_modifyitems(config, items):
    mode = config.getoption("--solo")
    if mode != "with":
        keep, drop = [], []
        for item in items:
            solo = item.get_closest_marker("solo") is not None
            (keep if solo == (mode == "only") else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    # A module is one unit of work for `--dist loadgroup` (its module-scoped fixtures
    # start once), unless its tests name an xdist_group of their own.
    if getattr(config.option, "loadgroup", False):   # set on pytest-xdist's workers
        for item in items:
            if schedule.group_of(item) is None:
                item.add_marker(pytest.mark.xdist_group(schedule.module_of(item.nodeid)))
    items[:] = schedule.longest_first(items, schedule.load_times())


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
    from server.media.rtc import restrict_host_addresses

    restrict_host_addresses(["127.0.0.1"])


@pytest.fixture(autouse=True)
def _ice_guard_left_as_found():
    """An app started in this process (a TestClient runs its lifespan) installs the ICE
    guard process-wide; with the default settings it refuses loopback candidates, and every
    later in-process WebRTC test on the same worker would fail to connect. Each test gets
    aioice's candidate check back as it found it."""
    try:
        import aioice.ice
    except ImportError:
        yield
        return
    found = aioice.ice.validate_remote_candidate
    yield
    aioice.ice.validate_remote_candidate = found
