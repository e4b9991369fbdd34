"""Issue 29 item 1 in real Chromium: a page whispering to a bot loses its socket and
reconnects by itself (same page, same token, the voice restarting on `welcome`). The
whisperer never becomes audible to more people than before without their own gesture,
and the page shows what the server holds:

- the finger still down through the blip: the page resumes the whisper (a new
  whisper_start) and the bot that listens hears nothing of it;
- the finger lifted while offline: once back, the page shows the hush ("nobody hears you") with a
  button, not "Stai sussurrando a ...", and nobody hears it;
- a reload from scratch: the same hushed banner;
- the button: the whole table hears the page again.

One page (Ada, 520 Hz) and two bots with voices: Bruno (the target, the host) and Carla.
Who hears whom is measured in the bots' decoded mixes.
"""

from __future__ import annotations

import pytest

from client.bot import Bot
from client.rtc_peer import Tone
from tests.browser.bot_thread import BotThread
from tests.browser.harness import i18n, join_room, launch_player, wait_until
from tests.e2e.bots import drive
from tests.e2e.voice_room import levels, record_all

# Two bots' voices and a page's: it runs alone (solo, see tests/conftest.py).
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.solo, pytest.mark.timeout(300)]

IT = i18n("it")
ADA, BRUNO, CARLA = 520.0, 700.0, 960.0
PRESENT = -30.0   # the page's tone in a mix that carries it: about -14 to -18 dBFS
# Absent: this far under the level the target heard in the whisper. A leak comes at that
# same level (the issue saw -14.6 dBFS at every listener); the bin of an absent tone
# reads the other voices' coding noise through Chromium's encoder, -49 dBFS seen.
ABSENT_DB = 25.0

# The page's WebSockets, kept for the test, and a switch that makes new ones fail (a
# handshake to a path the server refuses, same origin) so "offline" lasts as long as
# the test needs.
SOCKETS = """(() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.__blockWs = false;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(window.__blockWs ? String(url).replace("/ws?", "/ws-blocked?") : url, protocols);
      window.__sockets.push(this);
    }
  };
})();"""


def _hear(bots: BotThread, who: dict, seconds: float = 1.0) -> dict[str, float]:
    """The level of Ada's tone in each bot's mix now (dBFS), by bot name."""
    rec = bots.run(record_all({name: bot for name, bot in who.items()}, seconds))
    return levels(rec, ADA)


