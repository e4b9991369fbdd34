"""Issue 31 item 11, 000 §2 "each discovers their word in secret on their own screen": before
the first clue, a moment to read one's card. The first turn's timer starts after it; it ends
early when every living player has read their card, or when the first speaker gives the clue.
"""

from __future__ import annotations

import pytest

from game import GameError, apply, new_game, replay, state_bytes, tick, view

from .scenario import Play, players, start

READ = 15


def _game(preset="intruso", **options):
    return start(preset, options={"reading_time": READ, **options}, now=100.0)


def test_item11_a_new_game_opens_on_a_moment_to_read_ones_card_by_default():
    s = new_game("intruso", {"powers": []}, 3, players(5), 100.0)
    assert s.phase == "clues" and s.round == 1
    v = view(s, s.order[1])
    assert v["reading"] is True
    assert v["deadline"] == 100.0 + READ  # the reading's end, not the clue's
    assert v["me"]["word"]  # the card is there to read
    assert "ready" in v["me"]["can"] and "clue" not in v["me"]["can"]
    first = view(s, s.order[0])
    assert set(first["me"]["can"]) == {"ready", "clue"}  # may say the clue at once


@pytest.mark.parametrize("preset", ["intruso", "infiltre", "sosia_timed"])
def test_item11_the_first_clues_timer_starts_when_the_reading_time_is_up(preset):
    if preset == "sosia_timed":  # Sosia with the host's timers
        preset = "sosia"
        p = Play(start(preset, options={"reading_time": READ, "timers": {"clue": 30}}, now=100.0))
    else:
        p = Play(_game(preset))
    first = p.s.order[0]
    ev = p.timeout()  # the reading time is up: nobody skipped, the first turn starts
    assert {"type": "reading_over"} in ev
    assert not [e for e in ev if e["type"] == "turn" or e.get("type") == "clue"]
    assert p.s.phase == "clues" and p.s.order[p.s.turn_index] == first
    assert view(p.s, first)["reading"] is False
    clue = p.s.options["timers"]["clue"]
    assert p.s.deadline == (None if clue is None else 100.0 + READ + clue)
    assert not p.s.clues


def test_item11_without_timers_sosia_reads_until_everyone_is_ready_or_the_first_clue():
    p = Play(_game("sosia"), t=100.0)
    assert p.s.reading and p.s.deadline is None  # its own pace: no clock
    for pid in p.s.living_ids():
        p.act(pid, type="ready")
    assert not p.s.reading and p.s.deadline is None
    p = Play(_game("sosia"), t=100.0)
    p.act(p.s.order[0], type="clue", text="zorpa")
    assert not p.s.reading and p.s.turn_index == 1


def test_item11_the_first_turn_is_skipped_only_a_whole_clue_time_after_the_reading():
    p = Play(_game())
    first = p.s.order[0]
    p.s, _ = tick(p.s, 100.0 + READ + 44.0)
    assert not p.s.clues
    p.s, _ = tick(p.s, 100.0 + READ + 45.0)
    assert [c.player for c in p.s.clues] == [first] and p.s.clues[0].skipped


def test_item11_the_reading_ends_when_every_player_has_read_their_card():
    p = Play(_game(), t=100.0)
    living = p.s.living_ids()
    for pid in living[:-1]:
        p.act(pid, type="ready")
        assert p.s.reading
    assert view(p.s, living[0])["players"][0]["ready"] is True  # who has read it shows
    p.act(living[-1], type="ready")
    assert not p.s.reading
    assert p.s.deadline == p.t + p.s.options["timers"]["clue"]
    assert {"type": "reading_over"} in p.events
    # ready is not an action of the clues any more
    p.fail(living[0], "wrong_phase", type="ready")


def test_item11_the_first_speaker_may_give_the_clue_at_once_which_ends_the_reading():
    p = Play(_game(), t=100.0)
    first, second = p.s.order[0], p.s.order[1]
    p.fail(second, "not_your_turn", type="clue", text="zorpa")  # the others wait their turn
    p.act(first, type="clue", text="zorpa")
    assert not p.s.reading
    assert p.s.order[p.s.turn_index] == second
    assert p.s.deadline == p.t + p.s.options["timers"]["clue"]
    assert "ready" not in view(p.s, second)["me"]["can"]


def test_item11_only_the_first_round_opens_with_the_reading():
    p = Play(_game(), t=100.0)
    p.timeout()
    p.to_vote()
    p.everyone_votes("p0", "p1")  # a Civile out: the game goes on
    assert p.s.round == 2 and p.s.phase == "clues"
    assert not p.s.reading
    assert p.s.deadline == p.t + p.s.options["timers"]["clue"]


def test_item11_after_the_start_choices_the_reading_starts_with_the_first_round():
    p = Play(start(options={"reading_time": READ}, powers={"p1": "cupido"}, now=100.0), t=100.0)
    assert p.s.phase == "powers"
    p.act("p1", type="bind", target="p2")
    assert p.s.phase == "clues" and p.s.reading
    assert p.s.deadline == p.t + READ


def test_item11_one_phone_has_no_wait_the_card_is_read_when_the_phone_is_passed():
    s = _game(one_phone=True)
    assert s.phase == "clues" and not s.reading


def test_item11_no_reading_when_the_room_sets_it_to_zero():
    s = _game(reading_time=0)
    assert not s.reading and s.deadline == 100.0 + s.options["timers"]["clue"]


@pytest.mark.parametrize("bad", [-1, 61, "15", True, None])
def test_item11_the_reading_time_is_checked(bad):
    with pytest.raises(GameError) as info:
        new_game("intruso", {"reading_time": bad}, 1, players(5), 0.0)
    assert info.value.code == "bad_options"


def test_item11_a_game_with_the_reading_replays_exactly():
    opts = {"powers": [], "reading_time": READ}
    s = new_game("intruso", opts, 9, players(5), 100.0)
    log = []
    t = 100.0
    for pid in s.living_ids()[:3]:
        t += 1.0
        s, _ = apply(s, pid, {"type": "ready"}, t)
        log.append({"t": t, "player": pid, "action": {"type": "ready"}})
    t = 100.0 + READ + 3.0  # the reading ran out; the first speaker is 3 s into their turn
    first = s.order[0]
    s, _ = apply(s, first, {"type": "clue", "text": "zorpa"}, t)
    log.append({"t": t, "player": first, "action": {"type": "clue", "text": "zorpa"}})
    again = replay("intruso", opts, 9, players(5), log, started_at=100.0)
    assert state_bytes(again) == state_bytes(s)
