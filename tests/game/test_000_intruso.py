"""Intruso (rules/000), one test per rule sentence of §1-6, plus RULES.md's settlements."""

from __future__ import annotations

import json
import random

import pytest

from game import GameError, new_game, state_bytes, validate_options, view
from game.undercover.presets import BALANCE

from .scenario import Play, players, start

# ---------------------------------------------------------------- §1 the aim


def test_000_s1_civili_share_one_word_intruso_has_a_similar_one():
    """§1: I Civili condividono la stessa parola; l'Intruso ha una parola simile."""
    s = start(n=6, roles={"p4": "intruso", "p5": "fantasma"})
    civ = {s.player(p).word for p in ("p0", "p1", "p2", "p3")}
    assert len(civ) == 1 and civ.pop() == s.word_civili
    assert s.player("p4").word == s.word_intrusi != s.word_civili


def test_000_s1_fantasma_has_no_word_and_knows_it():
    """§1: il Fantasma non ha parola ... nessuno conosce la propria squadra (tranne il Fantasma)."""
    s = start(n=6, roles={"p4": "intruso", "p5": "fantasma"})
    v = view(s, "p5")
    assert v["me"]["word"] is None and v["me"]["role"] == "fantasma"


def test_000_s1_nobody_else_knows_their_team():
    """§1: nessuno conosce la propria squadra all'inizio (tranne il Fantasma)."""
    s = start(n=6, roles={"p4": "intruso", "p5": "fantasma"})
    for pid in ("p0", "p4"):
        v = view(s, pid)
        assert v["me"]["role"] is None
        assert all(p["revealed_role"] is None for p in v["players"])
        text = json.dumps({k: x for k, x in v.items() if k != "preset"})
        assert "intruso" not in text and "civile" not in text


# ---------------------------------------------------------------- §2 setup


@pytest.mark.parametrize("n,code", [(2, "too_few_players"), (17, "too_many_players")])
def test_000_s2_from_3_to_16_players(n, code):
    """§2: Si gioca da 3 a 16 giocatori."""
    with pytest.raises(GameError) as info:
        new_game("intruso", None, 1, players(n), 0.0)
    assert info.value.code == code


def test_000_s2_each_sees_only_their_own_word():
    """§2: Ognuno scopre la sua parola in segreto sul proprio schermo."""
    s = start(n=5)
    for pid in ("p0", "p4"):
        text = json.dumps(view(s, pid), ensure_ascii=False)
        own, other = s.player(pid).word, ({s.word_civili, s.word_intrusi} - {s.player(pid).word})
        assert json.dumps(own, ensure_ascii=False) in text
        assert json.dumps(other.pop(), ensure_ascii=False) not in text


def test_000_s2_pair_orientation_is_random():
    """RULES.md: the two words of a pair are dealt in random orientation."""
    seen = set()
    for seed in range(60):
        s = new_game("intruso", {"powers": [], "categories": ["animals"]}, seed, players(5), 0)
        seen.add((s.word_civili, s.word_intrusi))
    assert any((b, a) in seen for a, b in seen)


@pytest.mark.parametrize(
    "options,code",
    [
        ({"intrusi": 5}, "bad_options"),
        ({"fantasmi": 3}, "bad_options"),
        ({"intrusi": 2, "fantasmi": 1}, "too_many_infiltrators"),
        ({"intrusi": 0, "fantasmi": 0}, "no_infiltrators"),
    ],
)
def test_000_s2_host_chooses_up_to_4_intrusi_and_2_fantasmi(options, code):
    """§2: L'host può scegliere il numero di intrusi (fino a 4), di Fantasmi (fino a 2)."""
    with pytest.raises(GameError) as info:
        validate_options("intruso", options, 5)
    assert info.value.code == code


