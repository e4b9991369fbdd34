"""Issue 31 item 11 in real Chromium: an Intruso game opens on a moment to read one's card
("Leggete la vostra carta"), the first clue's timer waiting; each player taps "Ho letto" and
once everyone has, the first speaker's turn runs on its own timer."""

from __future__ import annotations

import pytest

from tests.browser.harness import i18n, launch_player, seat_text_only, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IT = i18n("it")


@pytest.fixture
def trio(pw, tmp_path):
    players = [launch_player(pw, tmp_path, name, freq)
               for name, freq in (("Ugo", 520.0), ("Vera", 700.0), ("Zoe", 960.0))]
    yield players
    for p in players:
        p.context.close()


def test_item11_intruso_opens_on_reading_ones_card_then_the_first_clue(server, trio):
    host = trio[0]
    seat_text_only(server, trio)
    # No power cards: a dealt Cupido or Ubriacone would open the game on its own choice.
    host.page.click("#opt-powers-pick")
    wait_until(lambda: host.state("JSON.stringify(s.room.settings.options.powers)") == "[]",
               what="no powers")
    host.page.click("#start-btn")
    wait_until(lambda: all(p.state("s.view && s.view.phase === 'clues'") for p in trio), what="game")

    by_pid = {p.pid: p for p in trio}
    first = by_pid[host.state("s.view.turn")]
    others = [p for p in trio if p is not first]
    reading_end = host.state("s.view.deadline")
    for p in trio:
        assert p.state("s.view.reading") is True
        p.page.wait_for_selector("#reading #read-btn")
        assert p.page.inner_text("#status-line") == IT["reading.line"]
        assert p.page.inner_text("#read-btn") == IT["reading.ready"]
        assert p.page.locator(".secret-wrap").inner_text().strip()  # the card is on screen
    # the first speaker may already write; the others wait for their turn
    assert first.page.locator("#clue-input").count() == 1
    assert all(p.page.locator("#clue-input").count() == 0 for p in others)
    first.shot("reading-card")

    for p in trio:
        p.page.click("#read-btn")
    wait_until(lambda: all(p.state("s.view.reading") is False for p in trio), what="all read")
    # the first turn's own timer: the whole clue time from the moment everyone had read
    clue = host.state("s.room.settings.options.timers.clue")
    turn_deadline = host.state("s.view.deadline")
    assert turn_deadline != reading_end
    assert turn_deadline - host.state("s.view.phase_started") == pytest.approx(clue, abs=0.01)
    first.page.wait_for_selector("#clue-input")
    assert first.page.inner_text("#status-line") == IT["clue.your_turn"]
    assert first.page.locator("#reading").count() == 0
    first.page.fill("#clue-input", "zorpa")
    first.page.click("#clue-input-send")
    wait_until(lambda: host.state("s.view.clues.length") == 1, what="the first clue")
    for p in trio:
        assert not p.errors, p.errors
