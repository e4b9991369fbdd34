"""Infiltré (rules/001) and Sosia (rules/002, "Sosia"): presets of the undercover engine."""

from __future__ import annotations

import pytest

from game import (
    PRESETS,
    GameError,
    catalog,
    default_options,
    new_game,
    next_deadline,
    tick,
    validate_options,
    view,
)

from .scenario import Play, players, start

# ---------------------------------------------------------------- 001 Infiltré


def test_001_is_a_french_preset_of_the_undercover_engine():
    """RULES.md: Infiltré is a preset of the same engine; French by default."""
    assert PRESETS["infiltre"].engine == "undercover"
    assert default_options("infiltre")["lang"] == "fr"
    s = new_game("infiltre", None, 1, players(5), 0)
    assert view(s, "p0")["lang"] == "fr" and s.word_civili


def test_001_civils_share_a_word_infiltres_a_close_one_amnesique_none():
    """001: Les Civils reçoivent tous le même mot. Les Infiltrés reçoivent un mot proche ...
    L'Amnésique ne reçoit aucun mot."""
    s = new_game("infiltre", {"intrusi": 2, "fantasmi": 1}, 3, players(8), 0)
    words = {pl.role: set() for pl in s.players}
    for pl in s.players:
        words[pl.role].add(pl.word)
    assert words["civile"] == {s.word_civili} and words["intruso"] == {s.word_intrusi}
    assert words["fantasma"] == {None}


def test_001_infiltres_do_not_know_they_are_infiltres():
    """001: ... et ne savent pas qu'ils sont infiltrés."""
    s = start("infiltre", n=5, roles={"p4": "intruso"})
    assert view(s, "p4")["me"]["role"] is None


def test_001_amnesique_only_if_the_host_added_it():
    """001: L'Amnésique, si l'hôte l'a ajouté."""
    for seed in range(5):
        s = new_game("infiltre", None, seed, players(9), 0)
        assert all(pl.role != "fantasma" for pl in s.players)
    s = new_game("infiltre", {"fantasmi": 1}, 1, players(9), 0)
    assert sum(pl.role == "fantasma" for pl in s.players) == 1


def test_001_imposters_always_fewer_than_civils():
    """001: Au départ, les imposteurs sont toujours moins nombreux que les Civils."""
    for n in range(3, 17):
        s = new_game("infiltre", {"intrusi": 4, "fantasmi": 1}, n, players(n), 0)
        civ = sum(pl.role == "civile" for pl in s.players)
        assert civ > n - civ


def test_001_too_many_infiltres_are_removed_until_playable():
    """001: si la table est trop petite pour ce nombre, le jeu en retire jusqu'à ce que la
    partie soit jouable."""
    assert validate_options("infiltre", {"intrusi": 4}, 5)["intrusi"] == 4  # the host's wish kept
    s = new_game("infiltre", {"intrusi": 4}, 1, players(5), 0)
    assert sum(pl.role == "intruso" for pl in s.players) == 2


def test_001_amnesique_never_removed_takes_the_infiltre_place_at_small_tables():
    """001: L'Amnésique, lui, n'est jamais retiré : à petit effectif, il prend la place de
    l'Infiltré."""
    for n in (3, 4):
        s = new_game("infiltre", {"intrusi": 1, "fantasmi": 1}, 2, players(n), 0)
        roles = [pl.role for pl in s.players]
        assert roles.count("fantasma") == 1 and roles.count("intruso") == 0


def test_001_every_player_still_in_play_gives_a_clue_not_their_word():
    """001: À tour de rôle, chaque joueur encore en lice donne un indice ... Il est interdit
    de dire son propre mot."""
    g = Play(start("infiltre", n=5))
    first = g.s.order[0]
    g.fail(first, "clue_uses_secret_word", type="clue", text=g.s.player(first).word)
    g.clues()
    g.ready()
    g.everyone_votes("p0", "p1")
    assert sorted(g.s.order) == ["p1", "p2", "p3", "p4"]


def test_001_host_sets_the_clue_timer():
    """001: Chaque tour de parole a une durée limitée, réglée par l'hôte avant la partie."""
    s = start("infiltre", options={"timers": {"clue": 20}}, now=100.0)
    assert s.phase == "clues" and s.deadline == 120.0
    with pytest.raises(GameError) as info:
        validate_options("infiltre", {"timers": {"clue": 0}}, 5)
    assert info.value.code == "bad_options"


