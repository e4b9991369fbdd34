"""Issue 11: one phone passed around, offline, with the same Python core in the browser.

One browser profile goes through it all, so Pyodide starts as few times as possible:
the first visit online (the page says when it is ready for offline use), then the
server stopped and the browser closed and opened again on the same profile (a cold
start with no network at all), whole games played to their end screen, a reload in
the middle of one, and the page's game replayed under CPython byte for byte.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.onephone import (
    OFFLINE_BUILD,
    launch,
    play_to_end,
    replay_bytes,
    setup_game,
    step,
    wait_js,
    wait_playable,
)
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.slow, pytest.mark.browser]

NAMES = ["Ada", "Bruno", "Carla", "Dario", "Elena", "Fabio"]


@pytest.fixture(scope="module")
def built():
    if not (OFFLINE_BUILD / "manifest.json").is_file():
        pytest.fail("offline-build/ is missing: ./scripts/setup.sh builds it (needs the npm registry once)")


def test_offline_cold_start_whole_games_reload_and_same_bytes(pw, tmp_path, built):
    profile = tmp_path / "profile"
    with ServerProc(tmp_path / "s.db") as srv:
        ctx, page, errors = launch(pw, profile)
        page.goto(srv.url("/offline/"))
        wait_playable(page)
        # The page says when everything is kept for offline use.
        page.wait_for_selector("#offline-status[data-ready='yes']", timeout=60000)
        assert page.text_content("#offline-status") == "Ready for offline use"
        ctx.close()
        url = srv.url("/offline/")
    # The network is gone: no server at all, and the browser context offline too.
    ctx, page, errors = launch(pw, profile)
    ctx.set_offline(True)
    try:
        page.goto(url)
        wait_playable(page)
        assert page.evaluate("window.__onephone.screen") == "setup"

        # Intruso (undercover engine), reloaded in the middle and continued.
        setup_game(page, NAMES, "intruso")
        steps = play_to_end(page, reload_at=12)
        assert "reload" in steps and steps[-1] == "end"
        assert "card" in steps and "vote" in steps and "turn" in steps
        record = page.evaluate("window.__onephone.record()")
        assert record["preset"] == "intruso" and record["options"]["one_phone"] is True
        assert any(e["action"]["type"] == "table_vote" for e in record["log"])
        # The same seed and actions make the same game under CPython, byte for byte.
        browser_bytes = page.evaluate("window.__onephone.stateBytes()").encode("utf-8")
        assert replay_bytes(record) == browser_bytes
        assert json.loads(browser_bytes)["phase"] == "over"
        outcome = page.get_attribute("#outcome", "data-outcome")
        assert outcome in ("civili", "infiltrati", "fantasma", "buffone")
        # The evening counts the finished game (kept on the phone).
        assert "1" in page.text_content("#evening h2")

        # Another engine's preset of the evening: Infiltré, from the end screen.
        page.click("#change-setup")
        page.wait_for_selector("#start")
        setup_game(page, NAMES, "infiltre")
        assert play_to_end(page)[-1] == "end"
        assert "2" in page.text_content("#evening h2")
        assert not errors, errors
    finally:
        ctx.close()


def test_one_tap_vote_and_card_again(pw, tmp_path, built):
    """The vote aloud: a 3-2-1 countdown, then one tap on the most voted ends the ballot;
    "see NAME's card again?" asks for confirmation and passes the phone to NAME."""
    with ServerProc(tmp_path / "s.db") as srv:
        ctx, page, errors = launch(pw, tmp_path / "profile", locale="it-IT")
        try:
            page.goto(srv.url("/offline/"))
            wait_playable(page)
            setup_game(page, NAMES[:4], "sosia")
            # Everyone sees their card once (pass, confirm, hold, done).
            for _ in range(4 * 2):
                step(page)
            page.wait_for_selector("#see-again")
            page.click("#see-again")
            page.locator("#again .pick-grid .avatar").nth(2).click()
            assert page.text_content("#again h2") == "Rivedere la carta di Carla?"
            page.click("#again-yes")
            assert page.text_content("#pass-title") == "Passa il telefono a Carla"
            step(page)  # Carla confirms
            step(page)  # holds the card, then done
            page.wait_for_selector("#turn-done")
            for _ in range(200):
                if step(page, vote=False) == "countdown":
                    break
            else:
                raise AssertionError("the vote never came")
            page.click("#countdown-start")
            page.wait_for_selector("#countdown")
            page.wait_for_selector(".pick-grid .avatar", timeout=10000)
            said = page.evaluate("window.__onephone.said")
            assert ["3", "2", "1"] == [s for s in said if s in ("3", "2", "1")][-3:]
            target = page.locator(".pick-grid .avatar").first.get_attribute("data-pid")
            n = page.evaluate("window.__onephone.record().log.length")
            page.locator(".pick-grid .avatar").first.click()
            wait_js(page, f"window.__onephone.record().log.length > {n}")
            last = page.evaluate("window.__onephone.record().log.at(-1)")
            assert last["action"] == {"type": "table_vote", "tally": {target: 1}}
            assert not errors, errors
        finally:
            ctx.close()