def test_issue29_a_page_whose_socket_blips_mid_whisper_goes_public_only_on_its_own_tap(
        server, pw, tmp_path):
    ada = launch_player(pw, tmp_path, "Ada", ADA)
    ada.page.add_init_script(SOCKETS)
    bots = BotThread()
    try:
        bruno = bots.run(Bot.create(server.base_url, "Bruno", Tone(BRUNO), preset="intruso"))
        bots.bots.append(bruno)
        code = bruno.client.code
        join_room(server, ada, code, query="?testaudio=1")
        ada.page.click("#mic-enable")
        (carla,) = bots.join(server.base_url, code, [("Carla", Tone(CARLA))])
        bots.run(bruno.start_voice(timeout=60), timeout=90)
        table = {"Bruno": bruno, "Carla": carla}

        async def _start():
            mark = bruno.client.mark()
            await bruno.client.send("settings", options={
                "powers": [], "fantasmi": 0, "timers": {"clue": 5, "debate": 1800}})
            await bruno.client.wait_for(lambda m: m["type"] == "room", since=mark)
            assert not bruno.client.errors, bruno.client.errors
            await bruno.client.send("start")
            # The page's own clue turn times out (5 s); the bots give theirs.
            await drive([bruno, carla], lambda v: v["phase"] == "debate",
                        skip=("ready", "vote"), timeout=90)

        bots.run(_start(), timeout=120)
        wait_until(lambda: ada.state("s.view?.phase") == "debate" and ada.state("s.voice") == "on",
                   timeout=40, what="the page in the debate with voice")
        wait_until(lambda: min(_hear(bots, table, 0.5).values()) > PRESENT, timeout=40,
                   what="both bots hear the page in the debate")

        # ---- the page holds Bruno's avatar: Bruno alone hears it ----
        target = ada.page.locator(f".pcard[data-pid='{bruno.pid}'] .avatar")
        box = target.bounding_box()
        ada.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        ada.page.mouse.down()
        ada.page.wait_for_selector(".banner-whisper-out")
        wait_until(lambda: _hear(bots, {"Carla": carla}, 0.5)["Carla"] < PRESENT, timeout=10,
                   what="the whisper leaves Carla's mix")
        heard = _hear(bots, table)
        assert heard["Bruno"] > PRESENT, heard
        assert heard["Carla"] < heard["Bruno"] - ABSENT_DB, heard
        quiet = heard["Bruno"] - ABSENT_DB

        # ---- blip 1, the finger still down: the page resumes, Bruno alone hears it ----
        me = ada.pid  # read here: the bots' thread may not drive the page
        mark = bruno.client.mark()
        ada.page.evaluate("window.__sockets.at(-1).close()")
        bots.run(bruno.client.wait_for(
            lambda m: m["type"] == "whisper" and not m["active"], since=mark))
        wait_until(lambda: ada.state("s.conn") == "open" and ada.state("s.voice") == "on",
                   timeout=40, what="the page reconnected with voice")
        after = _hear(bots, {"Carla": carla}, 1.5)
        assert after["Carla"] < quiet, ("Carla hears the page after a blip", after, heard)
        bots.run(bruno.client.wait_for(
            lambda m: m["type"] == "whisper" and m["active"] and m["from"] == me, since=mark))
        wait_until(lambda: _hear(bots, {"Bruno": bruno}, 0.5)["Bruno"] > PRESENT, timeout=20,
                   what="Bruno hears the resumed whisper")
        after = _hear(bots, table)
        assert after["Carla"] < quiet, ("Carla hears the resumed whisper", after, heard)
        assert ada.page.locator(".banner-whisper-out").count() == 1
        assert ada.state("s.whisperHeld") is None

        # ---- blip 2, the finger lifted while offline: hushed, and the page says so ----
        mark = bruno.client.mark()
        ada.page.evaluate("window.__blockWs = true; window.__sockets.at(-1).close()")
        wait_until(lambda: ada.state("s.conn") != "open", what="the page offline")
        ada.page.mouse.up()
        wait_until(lambda: ada.page.locator(".banner-whisper-out").count() == 0,
                   what="no whisper shown once the finger lifts")
        ada.page.evaluate("window.__blockWs = false")
        ada.page.wait_for_selector("#whisper-unhush")  # the welcome says: hushed
        wait_until(lambda: ada.state("s.conn") == "open" and ada.state("s.voice") == "on",
                   timeout=40, what="the page reconnected with voice")
        held = ada.page.inner_text(".banner-whisper-held")
        assert IT["whisper.hushed"].format(name="Bruno") in held, held
        assert ada.page.inner_text("#whisper-unhush") == IT["whisper.speak_all"]
        assert ada.page.locator(".banner-whisper-out").count() == 0
        assert ada.state("s.whisperHeld") == bruno.pid and ada.state("s.whisperHeldTap")
        hushed = _hear(bots, table, 1.5)
        assert max(hushed.values()) < quiet, ("the hushed page is heard", hushed, heard)
        # A tap elsewhere is no gesture to talk to everyone: still hushed.
        ada.page.click(".banner-whisper-held span")
        assert ada.state("s.whisperHeld") == bruno.pid

        # ---- a reload from scratch: the same hushed state, the same button ----
        ada.page.reload()
        ada.page.wait_for_selector("#whisper-unhush")
        assert IT["whisper.hushed"].format(name="Bruno") in ada.page.inner_text(
            ".banner-whisper-held")
        wait_until(lambda: ada.state("s.voice") == "on", timeout=40, what="voice after reload")
        hushed = _hear(bots, table, 1.0)
        assert max(hushed.values()) < quiet, ("the reloaded page is heard", hushed, heard)

        # ---- the button: the whole table hears the page again ----
        ada.page.click("#whisper-unhush")
        wait_until(lambda: ada.page.locator(".banner-whisper-held").count() == 0,
                   what="the hush banner gone")
        wait_until(lambda: min(_hear(bots, table, 0.5).values()) > PRESENT, timeout=20,
                   what="both bots hear the page again")
        assert not ada.errors, ada.errors
    finally:
        bots.stop()
        ada.context.close()