def test_000_s2_host_counts_are_dealt():
    """§2: the host's counts are the game's counts."""
    s = new_game("intruso", {"intrusi": 4, "fantasmi": 2, "powers": []}, 3, players(13), 0)
    roles = [pl.role for pl in s.players]
    assert roles.count("intruso") == 4 and roles.count("fantasmi") == 0
    assert roles.count("fantasma") == 2 and roles.count("civile") == 7


@pytest.mark.parametrize("n", range(3, 17))
def test_000_s2_auto_balance_keeps_more_civili_than_infiltrators(n):
    """§2: ... o lasciare che il gioco bilanci da solo. Devono esserci sempre più Civili."""
    s = new_game("intruso", None, n, players(n), 0.0)
    roles = [pl.role for pl in s.players]
    assert (roles.count("intruso"), roles.count("fantasma")) == BALANCE[n]
    assert roles.count("civile") > roles.count("intruso") + roles.count("fantasma")


# ---------------------------------------------------------------- §3 clues


def test_000_s3_order_drawn_anew_each_round():
    """§3: A turno, in un ordine estratto a sorte (drawn anew every round: RULES.md)."""
    orders = set()
    for seed in range(5):
        g = Play(start(n=8, roles={"p7": "intruso"}, seed=seed))
        for _ in range(3):
            assert sorted(g.s.order) == sorted(g.s.living_ids())
            orders.add(tuple(g.s.order))
            g.clues()
            g.ready()
            g.timeout()  # nobody votes: nobody is eliminated, next round
    assert len(orders) >= 10


def test_000_s3_clue_of_one_to_four_words():
    """§3: ogni giocatore dà un indizio da 1 a 4 parole."""
    g = Play(start())
    first = g.s.order[0]
    g.fail(first, "clue_too_long", type="clue", text="uno due tre quattro cinque")
    g.fail(first, "clue_empty", type="clue", text="   ")
    g.act(first, type="clue", text="zorp vex plo wix")
    assert g.s.clues[-1].text == "zorp vex plo wix"


def test_000_s3_clue_may_not_say_own_word():
    """§3: È vietato dire la parola stessa (o una della stessa famiglia)."""
    g = Play(start())
    first = g.s.order[0]
    g.fail(first, "clue_uses_secret_word", type="clue", text=f"molto {g.s.player(first).word}")


def test_000_s3_only_the_player_whose_turn_it_is_gives_a_clue():
    """§3: A turno ..."""
    g = Play(start())
    g.fail(g.s.order[1], "not_your_turn", type="clue", text="zorp")


def test_000_s3_fantasma_never_opens_the_round():
    """§3: Il Fantasma non inizia mai il giro: deve prima sentire gli altri."""
    for seed in range(40):
        g = Play(start(n=4, roles={"p0": "fantasma"}, seed=seed))
        for _ in range(2):
            assert g.s.player(g.s.order[0]).role != "fantasma"
            g.clues()
            g.ready()
            g.timeout()


def test_000_s3_who_does_not_answer_in_time_skips_the_turn():
    """§3: Chi non risponde in tempo salta il turno."""
    g = Play(start())
    first, second = g.s.order[:2]
    g.timeout()
    assert g.s.clues[-1].player == first and g.s.clues[-1].skipped
    assert g.view(first)["turn"] == second
    g.fail(first, "not_your_turn", type="clue", text="zorp")


def test_000_s3_board_keeps_every_round():
    """§3: Tutti gli indizi restano visibili, round dopo round, nel tabellone."""
    g = Play(start(n=6, roles={"p5": "intruso"}))
    g.clues()
    g.ready()
    g.timeout()  # no votes: a new round
    g.clues()
    board = g.view("p0")["clues"]
    assert [c["round"] for c in board] == [1] * 6 + [2] * 6


# ---------------------------------------------------------------- §4 debate


