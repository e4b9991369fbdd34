"""A refused clue is explained in the player's language (Italian, French, English),
in a game played by text only (the microphone declined)."""

from __future__ import annotations

import pytest

from game.text import MAX_CLUE_WORDS, clue_words
from tests.browser.harness import i18n, launch_player, seat_text_only, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

I18N = {lang: i18n(lang) for lang in ("it", "fr", "en")}


@pytest.fixture
def trio(pw, tmp_path):
    players = [launch_player(pw, tmp_path, name, freq)
               for name, freq in (("Ugo", 520.0), ("Vera", 700.0), ("Zoe", 960.0))]
    yield players
    for p in players:
        p.context.close()


def refusal(player, text, lang, code):
    player.page.fill("#clue-input", text)
    player.page.click("#clue-input-send")
    expected = I18N[lang][f"error.{code}"]
    wait_until(lambda: player.page.inner_text(".inline-error") == expected,
               what=f"{code} in {lang} (shown: {player.page.inner_text('.inline-error')!r})")
    assert player.page.get_attribute(".inline-error", "data-code") == code


def test_refused_clues_are_explained_in_italian_french_and_english(server, trio):
    host, *others = trio
    seat_text_only(server, trio)
    assert host.page.is_visible(".mic-skipped")
    # The host hands the room over; the new host runs the settings and the start.
    old_host = host
    vera = others[0]
    old_host.page.once("dialog", lambda d: d.accept())
    old_host.page.click(f".player-row[data-pid='{vera.pid}'] button[aria-label*='{vera.name}'] >> nth=0")
    wait_until(lambda: vera.page.locator("#start-btn").count() == 1, what="Vera is the host")
    # The old host's page hears it on its own socket, maybe a moment later.
    wait_until(lambda: old_host.page.locator("#start-btn").count() == 0
               and old_host.page.is_disabled("#opt-preset"), what="the old host is a player")
    host = vera
    # No powers, a long clue timer: the refusals are the only thing happening.
    host.page.click("#opt-powers-pick")
    wait_until(lambda: host.state("s.room.settings.options.powers.length === 0"), what="no powers")
    host.page.fill("#opt-timer-clue", "120")
    host.page.press("#opt-timer-clue", "Tab")
    wait_until(lambda: host.state("s.room.settings.options.timers.clue") == 120, what="clue timer")
    host.page.click("#start-btn")
    wait_until(lambda: all(p.state("s.view && s.view.phase === 'clues'") for p in trio), what="clues")

    by_pid = {p.pid: p for p in trio}
    player = by_pid[host.state("s.view.turn")]
    player.page.wait_for_selector("#clue-input")
    word = player.state("s.view.me.word")

    refusal(player, word, "it", "clue_uses_secret_word")
    refusal(player, word.upper(), "it", "clue_uses_secret_word")   # case does not hide it
    refusal(player, "uno due tre quattro cinque", "it", "clue_too_long")

    player.page.select_option(".topbar .lang select", "fr")
    player.page.wait_for_selector("#clue-input")
    assert player.page.get_attribute("html", "lang") == "fr"
    refusal(player, word, "fr", "clue_uses_secret_word")
    refusal(player, "un deux trois quatre cinq", "fr", "clue_too_long")

    player.page.select_option(".topbar .lang select", "en")
    player.page.wait_for_selector("#clue-input")
    # The word inside a longer clue, padded only as far as the word limit allows: some
    # secret words are two or three words long, and a clue over the limit is refused
    # for its length first.
    room = MAX_CLUE_WORDS - len(clue_words(word))
    padded = " ".join(["my"] * (room >= 1) + [word] + ["here"] * (room >= 2))
    refusal(player, padded, "en", "clue_uses_secret_word")
    refusal(player, "   ", "en", "clue_empty")
    # Someone else typing out of turn gets a plain refusal too (nothing to send: no field).
    other = next(p for p in trio if p is not player)
    assert other.page.locator("#clue-input").count() == 0

    # The language picked is remembered on this device, and a fine clue goes through.
    player.page.reload()
    player.page.wait_for_selector("#clue-input")
    assert player.page.get_attribute("html", "lang") == "en"
    player.page.fill("#clue-input", "zorblat")
    player.page.click("#clue-input-send")
    wait_until(lambda: host.state("s.view.clues.length") == 1, what="the clue accepted")
    wait_until(lambda: player.page.locator("#clue-input").count() == 0, what="the turn moved on")
    for p in trio:
        assert not p.errors, (p.name, p.errors)
