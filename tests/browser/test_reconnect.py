"""A lost connection puts the player back in the same seat with voice: the server
restarts under two open pages; they reconnect (backoff) with their tokens and a new
RTCPeerConnection, and hear each other again."""

from __future__ import annotations

import pytest

from tests.browser.harness import create_room, i18n, join_room, launch_player, wait_until

IT = i18n("it")

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_pages_reconnect_to_their_seats_with_voice_after_a_server_restart(server, pw, tmp_path):
    ada = launch_player(pw, tmp_path, "Ada", 520.0)
    bea = launch_player(pw, tmp_path, "Bea", 960.0)
    try:
        code = create_room(server, ada, "?testaudio=1")
        ada.page.click("#mic-enable")
        join_room(server, bea, code, query="?testaudio=1")
        bea.page.click("#mic-enable")
        for me, other in ((ada, bea), (bea, ada)):
            wait_until(lambda me=me, other=other: me.levels([other.freq])[0] > -50, timeout=40,
                       what=f"{me.name} hears {other.name}")
        seats = {p.name: p.pid for p in (ada, bea)}

        server.restart()

        for p in (ada, bea):
            wait_until(lambda p=p: p.state("s.conn") == "open" and p.state("s.voice") == "on",
                       timeout=60, what=f"{p.name} reconnected with voice")
            assert p.pid == seats[p.name]
            assert p.page.locator(".player-row").count() == 2
        for me, other in ((ada, bea), (bea, ada)):
            wait_until(lambda me=me, other=other: me.levels([other.freq])[0] > -50, timeout=40,
                       what=f"{me.name} hears {other.name} after the restart")
        assert ada.page.locator("#start-btn").count() == 1          # still the host

        # A seat the server no longer knows: the link's join form comes back, with the reason.
        ada.page.evaluate(f"localStorage.setItem('sussurro:seat:{code}', "
                          "JSON.stringify({player: 'p9', token: 'not-a-real-token'}))")
        ada.page.reload()
        ada.page.wait_for_selector("#join-btn")
        assert ada.page.inner_text(".form-error") == IT["error.bad_token"]
        assert ada.page.url.split("?")[0].endswith(f"/r/{code}")
        for p in (ada, bea):
            assert not p.errors, (p.name, p.errors)
            # The server's Content-Security-Policy (issue 8) refused nothing the client does:
            # its scripts, styles, favicon, the WebSocket, the voice's media stream.
            assert p.page.evaluate("!!window.__csp"), "the CSP listener is installed"
            assert p.csp_violations() == [], (p.name, p.csp_violations())
    finally:
        ada.context.close()
        bea.context.close()
