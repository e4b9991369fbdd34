"""Issue 11, the other engines on one phone: a whole game of Impostore and one of Lupi
Mannari (the app as moderator) played offline to their end screens in real Chromium, each
replayed under CPython to the same bytes. The page's narration is shown and spoken, the
night passes the phone to every living player alike, and the day's ballots are the
table's tallies."""

from __future__ import annotations

import json

import pytest

from tests.browser.harness import i18n
from tests.browser.onephone import (
    launch,
    play_to_end,
    replay_bytes,
    setup_game,
    wait_js,
    wait_playable,
)
from tests.browser.test_offline import built  # noqa: F401 (the fixture)
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def _same_bytes(page) -> dict:
    record = page.evaluate("window.__onephone.record()")
    browser_bytes = page.evaluate("window.__onephone.stateBytes()").encode("utf-8")
    assert replay_bytes(record) == browser_bytes
    assert json.loads(browser_bytes)["phase"] == "over"
    return record


def test_impostore_and_lupi_offline_to_the_end(pw, tmp_path, built):  # noqa: F811
    with ServerProc(tmp_path / "s.db") as srv:
        ctx, page, errors = launch(pw, tmp_path / "profile")
        try:
            page.goto(srv.url("/offline/"))
            wait_playable(page)
            page.wait_for_selector("#offline-status[data-ready='yes']", timeout=60000)
            # No network from here on. (Starting cold with none is test_offline's: the same
            # files, so no second start of Pyodide here.)
            ctx.set_offline(True)
            # The setup offers every engine's presets, grouped by game as in a room's lobby.
            groups = page.eval_on_selector_all(
                "#opt-preset optgroup", "els => els.map(g => g.label)")
            values = page.eval_on_selector_all("#opt-preset option", "els => els.map(o => o.value)")
            assert {"intruso", "infiltre", "sosia", "classica", "caos", "esperti", "lupi"} <= set(values)
            assert groups, values

            # Impostore, Classica: cards, spoken clue turns, the vote aloud, the guess typed.
            setup_game(page, ["Ada", "Bruno", "Carla", "Dario"], "classica")
            # Ada asks "Non conosco la parola" alone with the phone; the table votes on it
            # aloud once every card is seen (the driver taps "keep").
            page.on("dialog", lambda d: d.accept())
            page.click("#pass-confirm")
            page.click("#ask-word")
            page.wait_for_selector("#asked-note")
            steps = play_to_end(page)
            assert {"card", "turn", "vote"} <= set(steps)
            record = _same_bytes(page)
            assert record["preset"] == "classica" and record["options"]["one_phone"] is True
            kinds = [e["action"]["type"] for e in record["log"]]
            assert kinds[0] == "ask_word" and "table_word_vote" in kinds and "table_vote" in kinds
            # The vote opened only after the last card (four `seen` before it).
            assert kinds[:kinds.index("table_word_vote")].count("seen") == 4
            assert page.get_attribute("#outcome", "data-outcome") in ("innocents", "impostors")
            # One word for the whole table: named in the singular ("Le parole:" before).
            said = i18n(page.evaluate("document.documentElement.lang"))
            assert page.inner_text("#end-words").startswith(said["offline.word"] + " "), (
                page.inner_text("#end-words"))

            # Lupi Mannari with one wolf at a table of four: the narration, the night's
            # rounds of the phone, the nomination and the lynch.
            page.click("#change-setup")
            page.wait_for_selector("#start")
            setup_game(page, ["Ada", "Bruno", "Carla", "Dario"], "lupi", {"opt-lupi": "1"})
            steps = play_to_end(page)
            record = _same_bytes(page)
            kinds = [e["action"]["type"] for e in record["log"]]
            assert "peek" in kinds and "bite" in kinds and kinds.count("table_vote") >= 2, (kinds, steps)
            # Everyone held the phone at night, each twice (the seer's round, the wolves').
            assert steps.count("secret") == steps.count("secret-answer") >= 2 * 3
            assert page.get_attribute("#outcome", "data-outcome") in ("umani", "lupi")
            said = " ".join(page.evaluate("window.__onephone.said"))
            assert "close your eyes" in said.lower() or "night" in said.lower(), said[:300]
            wait_js(page, "document.querySelector('#evening h2')")
            assert "2" in page.text_content("#evening h2")
            assert not errors, errors
        finally:
            ctx.close()
