"""Choices made where RULES.md is silent (docs/rules.md), corner by corner."""

from __future__ import annotations

from game import new_game

from .scenario import Play, players, start


def test_choice_cupido_pair_alive_cowins_even_a_solo_win():
    """docs/rules.md: a living Cupido pair wins whatever the outcome, the Fantasma's too."""
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"}, powers={"p0": "cupido"}))
    g.act("p0", type="bind", target="p1")
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word=g.s.word_civili)
    assert g.s.outcome == "fantasma" and g.s.winners == ["p0", "p1", "p6"]


def test_choice_buffone_out_in_the_revote_of_the_first_vote_wins():
    """docs/rules.md: the very first vote includes its revote."""
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p2": "buffone"}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p0", "p5": "p0"})
    g.votes({"p0": "p2", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p2", "p5": "p1"})
    assert g.s.outcome == "buffone" and g.s.winners == ["p2"]


def test_choice_buffone_taken_by_cupido_at_the_first_vote_wins():
    """docs/rules.md: chained eliminations of the first vote count for the Buffone."""
    g = Play(start(n=7, roles={"p6": "intruso"}, powers={"p0": "cupido", "p3": "buffone"}))
    g.act("p0", type="bind", target="p3")
    g.eliminate("p0", "p1")
    assert [e.cause for e in g.s.eliminations] == ["vote", "cupid"]
    assert g.s.outcome == "buffone" and g.s.winners == ["p3"]


def test_choice_fantasma_taken_by_cupido_still_guesses():
    """docs/rules.md: every eliminated Fantasma guesses, chained or not."""
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"}, powers={"p0": "cupido"}))
    g.act("p0", type="bind", target="p6")
    g.eliminate("p0", "p1")
    assert not g.s.player("p6").alive and g.s.phase == "guess" and g.s.acting == "p6"
    g.act("p6", type="guess", word="nope")
    assert g.s.phase == "clues"


def test_choice_win_check_runs_before_cupido_partner_goes():
    """docs/rules.md: after each elimination the checks run before the chain goes on."""
    g = Play(start(n=5, roles={"p4": "intruso"}, powers={"p0": "cupido"}))
    g.act("p0", type="bind", target="p4")
    g.eliminate("p4", "p1")  # the Intruso goes: the Civili win at once
    assert g.s.outcome == "civili" and g.s.player("p0").alive


def test_choice_vendicatore_avenges_after_cupido_partner():
    g = Play(start(n=8, roles={"p7": "intruso"}, powers={"p0": "cupido", "p1": "vendicatore"}))
    g.act("p0", type="bind", target="p1")
    g.eliminate("p1", "p2")
    assert [e.player for e in g.s.eliminations] == ["p1", "p0"] and g.s.phase == "avenge"
    g.act("p1", type="avenge", target="p2")
    assert [e.cause for e in g.s.eliminations] == ["vote", "cupid", "avenger"]


def test_choice_giudice_decides_in_infiltre_too_and_silence_falls_back_to_the_lot():
    g = Play(start("infiltre", n=6, roles={"p5": "intruso"}, powers={"p3": "giudice"}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p0", "p5": "p0"})
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p1", "p5": "p2"})
    assert g.s.phase == "judge"
    g.timeout()
    assert sum(not pl.alive for pl in g.s.players) == 1


def test_choice_revealed_role_follows_the_swapped_word():
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p0": "sabotatore"}))
    g.clues()
    g.act("p0", type="swap", target="p5")
    g.ready()
    g.everyone_votes("p5", "p1")
    assert g.view("p1")["eliminations"][0]["role"] == "civile"


def test_choice_intrusi_zero_with_auto_fantasmi_deals_one_fantasma():
    s = new_game("intruso", {"intrusi": 0, "fantasmi": "auto", "powers": []}, 1, players(3), 0)
    assert [pl.role for pl in s.players].count("fantasma") == 1


def test_choice_powers_phase_only_when_a_start_choice_exists():
    assert start(powers={"p1": "spia", "p2": "muto"}).phase == "clues"
    assert start(powers={"p1": "ubriacone"}).phase == "powers"


def test_choice_skipped_turn_does_not_count_for_the_pappagallo():
    for seed in range(60):
        g = Play(start(powers={"p1": "pappagallo"}, seed=seed))
        if g.s.order.index("p1") == 2:
            break
    first, second = g.s.order[:2]
    g.act(first, type="clue", text="quamvex")
    g.timeout()  # second skips
    g.act("p1", type="clue", text="quamvex plonk")  # repeats the last clue actually given
    assert g.s.clues[1].skipped and g.s.clues[1].player == second


def test_choice_host_count_with_the_other_on_auto_trims_the_auto_part():
    """docs/rules.md (issue 8): 'auto' for one count and a number for the other: the auto
    part is the table's, trimmed so the Civili still outnumber the infiltrators."""
    from game.undercover.presets import PRESETS, team_counts, validate_options

    opts = validate_options("intruso", {"intrusi": 2, "fantasmi": "auto"}, 5)
    assert team_counts(PRESETS["intruso"], opts, 5) == (2, 0)   # the table says 1 Fantasma
    s = new_game("intruso", {"intrusi": 2, "fantasmi": "auto", "powers": []}, 1, players(5), 0)
    roles = [pl.role for pl in s.players]
    assert roles.count("intruso") == 2 and roles.count("civile") == 3
    # With room left, the auto part is the table's: 1 Intruso set, 1 Fantasma from the table.
    assert team_counts(PRESETS["intruso"], validate_options(
        "intruso", {"intrusi": 1, "fantasmi": "auto"}, 5), 5) == (1, 1)
    # A host count that alone does not fit is still refused.
    import pytest

    from game import GameError
    with pytest.raises(GameError) as err:
        validate_options("intruso", {"intrusi": 3, "fantasmi": "auto"}, 5)
    assert err.value.code == "too_many_infiltrators"


def _revote_nobody_votes(preset, powers=None):
    g = Play(start(preset, n=6, roles={"p5": "intruso"}, powers=powers or {}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p1", "p5": "p2"})
    assert g.s.phase == "revote" and g.s.candidates == ["p1", "p2"]
    g.timeout()   # nobody votes in the revote
    return g


def test_choice_revote_in_which_nobody_votes_leaves_the_tie_standing():
    """RULES.md (issue 8): a revote in which nobody votes leaves the tie standing: the
    Giudice decides; Infiltré draws; Intruso eliminates nobody."""
    g = _revote_nobody_votes("intruso", {"p3": "giudice"})
    assert g.s.phase == "judge" and g.s.candidates == ["p1", "p2"] and g.s.acting == "p3"
    g.act("p3", type="judge", target="p2")
    assert not g.s.player("p2").alive
    g = _revote_nobody_votes("infiltre")
    out = [pl.id for pl in g.s.players if not pl.alive]
    assert len(out) == 1 and out[0] in ("p1", "p2")
    g = _revote_nobody_votes("intruso")
    assert all(pl.alive for pl in g.s.players) and g.s.phase == "clues"
    assert {"type": "no_elimination", "why": "tie"} in g.events
