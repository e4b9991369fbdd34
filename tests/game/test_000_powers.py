"""Intruso's ten power cards (rules/000 §7) and how they are dealt (RULES.md)."""

from __future__ import annotations

import json

import pytest

from game import audio_policy, new_game, validate_options, view
from game.undercover.presets import POWER_COUNT
from game.undercover.state import POWERS

from .scenario import Play, players, start

# ---------------------------------------------------------------- dealing


def test_000_s7_powers_dealt_at_random_at_most_one_each():
    """§7: alcuni giocatori ricevono a caso una carta potere (at most one each: RULES.md)."""
    holders_seen = set()
    for seed in range(30):
        s = new_game("intruso", {"powers": list(POWERS)}, seed, players(12), 0)
        powers = [pl.power for pl in s.players if pl.power]
        assert sorted(powers) == sorted(list(POWERS) + ["gemelli"])  # Gemelli: two players
        holders_seen.add(next(pl.id for pl in s.players if pl.power == "giudice"))
    assert len(holders_seen) > 5


def test_000_s7_no_power_that_makes_no_sense_for_its_holder():
    """RULES.md: no Sabotatore for a Fantasma; Gemelli are two Civili."""
    for seed in range(60):
        opts = {"powers": ["gemelli", "sabotatore"], "intrusi": 1, "fantasmi": 2}
        s = new_game("intruso", opts, seed, players(7), 0)
        for pl in s.players:
            if pl.power == "sabotatore":
                assert pl.word is not None
            if pl.power == "gemelli":
                assert pl.role == "civile"


@pytest.mark.parametrize("n", range(3, 17))
def test_000_s7_auto_power_count_by_players(n):
    """RULES.md: with "auto" the number of power cards follows the table in docs/rules.md."""
    s = new_game("intruso", None, n, players(n), 0)
    cards = {pl.power for pl in s.players if pl.power}
    assert len(cards) <= POWER_COUNT[n]
    assert len(cards) >= POWER_COUNT[n] - 1  # the Gemelli may be left out at small tables


def test_000_s7_a_power_says_nothing_about_the_team():
    """§7: Un potere non dice nulla della squadra: un Giudice può benissimo essere l'intruso."""
    teams = set()
    for seed in range(40):
        s = new_game("intruso", {"powers": ["giudice"]}, seed, players(5), 0)
        teams.add(next(pl.role for pl in s.players if pl.power == "giudice"))
    assert {"civile", "intruso"} <= teams


def test_000_s7_host_picks_the_powers():
    """§2: L'host può scegliere ... le carte potere."""
    s = new_game("intruso", {"powers": ["muto", "spia"]}, 4, players(6), 0)
    assert sorted(pl.power for pl in s.players if pl.power) == ["muto", "spia"]
    with pytest.raises(Exception) as info:
        validate_options("intruso", {"powers": list(POWERS)}, 5)
    assert info.value.code == "too_many_powers"


def test_000_s7_all_powers_are_free_to_use():
    """RULES.md: all powers are free to use; there is no unlocking."""
    assert validate_options("intruso", {"powers": list(POWERS)}, 16)["powers"] == list(POWERS)


# ---------------------------------------------------------------- 1 Muto


def test_000_s7_muto_clue_only_with_emoji():
    """§7.1 Muto: Dai il tuo indizio solo con le emoji."""
    g = Play(start(powers={"p2": "muto"}))
    while g.s.order[g.s.turn_index] != "p2":
        pid = g.s.order[g.s.turn_index]
        g.act(pid, type="clue", text=g.clue_for(pid))
    g.fail("p2", "clue_not_emoji", type="clue", text="gattone")
    g.act("p2", type="clue", text="🐱🌊")
    assert g.s.clues[-1].text.startswith("🐱")


def test_000_s7_muto_mic_off_during_clues_only():
    """§7.1 Muto: il tuo microfono è spento durante gli indizi."""
    g = Play(start(powers={"p2": "muto"}))
    pol = audio_policy(g.s)
    assert "p2" not in pol.public and pol.muted["p2"] == "muto" and "p2" not in pol.mouths
    assert g.view("p2")["me"]["muted"] == "muto"
    g.clues()
    assert "p2" in audio_policy(g.s).public  # debate: the Muto talks


# ---------------------------------------------------------------- 2 Pappagallo


def _until(g: Play, pid: str) -> None:
    while g.s.order[g.s.turn_index] != pid:
        cur = g.s.order[g.s.turn_index]
        g.act(cur, type="clue", text=f"zorp{cur} vex")


def test_000_s7_pappagallo_must_repeat_a_word_of_the_previous_clue():
    """§7.2 Pappagallo: Il tuo indizio deve riprendere una parola dell'indizio precedente."""
    for seed in range(20):
        g = Play(start(powers={"p1": "pappagallo"}, seed=seed))
        if g.s.order[0] != "p1":
            break
    _until(g, "p1")
    g.fail("p1", "clue_must_repeat", type="clue", text="blikquam")
    prev = g.s.clues[-1].text.split()[0]
    g.act("p1", type="clue", text=f"{prev} plonk")


