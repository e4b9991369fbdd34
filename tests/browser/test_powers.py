"""The power cards' own screens against the real server, played by text only:
Cupido binds, the Ubriacone picks two, the Spia is shown a Civile, the Sabotatore
swaps words in the debate; then a tied vote goes to the runoff among the tied only,
and a second tie with no Giudice eliminates nobody (000 §5)."""

from __future__ import annotations

import pytest

from tests.browser.harness import launch_player, seat_text_only, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

POWERS = ["spia", "cupido", "ubriacone", "sabotatore"]


@pytest.fixture
def four(pw, tmp_path):
    players = [launch_player(pw, tmp_path, name, 0, mic="missing")
               for name in ("Ada", "Bruno", "Carla", "Dario")]
    yield players
    for p in players:
        p.context.close()


def tap(player, pid):
    player.page.click(f".pcard[data-pid='{pid}'] .avatar")


def test_power_cards_runoff_and_a_second_tie(server, four):
    host = four[0]
    seat_text_only(server, four)
    host.page.click("#opt-powers-pick")
    wait_until(lambda: host.state("s.room.settings.options.powers.length === 0"), what="powers picked")
    for power in POWERS:
        host.page.check(f"input[name=power][value={power}]")
        wait_until(lambda power=power: host.state(f"s.room.settings.options.powers.includes('{power}')"),
                   what=power)
    host.page.click("#start-btn")
    wait_until(lambda: all(p.state("s.view && s.view.phase === 'powers'") for p in four), what="powers phase")

    power_of = {p.state("s.view.me.power"): p for p in four}
    assert set(power_of) == set(POWERS)
    pids = [p.pid for p in four]
    others = lambda me: [pid for pid in pids if pid != me.pid]  # noqa: E731

    cupido, drunkard = power_of["cupido"], power_of["ubriacone"]
    assert cupido.page.is_disabled("#bind-confirm")
    tap(cupido, others(cupido)[0])
    wait_until(lambda: cupido.page.is_enabled("#bind-confirm"), what="Cupido's pick")
    cupido.page.click("#bind-confirm")
    tap(drunkard, others(drunkard)[0])
    tap(drunkard, others(drunkard)[1])
    wait_until(lambda: drunkard.page.is_enabled("#intoxicate-confirm"), what="two picked")
    drunkard.page.click("#intoxicate-confirm")
    wait_until(lambda: all(p.state("s.view.phase === 'clues'") for p in four), what="clues after the powers")
    assert cupido.page.locator("#secret-card li[data-fact='bound_by_me']").count() == 1
    assert drunkard.page.locator("#secret-card li[data-fact='drunk_by_me']").count() == 2
    spia = power_of["spia"]
    assert spia.page.locator("#secret-card li[data-fact='civili_word']").count() == 1
    assert spia.page.locator(".badge-known[data-fact='civili_word']").count() == 1

    by_pid = {p.pid: p for p in four}
    for i in range(4):
        turn = by_pid[wait_until(lambda: host.state("s.view.phase === 'clues' && s.view.turn"), what="turn")]
        turn.page.fill("#clue-input", f"zorblat {'wxyz'[i]}")
        turn.page.click("#clue-input-send")
        wait_until(lambda i=i: host.state("s.view.clues.length") == i + 1, what=f"clue {i + 1}")
    wait_until(lambda: all(p.state("s.view.phase === 'debate'") for p in four), what="debate")

    # The Sabotatore swaps with someone whose word differs from theirs, if any.
    sab = power_of["sabotatore"]
    mine = sab.state("s.view.me.word")
    partner = next((p for p in four if p is not sab and p.state("s.view.me.word") not in (None, mine)),
                   next(p for p in four if p is not sab and p.state("s.view.me.word")))
    theirs = partner.state("s.view.me.word")
    sab.page.click("#swap-open")
    tap(sab, partner.pid)
    wait_until(lambda: sab.page.is_enabled("#swap-confirm"), what="swap target picked")
    sab.page.click("#swap-confirm")
    wait_until(lambda: sab.state("s.view.me.word") == theirs, what="the Sabotatore's new word")
    # Each player's view comes on their own socket: the partner's may land a moment later.
    wait_until(lambda: partner.state("s.view.me.word") == mine, what="the partner's new word")
    wait_until(lambda: partner.page.is_visible("#toast"), what="the swapped player is told")
    assert sab.page.locator("#swap-open").count() == 0          # once per game

    for p in four:
        p.page.click("#ready-btn")
    wait_until(lambda: all(p.state("s.view.phase === 'vote'") for p in four), what="vote")
    a, b, c, d = four
    plan = [(a, b), (b, a), (c, a), (d, b)]                      # 2 - 2
    for voter, target in plan:
        tap(voter, target.pid)
        wait_until(lambda voter=voter, target=target: voter.state("s.view.me.vote") == target.pid
                   or voter.state("s.view.phase") != "vote", what=f"{voter.name}'s vote")
    wait_until(lambda: all(p.state("s.view.phase === 'revote'") for p in four), what="the runoff")
    assert sorted(c.state("s.view.candidates")) == sorted([a.pid, b.pid])
    # Only the tied may be picked now.
    assert c.page.locator(f".pcard[data-pid='{d.pid}'].pickable").count() == 0
    assert c.page.locator(f".pcard[data-pid='{a.pid}'].pickable").count() == 1
    c.shot("09_revote")
    for voter, target in plan:
        tap(voter, target.pid)
    wait_until(lambda: all(p.state("s.view.phase === 'clues' && s.view.round === 2") for p in four),
               what="round 2 with nobody eliminated")
    assert all(p["alive"] for p in host.state("s.view.players"))
    for p in four:
        assert not p.errors, (p.name, p.errors)
