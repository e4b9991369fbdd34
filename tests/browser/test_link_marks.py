"""Issue 36 item 6 in real Chromium: everyone sees the connection. A bot whose side loses
a fifth of the server's packets (its RTCP receiver reports say so, as a lossy Wi-Fi's would)
is marked on its avatar in the host's lobby, amber signal named "Connessione instabile",
until its reports are clean again; the player's own unstable link shows a banner with one
line of advice, in Italian, gone when the link is good again.

One page (the host) and one bot with a steady tone, through a real `sussurro serve`.
"""

from __future__ import annotations

import pytest

from client.rtc_peer import Tone
from server.media import rtcp
from tests.browser.bot_thread import BotThread
from tests.browser.harness import SCREENS, create_room, i18n, launch_player, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(180)]

IT = i18n("it")


def _lose_every(bot, n: list[int]) -> None:
    """The bot's receiver drops one RTP packet in `n[0]` (0: none) before aiortc counts it."""
    receiver = bot.voice.pc.getTransceivers()[0].receiver
    handle = receiver._handle_rtp_packet
    count = [0]

    async def lossy(packet, arrival_time_ms):
        count[0] += 1
        if n[0] and count[0] % n[0] == 0:
            return
        await handle(packet, arrival_time_ms)

    receiver._handle_rtp_packet = lossy


def _mark(page, pid: str) -> dict | None:
    return page.page.evaluate(
        """(pid) => { const m = document.querySelector(`.player-row[data-pid='${pid}'] .link-mark`);
        return m && {link: m.dataset.link, label: m.getAttribute('aria-label'),
                     title: m.title, role: m.getAttribute('role')}; }""", pid)


def _banner(page) -> str | None:
    return page.page.evaluate(
        "() => document.querySelector('.banner-link')?.innerText ?? null")


def test_a_lossy_player_is_marked_on_their_avatar_and_my_own_link_gets_a_hint(server, pw,
                                                                                tmp_path):
    page = launch_player(pw, tmp_path, "Ada", 520.0)
    bots = BotThread()
    spacing = rtcp.SPACING.interval if rtcp.SPACING else None
    try:
        code = create_room(server, page)
        page.page.click("#mic-allow") if page.page.locator("#mic-allow").count() else None
        (bruno,) = bots.join(server.base_url, code, [("Bruno", Tone(440.0))])
        if rtcp.SPACING is not None:
            rtcp.SPACING.interval = 1.0  # the bot reports every 0.5-1.5 s (a browser: 5 s)
        drop = [0]
        bots.run(_async(_lose_every, bruno, drop))
        me = page.pid
        wait_until(lambda: page.state(f"s.links[{bruno.pid!r}]") == "good", timeout=40,
                   what="Bruno's link known")
        assert _mark(page, bruno.pid) is None and _banner(page) is None

        drop[0] = 5  # a fifth of the server's packets to Bruno lost on his side
        mark = wait_until(lambda: _mark(page, bruno.pid), timeout=30, what="Bruno marked")
        assert mark == {"link": "poor", "label": IT["net.link.poor"], "title": IT["net.link.poor"],
                        "role": "img"}, mark
        assert IT["net.link.poor"] == "Connessione instabile"
        assert _mark(page, me) is None  # my own link stays good: no mark, no hint
        assert _banner(page) is None
        page.shot("link-poor-avatar")
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.page.locator(".player-list").screenshot(path=str(SCREENS / "link-poor-rows.png"))

        drop[0] = 0  # clean again: the mark goes with the next clean report
        wait_until(lambda: _mark(page, bruno.pid) is None, timeout=30, what="Bruno unmarked")

        # My own link as the server would tell it (a `links` message, fed to the page as if
        # it came from the socket): the hint and its advice in Italian, then gone.
        page.page.evaluate("(m) => window.__sussurro.receive(m)",
                           {"type": "links", "links": {me: "poor", bruno.pid: "good"}})
        text = wait_until(lambda: _banner(page), timeout=5, what="my own hint")
        assert "Connessione instabile" in text, text
        assert IT["net.link.own_poor_hint"] in text, text
        assert "Wi-Fi" in text
        assert _mark(page, me)["link"] == "poor"
        page.shot("link-poor-own-hint")
        page.page.evaluate("(m) => window.__sussurro.receive(m)",
                           {"type": "links", "links": {me: "good", bruno.pid: "good"}})
        wait_until(lambda: _banner(page) is None, timeout=5, what="my own hint gone")
        assert _mark(page, me) is None
        assert not page.errors, page.errors
        assert not page.csp_violations(), page.csp_violations()
    finally:
        if spacing is not None:
            rtcp.SPACING.interval = spacing
        bots.stop()
        page.context.close()


async def _async(fn, *args):
    return fn(*args)
