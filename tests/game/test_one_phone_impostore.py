"""Impostore on one phone passed around (002 "Un solo telefono", issue 11): option
`one_phone` of the impostor engine, every style. Clues are spoken as in every Impostore
game (guided: `done`; free: the table's `ready`); the vote is the table's one
`table_vote` after the countdown (a tie -> the runoff, tied again -> nobody out);
"Non conosco la parola" waits for the last card and is voted aloud in one
`table_word_vote` (docs/rules-impostore.md, "One phone")."""

from __future__ import annotations

import pytest

from game import GameError, default_options, result, validate_options
from tests.game.impostor_scenario import Play, start

ONE = {"one_phone": True}


@pytest.mark.parametrize("preset", ["classica", "caos", "esperti"])
def test_every_style_accepts_one_phone_off_by_default(preset):
    assert default_options(preset)["one_phone"] is False
    assert validate_options(preset, ONE, 6)["one_phone"] is True
    with pytest.raises(GameError) as info:
        validate_options(preset, {"one_phone": 1}, 6)
    assert info.value.code == "bad_options" and info.value.detail["field"] == "one_phone"


def test_one_tap_on_the_impostor_ends_the_first_vote_game_for_the_innocents():
    play = Play(start(options=ONE))
    play.to_vote()
    assert play.view("p0")["me"]["can"] == ["table_vote"]
    play.fail("p0", "not_a_candidate", type="table_vote", tally={"zz": 1})
    play.fail("p0", "too_many_votes", type="table_vote", tally={"p4": 6})
    play.act("p0", type="table_vote", tally={"p4": 1})
    assert play.s.phase == "guess" and play.s.acting == "p4"
    # The guess is typed on the phone by the impostor (a wrong one: the innocents win).
    play.act("p4", type="guess", word="cane")
    assert play.s.outcome == "innocents"
    res = result(play.s)
    assert res["ballots"][0]["tally"]["p4"] == 1
    # 002's points: the impostor scores nothing; votes are not known one by one.
    assert res["points"]["p4"] == 0


def test_a_tie_goes_to_the_runoff_and_a_second_tie_eliminates_nobody():
    play = Play(start(options=ONE))
    play.to_vote()
    play.act("p0", type="table_vote", tally={"p1": 2, "p4": 2})
    assert play.s.phase == "runoff" and play.s.candidates == ["p1", "p4"]
    play.fail("p0", "not_a_candidate", type="table_vote", tally={"p2": 1})
    ev = play.act("p0", type="table_vote", tally={"p1": 1, "p4": 1})
    assert {"type": "no_elimination", "why": "tie"} in ev
    assert play.s.outcome == "impostors"  # 002: a tie without elimination, at the first vote


def test_the_table_vote_needs_one_phone_play():
    play = Play(start())
    play.to_vote()
    assert "table_vote" not in play.view("p0")["me"]["can"]
    play.fail("p0", "not_allowed", type="table_vote", tally={"p4": 1})


def test_by_elimination_the_table_votes_until_a_side_wins():
    play = Play(start(n=6, roles={"p4": "impostore", "p5": "impostore"},
                      options={**ONE, "win_mode": "elimination"}))
    play.to_vote()
    play.act("p0", type="table_vote", tally={"p1": 3})  # an innocent out: new clues
    assert play.s.phase == "clues" and not play.s.player("p1").alive
    # An eliminated player does not vote, but any seat may record the table's vote.
    play.clues()
    play.act("p1", type="table_vote", tally={"p4": 3})
    play.act("p4", type="guess", word="tigre")
    play.clues()
    play.act("p0", type="table_vote", tally={"p5": 3})
    play.act("p5", type="guess", word="leone")
    assert play.s.outcome == "innocents"


def test_free_turns_show_who_starts_and_the_order_and_the_table_ends_them():
    play = Play(start(options={**ONE, "turns": "free"}))
    play.seen()
    pub = play.view(None)
    assert pub["order"] == play.s.order and pub["turn"] is None
    play.fail(pub["order"][0], "not_allowed", type="done")
    play.clues()
    assert play.s.phase == "vote"


def test_a_word_request_waits_for_the_last_card_then_the_table_votes_aloud():
    play = Play(start(options=ONE))
    left = play.s.requests_left
    play.act("p0", type="seen")
    play.act("p1", type="ask_word")
    assert play.s.phase == "card"  # nothing tells the table who asked, nor when
    play.act("p1", type="seen")
    play.act("p2", type="ask_word")  # a second request joins the first
    assert play.s.requests_left == left - 1
    for pid in ("p2", "p3", "p4"):
        play.act(pid, type="seen")
    assert play.s.phase == "word_vote"
    assert play.view("p3")["me"]["can"] == ["table_word_vote"]
    play.act("p3", type="table_word_vote", change=True)
    assert play.s.word == "cane" and play.s.phase == "card"
    assert play.s.last_word_vote == {"yes": 1, "no": 0, "changed": 1}
    # Everyone looks at the new card; then the clues.
    play.seen()


def test_a_kept_word_starts_the_clues_and_the_table_word_vote_needs_one_phone():
    play = Play(start(options=ONE))
    play.act("p0", type="ask_word")
    for pid in ("p0", "p1", "p2", "p3", "p4"):
        play.act(pid, type="seen")
    assert play.s.phase == "word_vote"
    play.act("p2", type="table_word_vote", change=False)
    assert play.s.phase == "clues" and play.s.word == "gatto"
    room = Play(start())
    room.act("p0", type="ask_word")
    assert room.s.phase == "word_vote"  # in a room the vote opens at once
    room.fail("p0", "not_allowed", type="table_word_vote", change=True)


def test_issue31_one_phone_innocents_score_the_impostor_the_table_voted_out():
    """Issue 31 §3 item 3: on one phone the innocents' point for an impostor voted out
    goes to every innocent (the table voted together), not to nobody."""
    play = Play(start(options=ONE))
    play.to_vote()
    play.act("p0", type="table_vote", tally={"p4": 1})
    play.act("p4", type="guess", word="cane")
    assert play.s.outcome == "innocents"
    pts = result(play.s)["points"]
    innocents = [pl.id for pl in play.s.players if pl.id != "p4" and pl.role != "complice"]
    assert all(pts[pid] == 1 for pid in innocents), pts
    assert pts["p4"] == 0