def test_000_s4_vote_opens_when_everyone_is_ready():
    """§4: Quando tutti sono pronti, si vota."""
    g = Play(start())
    g.clues()
    for pid in g.s.living_ids()[:-1]:
        g.act(pid, type="ready")
        assert g.s.phase == "debate"
    g.act(g.s.living_ids()[-1], type="ready")
    assert g.s.phase == "vote"


def test_000_s4_debate_deadline_opens_the_vote():
    """§4: the debate ends at its deadline even if someone is not ready."""
    g = Play(start())
    g.clues()
    g.timeout()
    assert g.s.phase == "vote"


def test_000_s4_whisper_to_one_living_player_during_the_debate_only():
    """§4: sussurrare a un solo giocatore: solo lui ti sente, ma tutti vedono la bocca."""
    from game import audio_policy

    g = Play(start())
    assert audio_policy(g.s).whisper == {}
    g.eliminate("p0", "p1")
    g.clues()
    pol = audio_policy(g.s)
    assert set(pol.whisper) == {"p1", "p2", "p3", "p4"}
    assert pol.whisper["p1"] == {"p2", "p3", "p4"}
    assert set(pol.whisper) <= pol.mouths
    assert [p["whisper_ok"] for p in g.view("p1")["players"]] == [False, False, True, True, True]


# ---------------------------------------------------------------- §5 vote


def test_000_s5_vote_is_secret_only_who_has_voted_is_shown():
    """§5: Ogni giocatore in gioco vota in segreto un altro giocatore."""
    g = Play(start())
    g.to_vote()
    g.act("p1", type="vote", target="p4")
    for pid in ("p0", "p2", "p4"):
        v = g.view(pid)
        assert [p["voted"] for p in v["players"]] == [False, True, False, False, False]
        assert v["me"]["vote"] is None and v["vote_counts"] is None
        assert all(set(p) == {"id", "name", "alive", "revealed_role", "ready", "voted",
                              "whisper_ok"} for p in v["players"])
    assert g.view("p1")["me"]["vote"] == "p4"


