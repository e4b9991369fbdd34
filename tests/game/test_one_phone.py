"""One phone passed around the table (002 "Un solo telefono", issue 11): the undercover
engine's `one_phone` option. Clues are said aloud (the phone only moves the turn on);
the table votes aloud and the phone records its tally in one `table_vote`, which the
engine closes exactly as a ballot of cast votes (docs/rules.md, "One phone")."""

from __future__ import annotations

import random

import pytest

from game import GameError, default_options, validate_options, view
from tests.game.scenario import Play, start

ONE = {"one_phone": True}


def spoken_round(play: Play) -> None:
    """Every living player says a clue aloud, in the drawn order."""
    for pid in list(play.s.order):
        play.act(pid, type="done")


def to_table_vote(play: Play) -> None:
    spoken_round(play)
    play.ready()
    assert play.s.phase == "vote"


def test_one_phone_is_off_by_default_and_a_boolean():
    assert default_options("intruso")["one_phone"] is False
    with pytest.raises(GameError) as info:
        validate_options("intruso", {"one_phone": "yes"}, 5)
    assert info.value.code == "bad_options" and info.value.detail["field"] == "one_phone"


def test_clue_said_aloud_moves_the_turn_on_and_is_kept_as_spoken():
    play = Play(start(options=ONE))
    first, second = play.s.order[0], play.s.order[1]
    assert "done" in view(play.s, first)["me"]["can"]
    play.fail(second, "not_your_turn", type="done")
    play.act(first, type="done")
    assert view(play.s, None)["turn"] == second
    assert view(play.s, None)["clues"][0] == {
        "round": 1, "player": first, "text": "", "skipped": False, "spoken": True}


def test_spoken_clue_needs_one_phone_play():
    play = Play(start())
    play.fail(play.s.order[0], "not_allowed", type="done")
    assert "done" not in view(play.s, play.s.order[0])["me"]["can"]


def test_one_tap_on_the_most_voted_eliminates_them():
    play = Play(start(options=ONE))
    to_table_vote(play)
    ev = play.act("p0", type="table_vote", tally={"p4": 1})
    assert {"type": "eliminated", "player": "p4", "role": "intruso", "cause": "vote"} in ev
    assert play.s.phase == "over" and play.s.outcome == "civili"


def test_a_tie_goes_to_the_revote_among_the_tied_then_to_the_preset_rule():
    play = Play(start(options=ONE))
    to_table_vote(play)
    play.act("p1", type="table_vote", tally={"p2": 2, "p3": 2, "p4": 1})
    assert play.s.phase == "revote" and play.s.candidates == ["p2", "p3"]
    play.fail("p1", "not_a_candidate", type="table_vote", tally={"p4": 1})
    play.act("p1", type="table_vote", tally={"p2": 1, "p3": 1})
    # 000 §5: tied again and no Giudice: nobody is eliminated; a new round starts.
    assert play.s.phase == "clues" and all(pl.alive for pl in play.s.players)
    assert {"type": "no_elimination", "why": "tie"} in play.events


def test_an_empty_tally_is_a_ballot_nobody_voted_in():
    play = Play(start(options=ONE))
    to_table_vote(play)
    ev = play.act("p0", type="table_vote", tally={})
    assert {"type": "no_elimination", "why": "no_votes"} in ev
    assert play.s.phase == "clues" and play.s.round == 2


def test_table_vote_refusals_change_nothing():
    play = Play(start(options=ONE))
    to_table_vote(play)
    play.fail("p0", "too_many_votes", type="table_vote", tally={"p1": 4, "p2": 2})
    play.fail("p0", "bad_action", type="table_vote", tally={"p1": -1})
    play.fail("p0", "bad_action", type="table_vote", tally={"p1": True})
    play.fail("p0", "bad_action", type="table_vote", tally=["p1"])
    play.fail("p0", "not_a_candidate", type="table_vote", tally={"nobody": 1})
    play.fail("zz", "unknown_player", type="table_vote", tally={"p1": 1})


def test_the_table_vote_needs_one_phone_play():
    play = Play(start())
    play.clues()
    play.ready()
    play.fail("p0", "not_allowed", type="table_vote", tally={"p4": 1})
    assert "table_vote" not in view(play.s, "p0")["me"]["can"]


def test_any_seat_speaks_for_the_table_an_eliminated_one_too():
    play = Play(start(n=7, roles={"p5": "intruso", "p6": "intruso"}, options=ONE))
    to_table_vote(play)
    play.act("p0", type="table_vote", tally={"p1": 3})
    assert not play.s.player("p1").alive and play.s.phase == "clues"
    to_table_vote(play)
    assert "table_vote" in view(play.s, "p1")["me"]["can"]
    play.act("p1", type="table_vote", tally={"p5": 2})
    assert not play.s.player("p5").alive


def test_the_giudice_still_breaks_the_tie_left_after_the_table_revote():
    play = Play(start(powers={"p0": "giudice"}, options=ONE))
    to_table_vote(play)
    play.act("p1", type="table_vote", tally={"p2": 1, "p4": 1})
    play.act("p1", type="table_vote", tally={"p2": 1, "p4": 1})
    assert play.s.phase == "judge"
    assert view(play.s, None)["acting"] is None  # the Giudice stays secret
    play.act("p0", type="judge", target="p4")
    assert play.s.outcome == "civili"


def test_powers_that_need_a_phone_per_player_are_left_out():
    with pytest.raises(GameError) as info:
        validate_options("intruso", {"one_phone": True, "powers": ["sabotatore"]}, 8)
    assert info.value.code == "bad_options" and info.value.detail["field"] == "powers"
    validate_options("intruso", {"one_phone": True, "powers": ["giudice", "cupido"]}, 8)
    from game.undercover.presets import power_cards

    for seed in range(60):
        opts = validate_options("intruso", {"one_phone": True}, 16)
        cards = power_cards(opts, 16, random.Random(seed))
        assert not {"sabotatore", "ubriacone"} & set(cards)


def test_issue31_one_phone_civili_score_the_infiltrators_the_table_voted_out():
    """Issue 31 §3 item 3: on one phone who pointed at whom is never known, so a Civile's
    point "per infiltrator voted" counted nothing and a Civili win left everyone at 0.
    The table votes together: each Civile scores 1 per infiltrator out at the end."""
    from game import result

    play = Play(start(options=ONE))
    to_table_vote(play)
    play.act("p0", type="table_vote", tally={"p4": 1})
    assert play.s.outcome == "civili"
    pts = result(play.s)["points"]
    civili = [pl.id for pl in play.s.players if pl.role == "civile"]
    assert civili and all(pts[pid] == 1 for pid in civili), pts
    assert pts["p4"] == 0, pts