def test_001_most_designated_is_eliminated_role_revealed_not_word():
    """001: Le joueur le plus désigné est éliminé, et son rôle est révélé — pas son mot."""
    g = Play(start("infiltre", n=5))
    g.eliminate("p4", "p0")
    assert g.view("p0")["eliminations"][0]["role"] == "intruso"
    assert g.s.outcome == "civili"  # 001: les Civils gagnent quand tous les imposteurs ...


def test_001_tie_revote_then_the_lot_decides():
    """001: En cas d'égalité, on revote entre les ex æquo ; si l'égalité persiste, le sort
    tranche."""
    out = set()
    for seed in range(12):
        g = Play(start("infiltre", n=6, roles={"p5": "intruso"}, seed=seed))
        g.to_vote()
        g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p0", "p5": "p0"})
        assert g.s.phase == "revote"
        g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p1", "p5": "p2"})
        dead = [pl.id for pl in g.s.players if not pl.alive]
        assert len(dead) == 1 and dead[0] in ("p1", "p2")
        out.add(dead[0])
    assert out == {"p1", "p2"}


def test_001_amnesique_guess_makes_the_whole_camp_win():
    """001: L'Amnésique éliminé ... tente de deviner le mot des Civils. S'il le trouve, son
    camp gagne aussitôt."""
    g = Play(start("infiltre", n=7, roles={"p5": "intruso", "p6": "fantasma"}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word=g.s.word_civili)
    assert g.s.outcome == "fantasma" and g.s.winners == ["p5", "p6"]


def test_001_imposters_win_at_parity_with_civils_still_in_play():
    """001: Les imposteurs gagnent dès qu'ils sont aussi nombreux que les Civils encore en
    lice."""
    g = Play(start("infiltre", n=7, roles={"p5": "intruso", "p6": "intruso"}))
    g.eliminate("p0", "p1")
    g.eliminate("p1", "p2")
    assert g.s.phase == "clues"  # 3 Civils vs 2
    g.eliminate("p2", "p3")  # 2 vs 2
    assert g.s.outcome == "infiltrati" and g.s.winners == ["p5", "p6"]


def test_001_then_a_new_round_with_the_remaining_players():
    """001: Puis un nouveau tour d'indices commence avec les joueurs restants."""
    g = Play(start("infiltre", n=7, roles={"p6": "intruso"}))
    g.eliminate("p2", "p0")
    assert g.s.phase == "clues" and g.s.round == 2 and "p2" not in g.s.order


# ---------------------------------------------------------------- Sosia (002)


def test_sosia_no_fantasma_and_no_powers_by_default():
    """002 Sosia: innocenti e impostori con una parola simile; no Fantasma (RULES.md)."""
    assert default_options("sosia")["powers"] == []
    with pytest.raises(GameError) as info:
        validate_options("sosia", {"fantasmi": 1}, 6)
    assert info.value.code == "bad_options"
    for n in range(3, 17):
        s = new_game("sosia", None, n, players(n), 0)
        assert all(pl.role != "fantasma" and pl.power is None for pl in s.players)
        assert any(pl.role == "intruso" for pl in s.players)


def test_sosia_everyone_gets_the_innocent_card():
    """002 Sosia: Tutti ricevono la carta da innocente."""
    s = start("sosia", n=5)
    assert all(view(s, pl.id)["me"]["role"] is None for pl in s.players)
    assert view(s, "p4")["me"]["word"] == s.word_intrusi


def test_sosia_played_by_elimination():
    """002 Sosia: Lo stile Sosia si gioca a eliminazione."""
    # A guess timer: Sosia has none by default (002 "Timer: nessuno di base").
    g = Play(start("sosia", n=9, roles={"p7": "intruso", "p8": "intruso"},
                   options={"timers": {"guess": 45}}))
    g.eliminate("p7", "p0")
    g.act("p7", type="guess", word="zorblat")
    assert g.s.phase == "clues" and g.s.round == 2
    g.eliminate("p8", "p0")
    g.timeout()  # no guess given: a wrong one
    assert g.s.outcome == "civili"


def test_sosia_impostors_win_when_as_many_as_the_others():
    """002 A eliminazione: gli impostori vincono quando in gioco sono tanti quanti gli altri."""
    g = Play(start("sosia", n=5, roles={"p4": "intruso"}))
    g.eliminate("p0", "p1")
    g.eliminate("p1", "p2")
    assert g.s.phase == "clues"
    g.eliminate("p2", "p3")
    assert g.s.outcome == "infiltrati"


def test_sosia_tie_after_runoff_nobody_is_eliminated():
    """002: se resta pari, nessuno è eliminato."""
    g = Play(start("sosia", n=6, roles={"p5": "intruso"}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p0", "p5": "p0"})
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p1", "p5": "p2"})
    assert all(pl.alive for pl in g.s.players) and g.s.phase == "clues"


def test_sosia_both_words_side_by_side_at_the_end():
    """002 Sosia: alla fine si vedono le due parole affiancate."""
    g = Play(start("sosia", n=5))
    g.eliminate("p4", "p0")
    g.act("p4", type="guess", word="zorblat")
    r = g.view("p0")["result"]
    assert r["words"] == {"civili": g.s.word_civili, "intrusi": g.s.word_intrusi}


def test_sosia_eliminated_impostor_has_one_guess_right_wins_for_the_impostors():
    """RULES.md: In every style, Sosia included, an eliminated impostor has the one guess
    of 002 §5 (in Sosia the revealed role tells them they were one). 002 §5: Se ci riesce,
    vincono gli impostori."""
    g = Play(start("sosia", n=7, roles={"p5": "intruso", "p6": "intruso"}))
    g.eliminate("p6", "p0")
    assert g.s.phase == "guess" and g.view("p6")["me"]["can"] == ["guess"]
    assert g.view("p0")["eliminations"][-1]["role"] == "intruso"  # he learns he was one
    g.fail("p0", "not_allowed", type="guess", word=g.s.word_civili)
    g.act("p6", type="guess", word=g.s.word_civili.upper())  # case does not count
    assert g.s.outcome == "infiltrati" and set(g.s.winners) == {"p5", "p6"}


def test_sosia_the_guess_of_his_own_word_does_not_count():
    """002 §5 in Sosia: the word to guess is the innocents' one, not the impostor's own."""
    g = Play(start("sosia", n=5))
    g.eliminate("p4", "p0")
    g.act("p4", type="guess", word=g.s.word_intrusi)
    assert g.s.outcome == "civili"


def test_sosia_impostor_count_fixed_or_random_up_to_about_one_every_two():
    """RULES.md: the impostor count of 002 (fixed, or random up to about one every two
    players) applies to Sosia too."""
    assert default_options("sosia")["intrusi"] == 1
    assert validate_options("sosia", {"intrusi": 3}, 7)["intrusi"] == 3
    with pytest.raises(GameError) as info:
        validate_options("sosia", {"intrusi": 4}, 7)
    assert info.value.code == "too_many_infiltrators"
    for bad in ("auto", 0, 8, True):
        with pytest.raises(GameError) as info:
            validate_options("sosia", {"intrusi": bad}, 0)
        assert info.value.code == "bad_options" and info.value.detail["field"] == "intrusi"
    for n in (3, 4, 8, 16):
        counts = {sum(pl.role == "intruso" for pl in
                      new_game("sosia", {"intrusi": "random"}, seed, players(n), 0).players)
                  for seed in range(60)}
        assert counts == set(range(1, (n - 1) // 2 + 1)), (n, counts)


def test_sosia_002_timer_none_by_default_every_phase_waits_for_the_players():
    """002 Varianti: Timer: nessuno di base. Sosia is one of 002's styles (issue 29, item
    13): it starts with no timer, every phase waits for the players; the host may set
    any timer (or clear it again). Intruso and Infiltré keep their timers (000, 001)."""
    timers = default_options("sosia")["timers"]
    assert set(timers) == set(default_options("intruso")["timers"])
    assert all(seconds is None for seconds in timers.values()), timers
    g = Play(start("sosia", n=5, roles={"p4": "intruso"}))
    for step in (g.clues, g.ready):
        assert g.s.deadline is None and next_deadline(g.s) is None
        phase, turn = g.s.phase, g.s.turn_index
        g.s, events = tick(g.s, g.t + 10_000)
        assert (g.s.phase, g.s.turn_index, events) == (phase, turn, [])
        step()
    assert g.s.phase == "vote" and g.s.deadline is None
    g.everyone_votes("p4", "p0")
    assert g.s.phase == "guess" and g.s.deadline is None
    set_clue = validate_options("sosia", {"timers": {"clue": 45}}, 5)["timers"]
    assert set_clue["clue"] == 45 and set_clue["debate"] is None
    assert validate_options("sosia", {"timers": {"clue": None}}, 5)["timers"]["clue"] is None
    for preset in ("intruso", "infiltre"):
        assert default_options(preset)["timers"]["clue"] == 45
        with pytest.raises(GameError) as info:
            validate_options(preset, {"timers": {"clue": None}}, 5)
        assert info.value.detail["field"] == "timers"
    presets = catalog()["presets"]
    assert presets["sosia"]["timers_optional"] and not presets["intruso"]["timers_optional"]
