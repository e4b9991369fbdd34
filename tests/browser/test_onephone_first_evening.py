"""Issue 31 section 3 on the one-phone page, in real Chromium on a phone: item 2 (the pass
screen names the player, also after a reload mid-game), item 4 (the vote shows one grid
and its taps count), item 3 (a Civili win gives the Civili points, the evening's
winners first, each word labelled with whose it is) and item 12's one-phone wording (no
whispers, nobody "hosting" in the setup).

The page runs this worktree's core: the offline build is made for the test in a
temporary folder (onephone.build_offline: Pyodide linked from offline-build/, the core
packed from game/), and the server serves that one (SUSSURRO_OFFLINE_DIR).
"""

from __future__ import annotations

import pytest

import game
from tests.browser.onephone import build_offline, countdown, launch, step, wait_js, wait_playable
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.slow, pytest.mark.browser]

NAMES = ["Ada", "Bruno", "Carla", "Dario"]


@pytest.fixture(scope="module")
def page_it(pw, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("onephone")
    out = tmp / "offline"
    build_offline(out)
    with ServerProc(tmp / "s.db", env={"SUSSURRO_OFFLINE_DIR": str(out)}) as srv:
        ctx, page, errors = launch(pw, tmp / "profile", locale="it-IT")
        try:
            page.goto(srv.url("/offline/"))
            wait_playable(page)
            yield page, errors
        finally:
            ctx.close()


def roles(page) -> dict[str, str]:
    """Each seat's role now, from the page's record replayed by CPython's core."""
    r = page.evaluate("window.__onephone.record()")
    s = game.replay(r["preset"], r["options"], r["seed"], r["players"], r["log"],
                    started_at=r["started_at"], words=r["words"])
    return {pl.id: (pl.role if pl.alive else "out") for pl in s.players}


def test_item12_one_phone_setup_speaks_of_no_whispers_and_no_host(page_it):
    """Issue 31 §3 item 12: the one-phone setup of Intruso mentions neither whispers nor
    powers "scelte dall'host" (that mode has neither)."""
    page, errors = page_it
    page.select_option("#opt-preset", "intruso")
    wait_js(page, "document.querySelector('#opt-preset').value === 'intruso'")
    text = page.inner_text(".onephone-setup .settings")
    assert "sussurr" not in text.lower(), text
    assert "host" not in text.lower(), text
    # Nor of a room: Impostore's own word list belongs to the table, not to a "stanza".
    page.select_option("#opt-preset", "classica")
    wait_js(page, "document.querySelector('#opt-preset').value === 'classica'")
    text = page.inner_text(".onephone-setup .settings")
    assert "stanza" not in text.lower(), text
    page.select_option("#opt-preset", "intruso")
    wait_js(page, "document.querySelector('#opt-preset').value === 'intruso'")
    assert not errors, errors


def test_items_2_4_3_pass_screen_names_vote_grid_and_civili_points(page_it):
    """Issue 31 §3 items 2, 4 and 3 along one game of Intruso on one phone."""
    page, errors = page_it
    inputs = page.locator(".name-input")
    while inputs.count() < len(NAMES):
        page.click("#add-player")
    for i, name in enumerate(NAMES):
        inputs.nth(i).fill(name)
    page.select_option("#opt-preset", "intruso")
    wait_js(page, "document.querySelector('#opt-preset').value === 'intruso'")
    page.select_option("#opt-fantasmi", "0")
    wait_js(page, "document.querySelector('#opt-fantasmi').value === '0'")
    page.click("#opt-powers-pick")  # no powers: the round is clues then the vote
    page.click("#start")
    page.wait_for_selector(".onephone-play")

    # Item 2: the first pass screen names its player; so does it after a reload.
    page.wait_for_selector("#pass-title")
    assert "Ada" in page.inner_text("#pass-title"), page.inner_text("#pass-title")
    assert "?" not in page.inner_text("#pass-title") and "Ada" in page.inner_text("#pass-confirm")
    page.reload()
    wait_playable(page)
    page.wait_for_selector("#pass-title")
    assert "Ada" in page.inner_text("#pass-title") and "?" not in page.inner_text("#pass-confirm"), \
        page.inner_text("#pass-title")

    # To the vote; at each vote the table points at an infiltrator (the Civili win).
    votes = 0
    for _ in range(300):
        what = step(page, vote=False)
        if what == "end":
            break
        if what != "countdown":
            continue
        countdown(page)
        page.wait_for_selector(".pick-grid .avatar")
        # Item 4: one grid of players, and a tap on it is the vote.
        grids = page.locator(".onephone-play .grid")
        assert grids.count() == 1, page.inner_html(".onephone-play")
        bad = next(pid for pid, role in roles(page).items() if role not in ("civile", "out"))
        before = page.evaluate("window.__onephone.record().log.length")
        page.click(f".pick-grid .avatar[data-pid='{bad}']")
        wait_js(page, f"window.__onephone.record()?.log?.length > {before} || !!document.querySelector('#end')")
        votes += 1
    else:
        raise AssertionError("no end screen")
    assert votes >= 1

    # Item 3: the Civili won; they have points, the evening lists the winners first,
    # and each word says whose it is.
    assert page.get_attribute("#outcome", "data-outcome") == "civili"
    rows = page.eval_on_selector_all(
        "#evening .podium li", "els => els.map(e => [e.dataset.pid, e.className, e.innerText])")
    assert rows, rows
    final = roles_at_end(page)
    winners = [pid for pid, role in final.items() if role == "civile"]
    assert any("0 punti" not in text for _, _, text in rows), rows
    assert rows[0][0] in winners, (rows, winners)
    losers = [pid for pid in final if pid not in winners]
    assert all("place-" not in cls for pid, cls, _ in rows if pid in losers), rows
    words = page.inner_text("#end-words")
    assert "Civile:" in words and "Intruso:" in words, words
    reveal = page.eval_on_selector_all(".reveal-list li", "els => els.map(e => e.dataset.pid)")
    assert reveal[: len(winners)] == [pid for pid in reveal if pid in winners], reveal
    assert not errors, errors


def roles_at_end(page) -> dict[str, str]:
    """Each seat's role at the end (alive or not), from the end screen's data."""
    r = page.evaluate("window.__onephone.record()")
    s = game.replay(r["preset"], r["options"], r["seed"], r["players"], r["log"],
                    started_at=r["started_at"], words=r["words"])
    return {pl.id: pl.role for pl in s.players}