def test_000_s7_pappagallo_first_repeats_the_previous_round_or_is_free():
    """RULES.md: first in a round, the Pappagallo repeats the last clue of the round before;
    free if there is none."""
    for seed in range(40):
        g = Play(start(powers={"p1": "pappagallo"}, seed=seed))
        if g.s.order[0] == "p1":
            break
    g.act("p1", type="clue", text="quamfep")  # first clue of the game: free
    for _ in range(40):
        for pid in g.s.order[g.s.turn_index :]:
            g.act(pid, type="clue", text=g.clue_for(pid))
        g.ready()
        g.timeout()
        if g.s.order[0] == "p1":
            break
    assert g.s.order[0] == "p1"
    last = g.s.clues[-1].text.split()[0]
    g.fail("p1", "clue_must_repeat", type="clue", text="wixgad")
    g.act("p1", type="clue", text=last)


# ---------------------------------------------------------------- 3 Buffone: test_000_intruso §6


# ---------------------------------------------------------------- 4 Gemelli


def test_000_s7_gemelli_are_two_civili_shown_each_other():
    """§7.4 Gemelli: Due Civili che si conoscono."""
    for seed in range(10):
        s = new_game("intruso", {"powers": ["gemelli"]}, seed, players(6), 0)
        twins = [pl for pl in s.players if pl.power == "gemelli"]
        assert len(twins) == 2 and {pl.role for pl in twins} == {"civile"}
        a, b = twins
        assert view(s, a.id)["me"]["known"] == [{"player": b.id, "fact": "twin"}]
        assert view(s, b.id)["me"]["known"] == [{"player": a.id, "fact": "twin"}]
        other = next(pl for pl in s.players if pl.power is None)
        assert view(s, other.id)["me"]["known"] == []


# ---------------------------------------------------------------- 5 Vendicatore


def test_000_s7_vendicatore_takes_one_player_along():
    """§7.5 Vendicatore: Se vieni eliminato, puoi portare con te un giocatore a tua scelta."""
    g = Play(start(n=7, roles={"p6": "intruso"}, powers={"p1": "vendicatore"}))
    g.eliminate("p1", "p0")
    assert g.s.phase == "avenge" and g.view("p1")["me"]["can"] == ["avenge"]
    assert g.view("p0")["acting"] == "p1"
    g.fail("p1", "not_a_candidate", type="avenge", target="p1")
    g.fail("p0", "wrong_phase", type="vote", target="p2")
    g.act("p1", type="avenge", target="p3")
    assert not g.s.player("p3").alive
    assert g.s.eliminations[-1].cause == "avenger" and g.s.phase == "clues"


def test_000_s7_vendicatore_may_take_nobody():
    """§7.5: "puoi" — at the deadline nobody is taken."""
    g = Play(start(n=7, roles={"p6": "intruso"}, powers={"p1": "vendicatore"}))
    g.eliminate("p1", "p0")
    g.timeout()
    assert g.s.phase == "clues" and len(g.s.living()) == 6


def test_000_s7_vendicatore_taking_the_last_infiltrator_wins_for_the_civili():
    """RULES.md: win checks run after chained eliminations too."""
    g = Play(start(n=5, roles={"p4": "intruso"}, powers={"p1": "vendicatore"}))
    g.eliminate("p1", "p0")
    g.act("p1", type="avenge", target="p4")
    assert g.s.outcome == "civili"


# ---------------------------------------------------------------- 6 Giudice: test_000_intruso §5


# ---------------------------------------------------------------- 7 Spia


def test_000_s7_spia_learns_one_player_with_the_civili_word():
    """§7.7 Spia: All'inizio scopri il nome di un giocatore che ha la parola dei Civili."""
    for seed in range(20):
        s = start(n=6, roles={"p4": "intruso", "p5": "fantasma"}, powers={"p4": "spia"}, seed=seed)
        known = view(s, "p4")["me"]["known"]
        assert len(known) == 1 and known[0]["fact"] == "civili_word"
        assert s.player(known[0]["player"]).word == s.word_civili and known[0]["player"] != "p4"


# ---------------------------------------------------------------- 8 Cupido


def test_000_s7_cupido_binds_one_player_who_is_not_told():
    """§7.8 Cupido: Leghi un giocatore al tuo cuore, senza che lo sappia."""
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p0": "cupido"}))
    assert g.s.phase == "powers" and g.view("p0")["me"]["can"] == ["bind"]
    g.fail("p0", "not_allowed", type="bind", target="p0")
    g.fail("p1", "not_allowed", type="bind", target="p2")
    g.act("p0", type="bind", target="p3")
    assert g.view("p0")["me"]["known"] == [{"player": "p3", "fact": "bound_by_me"}]
    assert g.view("p3")["me"]["known"] == []
    assert "cupido" not in json.dumps(g.view("p3")) and g.s.phase == "clues"


