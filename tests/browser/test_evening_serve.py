"""Issue 31, section 1, in real Chromium: the README's first command gives a room that
phones can join.

The server is started the README's way (`sussurro serve`, no flag but a port and a
database in a temporary folder). It prints the address players open: the machine's LAN
address over https. The host plays on the machine itself (the "On this computer" address);
the lobby's room link, TV link and QR code hold the printed address, and a second page
joins by that address. NETWORK RULE: that address is this machine's LAN IP; Chromium maps
it to 127.0.0.1 (--host-resolver-rules), so no packet goes to it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from server.edge.qr import qr_svg
from tests.browser.harness import launch_player, wait_until
from tests.server.test_evening_reach import read_until
from tests.support.server_proc import RELAXED, ROOT, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def sussurro() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "sussurro"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "sussurro.cli"]


@pytest.fixture
def readme_server(tmp_path):
    """`sussurro serve` as the README runs it; yields (port, what it printed)."""
    port = free_port()
    # RELAXED: WebRTC candidates on loopback only, wide throttles (no mode, no host).
    env = {**os.environ, **RELAXED, "PYTHONUNBUFFERED": "1"}
    env.pop("SUSSURRO_HOST", None)
    proc = subprocess.Popen([*sussurro(), "serve", "--port", str(port), "--db",
                             str(Path(tmp_path) / "s.db"), "--log-level", "warning"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        printed = read_until(proc, "On this computer:", timeout=60)
        yield port, printed
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(15)


def test_readme_server_prints_the_lan_address_and_a_phone_joins_by_it(readme_server, pw,
                                                                      tmp_path):
    port, printed = readme_server
    if "not connected to a network" in printed:
        pytest.skip("this machine has no LAN address (the no-network case has its own test)")
    join = re.search(r"Players open:\s+(https://\S+)", printed)
    local = re.search(r"On this computer:\s+(http://\S+)", printed)
    assert join and local, printed
    join, local = join.group(1), local.group(1)
    ip = re.fullmatch(r"https://([0-9.]+):(\d+)", join)
    assert ip and int(ip.group(2)) == port, join
    assert ip.group(1) != "127.0.0.1" and local == f"http://localhost:{port}"
    assert "\u2580" in printed or "\u2584" in printed or "\u2588" in printed  # its QR code
    # The printed LAN address reaches the server on loopback, in these browsers only.
    args = [f"--host-resolver-rules=MAP {ip.group(1)} 127.0.0.1", "--ignore-certificate-errors"]
    ada = launch_player(pw, tmp_path, "Ada", 520.0, extra_args=args)
    bruno = launch_player(pw, tmp_path, "Bruno", 760.0, extra_args=args)
    try:
        ada.page.goto(local + "/")
        ada.page.fill("#name", "Ada")
        ada.page.click("#create-btn")
        ada.page.wait_for_selector("#room-code")
        code = ada.page.inner_text("#room-code").strip()
        link = f"{join}/r/{code}"
        # Every link the host is shown is the printed address, not this page's localhost.
        wait_until(lambda: ada.page.inner_text("#room-link") == link, what="the LAN room link")
        assert ada.page.inner_text("#tv-link") == f"{link}/tv"
        qr = ada.page.evaluate(
            "(u) => fetch(u).then((r) => r.text())", f"/api/rooms/{code}/qr.svg")
        assert qr.encode() == qr_svg(link, code)
        tv_qr = ada.page.evaluate(
            "(u) => fetch(u).then((r) => r.text())", f"/api/rooms/{code}/tv-qr.svg")
        assert tv_qr.encode() == qr_svg(f"{link}/tv", code)
        assert ada.page.locator("#no-lan").count() == 0
        # The TV put on this machine's screen shows the same address to join by.
        tv = ada.context.new_page()
        tv.goto(f"{local}/r/{code}/tv")
        wait_until(lambda: tv.locator("#tv-join-link").count()
                   and tv.inner_text("#tv-join-link") == link, what="the TV's join link")
        tv.close()
        # A friend's phone opens the link by the LAN address (https: a secure context).
        bruno.page.goto(link)
        assert bruno.page.evaluate("window.isSecureContext") is True
        bruno.page.fill("#name", "Bruno")
        bruno.page.click("#join-btn")
        bruno.page.wait_for_selector("#room-code")
        assert bruno.page.inner_text("#room-code").strip() == code
        wait_until(lambda: ada.page.locator(".player-row").count() == 2, what="Bruno in the lobby")
        assert bruno.page.inner_text("#room-link") == link
        assert not ada.errors and not bruno.errors, (ada.errors, bruno.errors)
    finally:
        ada.context.close()
        bruno.context.close()


def test_the_lobby_says_in_words_when_the_machine_is_on_no_network(server, pw, tmp_path):
    """GET /api/links says `reachable: false` (tests/server/test_evening_reach.py shows when):
    the lobby and the TV say so instead of a link and a QR code no phone can open."""
    from tests.browser.harness import i18n

    ada = launch_player(pw, tmp_path, "Ada", 520.0)
    try:
        ada.page.route("**/api/links", lambda route: route.fulfill(
            json={"base": f"http://127.0.0.1:{server.port}", "reachable": False}))
        ada.page.goto(server.url("/"))
        ada.page.fill("#name", "Ada")
        ada.page.click("#create-btn")
        ada.page.wait_for_selector("#no-lan")
        assert ada.page.inner_text("#no-lan") == i18n("it")["reach.no_lan"]
        assert ada.page.locator("#room-link").count() == 0
        assert ada.page.locator(".room-code img.qr").count() == 0
        code = ada.page.inner_text("#room-code").strip()
        tv = ada.context.new_page()
        tv.route("**/api/links", lambda route: route.fulfill(
            json={"base": f"http://127.0.0.1:{server.port}", "reachable": False}))
        tv.goto(server.url(f"/r/{code}/tv"))
        tv.wait_for_selector(".tv-join #no-lan")
        assert tv.locator(".tv-join .tv-qr").count() == 0
        assert not ada.errors, ada.errors
    finally:
        ada.context.close()