def test_000_s5_most_voted_is_eliminated_role_revealed_not_word():
    """§5: Il più votato viene eliminato e la sua squadra rivelata (ma non la sua parola)."""
    g = Play(start(n=6, roles={"p5": "intruso"}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p1", "p4": "p1", "p5": "p2"})
    assert not g.s.player("p1").alive
    v = g.view("p5")
    assert v["players"][1]["revealed_role"] == "civile"
    assert v["eliminations"] == [{"player": "p1", "role": "civile", "round": 1, "cause": "vote"}]
    assert json.dumps(g.s.word_civili, ensure_ascii=False) not in json.dumps(v, ensure_ascii=False)
    assert v["vote_counts"] == {"p0": 0, "p1": 4, "p2": 2, "p3": 0, "p4": 0, "p5": 0}


def test_000_s5_tie_revote_among_tied():
    """§5: In caso di pareggio si rivota tra i giocatori a pari merito."""
    g = Play(start(n=6, roles={"p5": "intruso"}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p5", "p5": "p4"})
    assert g.s.phase == "revote" and g.view("p0")["candidates"] == ["p1", "p2"]
    g.fail("p0", "not_a_candidate", type="vote", target="p3")
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p1", "p4": "p1", "p5": "p1"})
    assert not g.s.player("p1").alive


def test_000_s5_tie_again_the_giudice_decides_secretly():
    """§5: se il pareggio resta, decide il Giudice."""
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p3": "giudice"}))
    g.to_vote()
    tie = {"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p0", "p5": "p0"}
    g.votes(tie)
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p1", "p5": "p2"})
    assert g.s.phase == "judge"
    assert g.view("p0")["acting"] is None and g.view("p0")["me"]["can"] == []
    assert g.view("p3")["me"]["can"] == ["judge"]
    g.fail("p0", "not_allowed", type="judge", target="p1")
    g.fail("p3", "not_a_candidate", type="judge", target="p4")
    g.act("p3", type="judge", target="p2")
    assert not g.s.player("p2").alive and g.s.phase == "clues"


def test_000_s5_tie_again_without_giudice_nobody_is_eliminated():
    """§5: ... e senza Giudice nessuno viene eliminato."""
    g = Play(start(n=6, roles={"p5": "intruso"}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p0", "p5": "p0"})
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2", "p4": "p1", "p5": "p2"})
    assert all(pl.alive for pl in g.s.players)
    assert g.s.phase == "clues" and g.s.round == 2


def test_000_s5_a_dead_giudice_does_not_decide():
    """§5 + RULES.md: the Giudice decides only while alive."""
    g = Play(start(n=7, roles={"p6": "intruso"}, powers={"p3": "giudice"}))
    g.eliminate("p3", "p0")
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p4": "p2", "p5": "p0", "p6": "p0"})
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p4": "p2", "p5": "p1", "p6": "p2"})
    assert g.s.phase == "clues" and g.s.player("p1").alive and g.s.player("p2").alive


def test_000_s5_eliminated_fantasma_guesses_and_wins_alone():
    """§5: Un Fantasma eliminato ... se indovina la parola dei Civili, vince da solo."""
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"}))
    g.eliminate("p6", "p0")
    assert g.s.phase == "guess" and g.view("p0")["acting"] == "p6"
    assert g.view("p6")["me"]["can"] == ["guess"]
    g.fail("p0", "wrong_phase", type="vote", target="p1")
    g.fail("p0", "not_allowed", type="guess", word="x")
    g.act("p6", type="guess", word=g.s.word_civili.upper())
    assert g.s.phase == "over" and g.s.outcome == "fantasma" and g.s.winners == ["p6"]


def test_000_s5_wrong_guess_then_a_new_round_of_clues():
    """§5: Poi inizia un nuovo giro di indizi."""
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word="zzzzzzzz")
    assert g.s.phase == "clues" and g.s.round == 2
    assert sorted(g.s.order) == ["p0", "p1", "p2", "p3", "p4", "p5"]


def test_000_s5_a_guess_is_kept_as_shown_without_invisible_or_bidi_characters():
    """The guess is shown to the table at the end: kept cleaned like every player text
    (issue 8: text that looks like something else)."""
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word="\u202ezz\u200bzz\u2066  zz\x00")
    assert g.s.guesses[-1]["word"] == "zzzz zz"


def test_000_s5_guess_timeout_is_a_failed_guess():
    """§5 (RULES.md timers): a Fantasma who does not answer loses the chance."""
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"}))
    g.eliminate("p6", "p0")
    g.timeout()
    assert g.s.phase == "clues" and g.s.guesses == [{"player": "p6", "word": None, "right": False}]


def test_000_s5_a_guess_of_the_intruso_word_does_not_count():
    """RULES.md: the guess must be closest to the Civili word."""
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word=g.s.word_intrusi)
    assert g.s.phase == "clues"


# ---------------------------------------------------------------- §6 who wins


def test_000_s6_civili_win_when_all_infiltrators_are_out():
    """§6: I Civili vincono quando tutti gli intrusi e tutti i Fantasmi sono stati eliminati."""
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "fantasma"}))
    g.eliminate("p5", "p0")
    assert g.s.phase == "clues"
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word="zzzz")
    assert g.s.outcome == "civili"
    assert g.s.winners == ["p0", "p1", "p2", "p3", "p4"]
    assert g.view("p0")["result"]["winners"] == g.s.winners


def test_000_s6_infiltrators_win_when_one_civile_is_left_eliminated_ones_too():
    """§6: Gli infiltrati vincono quando resta un solo Civile: vince tutta la squadra."""
    g = Play(start(n=7, roles={"p5": "intruso", "p6": "intruso"}))
    g.eliminate("p5", "p0")  # one intruso out
    for target in ("p0", "p1", "p2"):
        g.eliminate(target, "p3")
        assert g.s.phase == "clues"
    g.eliminate("p3", "p4")
    assert g.s.outcome == "infiltrati" and g.s.winners == ["p5", "p6"]


