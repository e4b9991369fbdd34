"""Issue 37 item 5, a full lobby on a 390x844 phone in real Chromium: the microphone's
choice (voice or text) is a newcomer's first step, so until it is made the mic card stands
right under the room's code, on the first screen, and not ~2,700 px down after sixteen
players' volume rows, the rules and "Lascia la stanza"; once made, it moves out of the way
(after the players). The fifteen volume rows are folded behind one line, "Volumi (15)",
and open one player at a time or all at once; an opened row's slider and mute still reach
the server (the volumes heard are measured in tests/browser/test_volumes.py).

A real server; fifteen seats join through the HTTP API, as tests/browser/test_bans.py does.
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.browser.harness import create_room, i18n, launch_player, wait_until
from tests.browser.screens_check import axe_problems, axe_source, phone_problems

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE_390 = {"width": 390, "height": 844}
IT = i18n("it")

# Where an element stands on the page (not in the viewport): its top and bottom in px.
PLACE_JS = """(sel) => { const el = document.querySelector(sel); if (!el) return null;
  const r = el.getBoundingClientRect(); return [r.top + scrollY, r.bottom + scrollY]; }"""
# How many volume rows a player can see (and so reach).
SHOWN_VOLS_JS = """() => [...document.querySelectorAll('.player-list .vol')]
  .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden').length"""


def seat_fifteen(server, code: str) -> list[str]:
    join = server.url(f"/api/rooms/{code}/join")
    pids = []
    for i in range(15):
        r = httpx.post(join, json={"name": f"Giocatore {i + 2}"})
        assert r.status_code == 200, r.text
        pids.append(r.json()["player"])
    return pids


def test_item5_the_mic_choice_comes_first_in_a_full_lobby_and_the_volumes_fold(server, pw, tmp_path):
    ada = launch_player(pw, tmp_path, "Ada", 520.0, viewport=PHONE_390)
    sent: list[dict] = []
    ada.page.on("websocket", lambda ws: ws.on(
        "framesent", lambda data: sent.append(json.loads(data)) if isinstance(data, str) else None))
    try:
        code = create_room(server, ada)
        pids = seat_fifteen(server, code)
        wait_until(lambda: ada.page.locator(".player-row").count() == 16, what="16 seated")
        ada.page.evaluate("window.scrollTo(0, 0)")
        ada.shot("issue37_item5_full_lobby_before_choice")

        # Before the choice: the mic card on the first screen, right under the room's code.
        mic = ada.page.evaluate(PLACE_JS, ".mic-card")
        code_block = ada.page.evaluate(PLACE_JS, ".room-code")
        players = ada.page.evaluate(PLACE_JS, ".players")
        assert mic is not None, "no mic card"
        assert mic[0] < PHONE_390["height"], f"mic card at {mic[0]:.0f} px"
        assert code_block[1] <= mic[0] < players[0], (code_block, mic, players)
        assert ada.page.locator("#mic-enable").is_visible()
        assert ada.page.locator("#mic-enable").bounding_box()["y"] < PHONE_390["height"]

        # The fifteen volume rows folded behind one line: "Volumi (15)".
        assert ada.page.evaluate(SHOWN_VOLS_JS) == 0
        fold = ada.page.locator("#vol-all")
        assert fold.inner_text().strip() == IT["volume.all"].replace("{n}", "15")
        assert fold.get_attribute("aria-expanded") == "false"

        # One player's row opened on its own, and its controls still reach the server.
        bruno, carla = pids[0], pids[1]
        ada.page.click(f".vol-open[data-pid='{bruno}']")
        assert ada.page.get_attribute(f".vol-open[data-pid='{bruno}']", "aria-expanded") == "true"
        assert ada.page.evaluate(SHOWN_VOLS_JS) == 1
        ada.page.locator(f".vol-slider[data-pid='{bruno}']").fill("30")
        wait_until(lambda: any(m.get("type") == "volumes" and m.get("gains", {}).get(bruno) == 0.3
                               for m in sent), what="Bruno at 30 % sent")
        # All at once, then folded again; a redraw (the host kicks a player) keeps what is open.
        fold.click()
        assert fold.get_attribute("aria-expanded") == "true"
        assert ada.page.evaluate(SHOWN_VOLS_JS) == 15
        ada.page.click(f".vol-mute[data-pid='{carla}']")
        wait_until(lambda: any(m.get("type") == "volumes" and carla in m.get("muted", []) for m in sent),
                   what="Carla muted sent")
        ada.shot("issue37_item5_volumes_open")
        fold.click()
        assert ada.page.evaluate(SHOWN_VOLS_JS) == 0
        ada.page.click(f".vol-open[data-pid='{carla}']")
        assert ada.page.locator(f".vol-mute[data-pid='{carla}']").get_attribute("aria-pressed") == "true"
        ada.page.once("dialog", lambda d: d.accept())
        ada.page.click(f".player-row[data-pid='{pids[-1]}'] .iconbtn.danger")
        wait_until(lambda: ada.page.locator(".player-row").count() == 15, what="one kicked")
        assert fold.inner_text().strip() == IT["volume.all"].replace("{n}", "14")
        wait_until(lambda: ada.page.evaluate(SHOWN_VOLS_JS) == 1, what="Carla's row still open")

        # No screen problem with the fold (44 px targets, nothing past the side, axe), seen
        # from the top (scrolled, rows pass under the sticky top bar's language select).
        ada.page.evaluate("window.scrollTo(0, 0)")
        assert not phone_problems(ada.page), phone_problems(ada.page)
        assert not axe_problems(ada.page, axe_source()), axe_problems(ada.page, axe_source())

        # Reloaded, the rows fold again but for the voices changed here (Bruno, Carla).
        ada.page.reload()
        wait_until(lambda: ada.page.locator(".player-row").count() == 15, what="back in the lobby")
        wait_until(lambda: ada.page.evaluate(SHOWN_VOLS_JS) == 2, what="the two changed rows open")
        assert ada.page.locator(f".vol-slider[data-pid='{bruno}']").input_value() == "30"

        # The choice made (text): the card moves out of the way, after the players.
        ada.page.click("#mic-skip")
        wait_until(lambda: ada.page.locator(".mic-skipped").count() == 1, what="text chosen")
        mic = ada.page.evaluate(PLACE_JS, ".mic-card")
        players = ada.page.evaluate(PLACE_JS, ".players")
        assert mic[0] >= players[1], (mic, players)
        assert players[0] < 400, players
        # ... and voice chosen later from there: it stays out of the way.
        ada.page.click("#mic-enable")
        wait_until(lambda: ada.state("s.mic") == "on", what="mic on")
        mic = ada.page.evaluate(PLACE_JS, ".mic-card")
        assert mic[0] >= ada.page.evaluate(PLACE_JS, ".players")[1], mic
        ada.page.evaluate("window.scrollTo(0, 0)")
        ada.shot("issue37_item5_full_lobby_after_choice")
        assert not ada.errors, ada.errors
    finally:
        ada.context.close()