def test_000_s7_cupido_partner_goes_too():
    """§7.8: Se uno di voi viene eliminato, anche l'altro."""
    g = Play(start(n=7, roles={"p6": "intruso"}, powers={"p0": "cupido"}))
    g.act("p0", type="bind", target="p3")
    g.eliminate("p3", "p1")
    assert not g.s.player("p0").alive
    assert [(e.player, e.cause) for e in g.s.eliminations] == [("p3", "vote"), ("p0", "cupid")]


def test_000_s7_cupido_timeout_binds_at_random():
    """RULES.md brief: a start choice not made in time is drawn at random."""
    bound = set()
    for seed in range(12):
        g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p0": "cupido"}, seed=seed))
        g.timeout()
        assert g.s.phase == "clues" and g.s.cupid[0] == "p0"
        bound.add(g.s.cupid[1])
    assert len(bound) > 2 and "p0" not in bound


# ---------------------------------------------------------------- 9 Ubriacone


def test_000_s7_ubriacone_makes_two_players_drunk_for_the_whole_game():
    """§7.9 Ubriacone: All'inizio fai ubriacare due giocatori: per tutta la partita."""
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p0": "ubriacone"}))
    assert audio_policy(g.s).drunk == frozenset()
    g.fail("p0", "bad_action", type="intoxicate", targets=["p1", "p1"])
    g.fail("p0", "not_allowed", type="intoxicate", targets=["p0", "p1"])
    g.act("p0", type="intoxicate", targets=["p4", "p2"])
    assert audio_policy(g.s).drunk == {"p2", "p4"}
    assert g.view("p2")["me"]["drunk"] is True
    facts = g.view("p0")["me"]["known"]
    assert facts == [{"player": "p2", "fact": "drunk_by_me"}, {"player": "p4", "fact": "drunk_by_me"}]
    g.clues()
    assert audio_policy(g.s).drunk == {"p2", "p4"}  # still drunk in the debate


def test_000_s7_ubriacone_timeout_picks_two_others():
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p0": "ubriacone"}))
    g.timeout()
    assert len(g.s.drunk) == 2 and "p0" not in g.s.drunk


# ---------------------------------------------------------------- 10 Sabotatore


def test_000_s7_sabotatore_swaps_words_once_and_teams_follow():
    """§7.10 Sabotatore: Una volta per partita, durante un dibattito, scambi la tua parola."""
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p0": "sabotatore"}))
    g.clues()
    assert "swap" in g.view("p0")["me"]["can"]
    g.fail("p0", "not_allowed", type="swap", target="p0")
    g.fail("p1", "not_allowed", type="swap", target="p5")
    g.act("p0", type="swap", target="p5")
    assert g.view("p0")["me"]["word"] == g.s.word_intrusi
    assert g.view("p5")["me"]["word"] == g.s.word_civili
    assert g.view("p5")["me"]["known"] == [{"player": None, "fact": "word_swapped"}]
    assert (g.s.player("p0").role, g.s.player("p5").role) == ("intruso", "civile")
    g.fail("p0", "already_used", type="swap", target="p1")
    g.ready()
    g.everyone_votes("p0", "p1")  # the saboteur is now the Intruso: Civili win
    assert g.s.outcome == "civili" and "p5" in g.s.winners and "p0" not in g.s.winners


def test_000_s7_sabotatore_only_during_a_debate():
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"}, powers={"p0": "sabotatore"}))
    g.fail("p0", "wrong_phase", type="swap", target="p5")
    g.clues()
    g.act("p0", type="swap", target="p5")


def test_choice_sabotatore_aimed_at_the_fantasma_uses_the_card_and_reveals_nothing():
    """Choice (docs/rules.md, issue 8): the swap needs a worded player, but choosing the
    wordless Fantasma is not refused (a refusal would name him): the card is used, nothing
    changes, and the Sabotatore's screen is the one of a swap of two equal words."""
    fantasma = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"},
                          powers={"p0": "sabotatore"}))
    twin = Play(start(n=7, roles={"p5": "intruso", "p4": "fantasma"},
                      powers={"p0": "sabotatore"}))  # p6 is a Civile with p0's word
    for g in (fantasma, twin):
        g.clues()
    assert fantasma.view("p0") == twin.view("p0")
    for g in (fantasma, twin):
        g.act("p0", type="swap", target="p6")
    assert fantasma.view("p0") == twin.view("p0")
    assert fantasma.view("p0")["me"]["word"] == fantasma.s.word_civili
    assert fantasma.s.player("p6").word is None and fantasma.s.player("p6").role == "fantasma"
    assert fantasma.view("p6")["me"]["known"] == [{"player": None, "fact": "word_swapped"}]
    fantasma.fail("p0", "already_used", type="swap", target="p5")


def test_000_s7_sabotatore_needs_a_living_target():
    g = Play(start(n=7, roles={"p6": "intruso"}, powers={"p0": "sabotatore"}))
    g.eliminate("p3", "p1")
    g.clues()
    g.fail("p0", "dead_player", type="swap", target="p3")
