"""The undercover games' points table (docs/rules.md "Points"), in the spirit of 002's:
who finds an infiltrator scores, not who follows the majority."""

from __future__ import annotations

from game import points

from .scenario import Play, start


def test_civili_score_one_per_infiltrator_they_voted_even_when_they_lose():
    """Civili: 1 per infiltrator voted at least once in a closed ballot, whoever wins."""
    g = Play(start("intruso", n=5, roles={"p3": "intruso", "p4": "intruso"}, options={"intrusi": 2}))
    g.to_vote()
    g.votes({"p0": "p3", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p1"})
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p2"})  # the revote
    assert not g.s.player("p2").alive
    g.eliminate("p1", "p0")
    assert g.s.outcome == "infiltrati"
    pts = points(g.s)
    assert pts["p0"] == 1 and pts["p1"] == 0 and pts["p2"] == 0


def test_infiltrators_who_win_score_three_or_one():
    """Infiltrators whose camp wins: 3 never eliminated, 1 eliminated (teammates carried)."""
    g = Play(start("sosia", n=7, roles={"p5": "intruso", "p6": "intruso"},
                   options={"intrusi": 2}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word="zorblat")
    for out, by in (("p0", "p1"), ("p1", "p2"), ("p2", "p3"), ("p3", "p4")):
        if g.s.phase != "over":
            g.eliminate(out, by)
    assert g.s.outcome == "infiltrati"
    assert points(g.s)["p5"] == 3 and points(g.s)["p6"] == 1


def test_an_eliminated_impostor_who_guesses_scores_two():
    """Sosia (002 §5): eliminated but guessed the word: 2; a teammate never out: 3."""
    g = Play(start("sosia", n=7, roles={"p5": "intruso", "p6": "intruso"},
                   options={"intrusi": 2}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word=g.s.word_civili)
    assert points(g.s)["p6"] == 2 and points(g.s)["p5"] == 3
    assert all(points(g.s)[p] == 1 for p in ("p0", "p1", "p2", "p3", "p4"))


def test_the_fantasma_who_guesses_alone_scores_three():
    """Intruso: the Fantasma's right guess wins alone: 3 (the Civili keep their finds)."""
    g = Play(start("intruso", n=5, roles={"p4": "fantasma"}, options={"fantasmi": 1,
                                                                      "intrusi": 0}))
    g.eliminate("p4", "p0")
    g.act("p4", type="guess", word=g.s.word_civili)
    assert g.s.outcome == "fantasma"
    assert points(g.s) == {"p0": 1, "p1": 1, "p2": 1, "p3": 1, "p4": 3}


def test_the_buffone_who_wins_alone_scores_three_and_nobody_else_scores():
    """The Buffone out at the very first vote: 3 and nobody else scores (like 002's
    Pagliaccio)."""
    g = Play(start("intruso", n=6, roles={"p5": "intruso"}, powers={"p2": "buffone"}))
    g.eliminate("p2", "p0")
    assert g.s.outcome == "buffone"
    assert points(g.s) == {f"p{i}": (3 if i == 2 else 0) for i in range(6)}


def test_a_cupido_pair_member_who_wins_only_through_the_pair_scores_two():
    """A Cupido pair alive at the end wins as well: a member not on the winning side: 2."""
    g = Play(start("intruso", n=6, roles={"p5": "intruso"}, powers={"p0": "cupido"}))
    g.act("p0", type="bind", target="p5")
    assert g.s.phase == "clues"
    g.eliminate("p1", "p0")
    g.eliminate("p2", "p0")
    g.eliminate("p3", "p0")
    g.eliminate("p4", "p0")  # one Civile left (000 §6): the infiltrators win
    assert g.s.outcome == "infiltrati" and "p0" in g.s.winners
    assert points(g.s)["p0"] == 2 and points(g.s)["p5"] == 3
