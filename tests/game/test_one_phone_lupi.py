"""Lupi Mannari on one phone passed around (issue 11): option `one_phone` of the werewolf
engine, with the app as moderator only. The night's choices are made on the phone as in a
room (`peek`, `bite`); the day's two ballots are the table's one `table_vote` each: the
nomination (ghosts included) names two, the lynch picks between them, a tie drawn at
random as 004 says (docs/rules-lupi.md, "One phone")."""

from __future__ import annotations

import pytest

from game import GameError, default_options, new_game, result, validate_options
from tests.game.lupi_scenario import Play, players, start

ONE = {"one_phone": True}


def test_one_phone_is_off_by_default_and_needs_the_app_as_moderator():
    assert default_options("lupi")["one_phone"] is False
    assert validate_options("lupi", ONE, 8)["one_phone"] is True
    with pytest.raises(GameError) as info:
        validate_options("lupi", {"one_phone": True, "moderator": "p3"}, 9)
    assert info.value.code == "bad_options" and info.value.detail["field"] == "moderator"
    with pytest.raises(GameError) as info:
        new_game("lupi", {"one_phone": True, "moderator": "p3"}, 1, players(9), 0.0)
    assert info.value.code == "bad_options"


def test_the_table_nominates_two_then_lynches_one_in_a_tap_each():
    play = Play(start(options=ONE))
    play.night(victim="p7", peek="p0")
    play.until("nomination")
    # Ghosts name too (004): p7, devoured, may be the seat that records the table's tally.
    assert play.view("p7")["me"]["can"] == ["table_vote"]
    play.fail("p7", "not_a_candidate", type="table_vote", tally={"p7": 1})
    play.fail("p3", "too_many_votes", type="table_vote", tally={"p0": 9})
    ev = play.act("p7", type="table_vote", tally={"p0": 5, "p3": 2})
    assert {"type": "nominated", "players": ["p0", "p3"]} in ev
    while play.s.phase == "defence":
        play.act(play.s.defending(), type="ready")
    assert play.s.phase == "lynch"
    voters = len(play.s.lynch_voters())
    play.fail("p4", "too_many_votes", type="table_vote", tally={"p0": voters + 1})
    play.act("p4", type="table_vote", tally={"p0": voters - 1, "p3": 1})
    assert not play.s.player("p0").alive and play.s.phase == "night"
    assert result(play.s) is None


def test_a_tie_for_the_lynch_is_drawn_as_in_the_room():
    picks = set()
    for seed in range(1, 12):
        play = Play(start(options=ONE, seed=seed))
        play.night(victim="p7")
        play.until("nomination")
        play.act("p3", type="table_vote", tally={"p0": 3, "p4": 3})
        while play.s.phase == "defence":
            play.timeout()
        play.act("p3", type="table_vote", tally={"p0": 2, "p4": 2})
        picks.add(next(pl.id for pl in play.s.players if pl.id in ("p0", "p4") and not pl.alive))
    assert picks == {"p0", "p4"}


def test_a_whole_game_to_the_humans_win():
    play = Play(start(options=ONE))
    for wolf in ("p0", "p1"):
        play.night(victim="p7" if wolf == "p0" else "p6")
        play.until("nomination")
        play.act("p2", type="table_vote", tally={wolf: 4, "p3": 1})
        while play.s.phase == "defence":
            play.timeout()
        play.act("p2", type="table_vote", tally={wolf: 3})
    assert play.s.phase == "over" and play.s.outcome == "umani"


def test_the_table_vote_needs_one_phone_play():
    play = Play(start())
    play.night(victim="p7")
    play.until("nomination")
    assert play.view("p3")["me"]["can"] == ["vote"]
    play.fail("p3", "not_allowed", type="table_vote", tally={"p0": 1})