def test_000_s6_buffone_wins_alone_if_out_at_the_very_first_vote():
    """§6: Il Buffone vince da solo se viene eliminato al primissimo voto."""
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p2": "buffone"}))
    g.eliminate("p2", "p0")
    assert g.s.outcome == "buffone" and g.s.winners == ["p2"]


def test_000_s6_buffone_out_later_wins_nothing():
    """§6: only the very first vote counts for the Buffone."""
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p2": "buffone"}))
    g.to_vote()
    g.timeout()  # first vote: nobody votes
    g.eliminate("p2", "p0")
    assert g.s.phase == "clues" and g.s.outcome is None


def test_000_s6_cupido_pair_alive_at_the_end_wins_too():
    """§6: Una coppia di Cupido ancora viva alla fine vince, qualunque sia la sua squadra."""
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p0": "cupido"}))
    assert g.s.phase == "powers"
    g.act("p0", type="bind", target="p5")
    for target in ("p1", "p2", "p3", "p4"):
        g.eliminate(target, "p0")
    assert g.s.outcome == "infiltrati" and g.s.winners == ["p0", "p5"]


def test_000_s6_win_checks_fantasma_guess_before_civili():
    """RULES.md: win checks in order: the Fantasma's guess comes before the Civili's win."""
    g = Play(start(n=5, roles={"p4": "fantasma"}))
    g.eliminate("p4", "p0")
    assert g.s.phase == "guess"  # the Civili have not won yet
    g.act("p4", type="guess", word=g.s.word_civili)
    assert g.s.outcome == "fantasma" and g.s.winners == ["p4"]


def test_000_s6_game_ends_as_soon_as_a_side_wins():
    """§6: La partita finisce appena una squadra vince."""
    g = Play(start())
    g.eliminate("p4", "p0")
    assert g.s.phase == "over" and g.s.deadline is None
    g.fail("p0", "wrong_phase", type="ready")


def test_000_s6_end_reveals_everything():
    """RULES.md: at the end every role, word, power and the whole board, both words side by side."""
    g = Play(start(powers={"p1": "spia"}))
    g.eliminate("p4", "p0")
    r = g.view("p2")["result"]
    assert r["words"] == {"civili": g.s.word_civili, "intrusi": g.s.word_intrusi}
    assert [p["role"] for p in r["players"]] == ["civile"] * 4 + ["intruso"]
    assert r["players"][1]["power"] == "spia" and r["players"][4]["word"] == g.s.word_intrusi
    assert len(r["clues"]) == 5 and r["sides"]["infiltrati"] == ["p4"]


def test_000_random_legal_games_replay_byte_for_byte():
    """A game is (rules, seed, players, log): replays give the same bytes."""
    from game import apply, replay, tick
    from game.simulate import random_action

    rng = random.Random(5)
    s = new_game("intruso", None, 77, players(8), 100.0)
    log = []
    t = 100.0
    while s.phase != "over":
        actors = [p.id for p in s.players if view(s, p.id)["me"]["can"]]
        if not actors or rng.random() < 0.1:
            t = s.deadline
            s, _ = tick(s, t)
            continue
        pid = rng.choice(actors)
        action = random_action(rng, view(s, pid), ["zorp"])
        t += 0.5
        try:
            s, _ = apply(s, pid, action, t)
        except GameError:
            continue
        log.append({"t": t, "player": pid, "action": action})
    again = replay("intruso", None, 77, players(8), log, started_at=100.0)
    assert state_bytes(again) == state_bytes(s)
    with_start = [{"t": 100.0, "player": None, "action": {"type": "start"}}] + log
    assert state_bytes(replay("intruso", None, 77, players(8), with_start)) == state_bytes(s)
