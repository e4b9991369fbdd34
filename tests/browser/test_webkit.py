"""Issue 32, WebKit in the suite: Debian's WebKitGTK (MiniBrowser, the engine of iOS
Safari) through WebKitWebDriver under Xvfb (tests/browser/webkit.py). Its build has no
WebRTC: the page says so up front in plain words, asks for nothing that could only fail,
and the player still plays a whole game by text. The one-phone page works offline.
"""

from __future__ import annotations

import pytest

from client.autoplay import autoplay
from tests.browser import webkit
from tests.browser.bot_thread import BotThread, lupi_policy
from tests.browser.harness import i18n, wait_until
from tests.browser.onephone import offline_whole_game
from tests.browser.page_game import (
    Timeline,
    create_room,
    lupi_table,
    play_impostore_page,
    play_intruso_page,
    play_lupi_page,
    quick_table,
)

# One worker runs the module, so its one browser serves both tests.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("webkit")]

# MiniBrowser's language is the machine's (English here): the page follows it.
EN = i18n("en")


@pytest.fixture(scope="module")
def webkit_once():
    """One MiniBrowser (and its Xvfb) for the module: each test opens its own server,
    so its own origin."""
    if not webkit.available():
        pytest.skip("Debian's webkit2gtk-driver and xvfb are not installed")
    browser = webkit.WebKit()
    yield browser
    browser.close()


@pytest.fixture
def wk(webkit_once):
    """The module's MiniBrowser for one test, left on a blank page before its server stops."""
    yield webkit_once
    webkit_once.goto("about:blank")


def test_webkit_without_webrtc_is_told_plainly_and_plays_a_whole_game(server, wk):
    """A browser without RTCPeerConnection: the mic card says voice is not supported
    (before, it offered "Turn the microphone on" and the voice failed silently), no
    button asks for the mic, and the game is played to its end screen by text."""
    log = Timeline("webkit")
    wk.goto(server.url("/"))
    assert wk.js("typeof RTCPeerConnection") == "undefined"   # what this test is about
    wk.fill("#name", "Ada")
    wk.click("#create-btn")
    wk.wait("#room-code")
    code = wk.text("#room-code").strip()
    wk.wait("#voice-unsupported")
    assert wk.text("#voice-unsupported .warn") == EN["voice.unsupported"]
    assert wk.count("#mic-enable") == 0
    assert wk.state("s.voice") == "unsupported"
    log("room created, no WebRTC said")

    bots = BotThread()
    try:
        seated = bots.join(server.base_url, code, [(n, None) for n in ("Bea", "Ciro", "Dina")],
                           voice=False)
        wait_until(lambda: wk.count(".player-row") == 4, what="four in the lobby")
        quick_table(wk)
        log("bots seated, table set")
        for bot in seated:
            bots.play(bot, lambda v, rng: autoplay(v, rng), seed=len(bot.pid))
        wk.click("#start-btn")
        wait_until(lambda: wk.state("s.view && s.view.phase") == "clues", what="clues")
        # In the game the message stays where the mic card is: still no silent failure.
        assert wk.count("#voice-unsupported") == 1
        play_intruso_page(wk, log=log)
        assert wk.text("#end-title") in (EN["end.you_won"], EN["end.you_lost"])
        assert wk.count(".end-row") == 4
        log("end screen")
    finally:
        bots.stop()


def _seat_bots(server, wk, code: str, bots: BotThread) -> list:
    seated = bots.join(server.base_url, code, [(n, None) for n in ("Bea", "Ciro", "Dina")],
                       voice=False)
    wait_until(lambda: wk.count(".player-row") == 4, what="four in the lobby")
    return seated


def test_webkit_impostore_room_game_screen_by_screen(server, wk):
    """Impostore's screens and flow in WebKit: a whole game of Classica (no timers: every
    phase waits for the players) against three bots, the page checked at each phase and
    turn for the screen the view calls for (the held card, "seen", the called turn or
    whose it is, the vote, a runoff or "Non conosco la parola" when the bots bring them,
    the guess, the end), and no uncaught error in the page."""
    log = Timeline("webkit impostore")
    code = create_room(wk, server.url("/"), "Ada", "classica")
    bots = BotThread()
    try:
        seated = _seat_bots(server, wk, code, bots)
        assert wk.state("s.room.settings.preset") == "classica"
        log("room created, bots seated")
        for i, bot in enumerate(seated):
            bots.play(bot, lambda v, rng: autoplay(v, rng), seed=i)
        wk.click("#start-btn")
        phases = play_impostore_page(wk, log=log)
        assert {"card", "clues", "vote", "over"} <= set(phases), phases
        assert wk.text("#end-title") in (EN["end.you_won"], EN["end.you_lost"])
        assert wk.count(".end-row") == 4
        assert not wk.errors, wk.errors
        log("end screen")
    finally:
        bots.stop()


def test_webkit_lupi_room_game_screen_by_screen(server, wk):
    """Lupi Mannari's screens and flow in WebKit, the app as moderator: a whole game with
    one wolf at four seats (the night's phases at the shortest timers, 5 s each; every day
    phase also ends by the players' actions) against three bots. At each phase the page
    shows the narration, the dark night alike for every card, what its card may do (the
    seer's look, the wolves' bite, "ready", the nomination, its own defence, the lynch)
    or that it waits, and the end; no uncaught error in the page."""
    log = Timeline("webkit lupi")
    code = create_room(wk, server.url("/"), "Ada", "lupi")
    bots = BotThread()
    try:
        seated = _seat_bots(server, wk, code, bots)
        lupi_table(wk, {k: 5 for k in ("night", "seer", "wolves", "day", "vote", "defence")})
        log("room created, bots seated, table set")
        wk.click("#start-btn")
        wait_until(lambda: wk.state("s.view && s.view.game") == "werewolf", what="the deal")
        for i, bot in enumerate(seated):
            # A bot acts 0.6 s after each view: a phase the bots close is still drawn
            # and read by the page.
            bots.play(bot, lupi_policy, seed=i, delay=0.6)
        phases = play_lupi_page(wk, log=log)
        assert {"night", "seer", "wolves", "day", "over"} <= set(phases), phases
        assert wk.text("#end-title") in (EN["end.you_won"], EN["end.you_lost"])
        assert wk.count("#end-side[data-outcome]") == 1
        assert not wk.errors, wk.errors
        log("end screen")
    finally:
        bots.stop()


def test_webkit_onephone_page_offline_whole_game(tmp_path, wk):
    """WebKit keeps the one-phone page for offline use; with the server gone its service
    worker alone serves the page and the core, and a whole game of Impostore (Classica,
    three players) is played on it by taps to its end screen: the phone passed, each
    card shown by a tap, the spoken turns, the vote's real 3-2-1 and the table's tap.
    CPython's core replays the page's record to the same bytes."""
    offline_whole_game(wk, tmp_path / "s.db", Timeline("webkit offline"), start_timeout=150)
