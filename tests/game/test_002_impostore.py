"""Impostore (rules/002) as the impostor engine plays it: one test per rule sentence.

Each test quotes the sentence of 002 (or the line of RULES.md) it checks; choices
made where they are silent are in docs/rules-impostore.md and named "Choice".
"""

from __future__ import annotations

import json
import random

import pytest

from game import (
    GameError,
    apply,
    audio_policy,
    catalog,
    cues,
    default_options,
    draw_words,
    new_game,
    next_deadline,
    opening_events,
    points,
    replay,
    state_bytes,
    validate_options,
    view,
)
from game.impostor import wordbank
from game.impostor.presets import MAX_WORD_REQUESTS
from game.simulate import random_action

from .impostor_scenario import WORDS, Play, players, start

# ---------------------------------------------------------------- §1 a secret word


def test_002_1_the_app_draws_a_word_from_a_category():
    """002 §1: L'app estrae una parola da una categoria (cibo, animali, film, sport...)."""
    opts = validate_options("classica", None, 5)
    for seed in range(20):
        words = draw_words("classica", opts, seed)
        names = {w["word"] for w in wordbank.words_of("it", words["category"])}
        assert words["words"] and {w["word"] for w in words["words"]} <= names
        assert len(words["words"]) == 1 + MAX_WORD_REQUESTS  # the dealt word and the reserve
    films = draw_words("classica", validate_options("classica", {"categories": ["films"]}, 5), 3)
    assert films["category"] == "films"


def test_002_1_everyone_receives_it_except_the_impostor():
    """002 §1: Tutti la ricevono tranne l'impostore."""
    s = start(n=6, roles={"p4": "impostore", "p5": "impostore"})
    for pl in s.players:
        me = view(s, pl.id)["me"]
        assert me["word"] == (None if pl.role == "impostore" else "gatto")
        assert me["role"] == pl.role


def test_002_1_the_impostor_gets_only_a_hint_word():
    """002 §1: ... che secondo le regole scelte riceve solo un indizio (una parola collegata)."""
    s = start(options={"impostor_info": "hint"})
    me = view(s, "p4")["me"]
    assert me["hint"] == "fusa" and me["word"] is None and me["category"] is None
    assert "gatto" not in json.dumps(view(s, "p4"))


def test_002_1_the_impostor_gets_only_the_category():
    """002 §1: ... solo la categoria."""
    s = start(options={"impostor_info": "category"})
    me = view(s, "p4")["me"]
    assert me["category"] == "animals" and me["hint"] is None and me["word"] is None
    assert me["category_name"] == wordbank.category_name("it", "animals")


def test_002_1_the_impostor_gets_nothing_at_all():
    """002 §1: ... o niente del tutto."""
    s = start(options={"impostor_info": "nothing"})
    me = view(s, "p4")["me"]
    assert me["category"] is None and me["hint"] is None and me["word"] is None


def test_choice_a_custom_word_without_hints_gives_the_impostor_no_hint():
    """Choice (docs/rules-impostore.md): a room's own word without hints: no hint is shown."""
    words = {"category": "custom", "words": [{"word": "zebra", "hints": []},
                                              {"word": "panda", "hints": []}]}
    s = start(words=words)
    assert view(s, "p4")["me"]["hint"] is None and view(s, "p0")["me"]["word"] == "zebra"


# ---------------------------------------------------------------- §2 the card


def test_002_2_everyone_sees_their_own_card_and_nobody_elses():
    """002 §2: Ognuno vede la propria carta sul telefono (the view holds only one's own)."""
    s = start(n=5)
    spectator = json.dumps(view(s, None))
    assert "gatto" not in spectator and "fusa" not in spectator and "animals" not in spectator
    assert view(s, None)["me"] is None
    for pl in s.players:
        others = [p for p in view(s, pl.id)["players"]]
        assert all("role" not in p and "word" not in p for p in others)


def test_choice_the_card_phase_waits_for_everyone_to_have_seen_it():
    """Choice: the game starts with the card; the clues start when every player tapped
    "seen" (or at the clue timer when the room has one)."""
    g = Play(start(n=3, roles={"p2": "impostore"}))
    assert g.s.phase == "card" and next_deadline(g.s) is None  # 002: no timer by default
    g.act("p0", type="seen")
    g.act("p1", type="seen")
    assert g.s.phase == "card" and g.view("p2")["players"][0]["ready"]
    g.act("p2", type="seen")
    assert g.s.phase == "clues"
    timed = Play(start(n=3, roles={"p2": "impostore"}, options={"timers": {"clue": 45}}))
    assert timed.s.deadline == 45
    timed.timeout()
    assert timed.s.phase == "clues"


def test_002_2_non_conosco_la_parola_then_a_vote_to_change_it():
    """002 §2: Chi non conosce la parola può premere «Non conosco la parola» ... e si vota se
    cambiarla. On yes a new word of the same category, roles unchanged (issue 9)."""
    g = Play(start(n=5))
    roles = {pl.id: pl.role for pl in g.s.players}
    g.act("p1", type="ask_word")
    assert g.s.phase == "word_vote"
    assert all(g.view(p)["me"]["can"] == ["word_vote"] for p in g.s.living_ids())
    for pid, change in (("p0", True), ("p1", True), ("p2", True), ("p3", False)):
        g.act(pid, type="word_vote", change=change)
    g.act("p0", type="word_vote", change=False)  # changeable until everyone has voted
    assert g.s.phase == "word_vote"
    g.act("p4", type="word_vote", change=True)
    assert g.s.phase == "card" and g.s.word == "cane" and g.s.category == "animals"
    assert view(g.s, "p0")["me"]["word"] == "cane" and view(g.s, "p4")["me"]["hint"] == "osso"
    assert {pl.id: pl.role for pl in g.s.players} == roles
    assert g.view("p2")["word_request"]["last"] == {"yes": 3, "no": 2, "changed": 1}


def test_002_2_a_no_vote_keeps_the_word():
    """002 §2 (the vote): no more yes than no, the word stays (a tie keeps it)."""
    g = Play(start(n=4, roles={"p3": "impostore"}))
    g.act("p0", type="seen")
    g.act("p2", type="ask_word")
    g.votes({})
    for pid, change in (("p0", True), ("p1", True), ("p2", False), ("p3", False)):
        g.act(pid, type="word_vote", change=change)
    assert g.s.word == "gatto" and g.s.phase == "card"
    assert g.s.ready == ["p0"]  # who had seen the card need not look again


def test_002_2_nobody_will_know_who_asked():
    """002 §2: nessuno saprà chi è stato: every other player's view is the same whoever
    asked, and the state's events name nobody."""
    def after(asker: str) -> tuple[dict, list]:
        g = Play(start(n=5))
        ev = g.act(asker, type="ask_word")
        return {p: g.view(p) for p in ("p0", "p1", "p2", "p3", "p4", None)}, ev

    base, ev = after("p1")
    assert all("player" not in e for e in ev)
    for asker in ("p0", "p2", "p4"):
        views, _ = after(asker)
        for pid in ("p0", "p1", "p2", "p3", "p4", None):
            if pid not in (asker, "p1"):
                assert views[pid] == base[pid], (asker, pid)


def test_choice_word_requests_are_limited():
    """Choice (docs/rules-impostore.md): during the card phase only; at most 3 requests a
    game; each player once per word (again after the word changed)."""
    g = Play(start(n=5))
    g.act("p0", type="ask_word")
    g.fail("p1", "wrong_phase", type="ask_word")
    for pid in g.s.living_ids():
        g.act(pid, type="word_vote", change=False)
    g.fail("p0", "already_asked", type="ask_word")
    assert "ask_word" not in g.view("p0")["me"]["can"] and "ask_word" in g.view("p1")["me"]["can"]
    g.act("p1", type="ask_word")
    for pid in g.s.living_ids():
        g.act(pid, type="word_vote", change=True)
    assert g.s.word == "cane"
    g.act("p0", type="ask_word")  # a new word: p0 may ask about it
    for pid in g.s.living_ids():
        g.act(pid, type="word_vote", change=False)
    assert g.view("p3")["word_request"]["left"] == 0
    g.fail("p3", "no_requests_left", type="ask_word")
    g.seen()
    g.fail("p2", "wrong_phase", type="ask_word")


def test_choice_a_word_vote_closes_at_its_deadline_abstaining_the_silent():
    """Choice: the word vote has the clue timer; who has not voted abstains."""
    g = Play(start(n=5, options={"timers": {"clue": 30}}))
    g.act("p0", type="ask_word")
    g.act("p0", type="word_vote", change=True)
    g.timeout()
    assert g.s.word == "cane" and g.s.last_word_vote == {"yes": 1, "no": 0, "changed": 1}


# ---------------------------------------------------------------- §3 spoken clues


def test_002_3_in_turn_in_an_order_drawn_at_random():
    """002 §3: A turno, in un ordine estratto a sorte, ognuno dice a voce una parola."""
    orders = set()
    for seed in range(12):
        g = Play(start(n=6, seed=seed))
        g.seen()
        assert sorted(g.s.order) == sorted(g.s.living_ids())
        orders.add(tuple(g.s.order))
    assert len(orders) > 6
    g = Play(start(n=4, roles={"p3": "impostore"}))
    g.seen()
    for pid in list(g.s.order):
        assert g.view(pid)["turn"] == pid and g.view(pid)["me"]["can"] == ["done"]
        other = next(p for p in g.s.order if p != pid)
        g.fail(other, "not_your_turn", type="done")
        g.act(pid, type="done")
    assert g.s.phase == "vote"


def test_002_3_who_must_speak_feels_the_phone_vibrate():
    """002 §3: Chi deve parlare sente vibrare il telefono: the `your_turn` cue (chime and
    buzz) goes to the called player only."""
    g = Play(start(n=4, roles={"p3": "impostore"}))
    g.act("p0", type="seen")
    g.act("p1", type="seen")
    g.act("p2", type="seen")
    ev = g.act("p3", type="seen")
    first = g.s.order[0]
    assert ("your_turn", [first]) in cues(g.s, ev)
    ev = g.act(first, type="done")
    assert cues(g.s, ev) == [("your_turn", [g.s.order[1]])]


def test_002_3_from_one_to_five_rounds():
    """002 §3: Si possono fare da 1 a 5 giri."""
    for bad in (0, 6, "2", True):
        with pytest.raises(GameError) as info:
            validate_options("classica", {"rounds": bad}, 5)
        assert info.value.detail["field"] == "rounds"
    g = Play(start(n=3, roles={"p2": "impostore"}, options={"rounds": 3}))
    g.to_vote()
    called = [t.player for t in g.s.turns]
    assert called == g.s.order * 3
    assert [t.round for t in g.s.turns] == [1] * 3 + [2] * 3 + [3] * 3


def test_choice_a_guided_turn_ends_on_done_or_at_the_clue_timer():
    """Choice: clues are spoken; without a timer the speaker taps "done" to pass the turn;
    with one (Normale 45 s) the turn also ends when it runs out."""
    g = Play(start(n=3, roles={"p2": "impostore"}, options={"timers": {"clue": 45}}))
    g.seen()
    first = g.s.order[0]
    assert g.s.deadline == g.t + 45
    g.timeout()
    assert g.s.turns[-1].player == first and g.s.turns[-1].ended == "timeout"
    assert g.view(None)["turn"] == g.s.order[1]


def test_002_turns_guided_the_app_calls_one_player_at_a_time():
    """002 Varianti: Turni: guidati dall'app, che chiama un giocatore alla volta."""
    g = Play(start(n=5))
    g.seen()
    called = [g.view(p)["turn"] for p in ("p0", None)]
    assert called == [g.s.order[0]] * 2
    assert sum("done" in g.view(p)["me"]["can"] for p in g.s.living_ids()) == 1


def test_002_turns_free_the_app_says_only_who_starts_and_the_order():
    """002 Varianti: ... oppure liberi, con l'app che dice solo chi inizia e l'ordine."""
    g = Play(start(n=4, roles={"p3": "impostore"}, options={"turns": "free"}))
    ev = []
    for pid in ("p0", "p1", "p2", "p3"):
        ev += g.act(pid, type="seen")
    v = g.view("p1")
    assert v["turn"] is None and v["order"] == g.s.order and len(v["order"]) == 4
    assert ("your_turn", [g.s.order[0]]) in cues(g.s, ev)  # the first is told they start
    assert all(g.view(p)["me"]["can"] == ["ready"] for p in g.s.living_ids())
    g.fail("p0", "not_allowed", type="done")
    for pid in ("p0", "p1", "p2"):
        g.act(pid, type="ready")
    assert g.s.phase == "clues"
    g.act("p3", type="ready")
    assert g.s.phase == "vote"


def test_002_floor_control_opens_only_the_called_players_microphone():
    """Issue 9: guided turns may open only the called player's microphone (floor control,
    enforced by the mixer); the others' screens say why theirs is shut."""
    g = Play(start(n=4, roles={"p3": "impostore"}, options={"floor": True}))
    g.seen()
    speaker = g.s.order[0]
    pol = audio_policy(g.s)
    assert pol.floor == speaker and pol.mouths == {speaker}
    assert {p: pol.muted.get(p) for p in g.s.living_ids()} == {
        p: (None if p == speaker else "floor") for p in g.s.living_ids()}
    assert g.view(g.s.order[1])["me"]["muted"] == "floor"
    g.act(speaker, type="done")
    assert audio_policy(g.s).floor == g.s.order[1]
    g.clues()
    assert audio_policy(g.s).floor is None  # the discussion is open to all
    free = Play(start(n=4, roles={"p3": "impostore"}, options={"floor": False}))
    free.seen()
    assert audio_policy(free.s).floor is None


# ---------------------------------------------------------------- §4 discuss and vote


def test_002_4_discuss_and_vote_on_the_phone():
    """002 §4: Si discute e intanto ognuno tocca sul telefono chi sospetta."""
    g = Play(start(n=4, roles={"p3": "impostore"}))
    ev = []
    g.seen()
    while g.s.phase == "clues":
        ev += g.act(g.s.order[g.s.turn_index], type="done")
    assert g.s.phase == "vote" and ("vote_open", ["p0", "p1", "p2", "p3"]) in cues(g.s, ev)
    assert all(g.view(p)["me"]["can"] == ["vote"] for p in g.s.living_ids())


def test_002_4_the_vote_can_be_changed_until_everyone_has_voted():
    """002 §4: Il voto si può cambiare finché non hanno votato tutti."""
    g = Play(start(n=4, roles={"p3": "impostore"}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p3"})
    g.act("p0", type="vote", target="p3")
    assert g.view("p0")["me"]["vote"] == "p3" and g.s.phase == "vote"
    g.act("p2", type="vote", target="p3")
    g.act("p3", type="vote", target="p0")  # the last vote closes the ballot
    assert g.s.phase == "guess" and g.s.ballots[-1].votes["p0"] == "p3"


def test_shared_nobody_votes_for_themselves_and_the_silent_abstain():
    """RULES.md: nobody may vote for themselves; who has not voted by the deadline abstains."""
    g = Play(start(n=4, roles={"p3": "impostore"}, options={"timers": {"discuss": 120}}))
    g.to_vote()
    g.fail("p1", "self_vote", type="vote", target="p1")
    g.votes({"p0": "p2", "p1": "p2"})
    g.timeout()
    assert not g.s.player("p2").alive and g.s.ballots[-1].tally == {
        "p0": 0, "p1": 0, "p2": 2, "p3": 0}


def test_002_4_the_most_voted_is_eliminated_and_the_role_revealed():
    """002 §4: Il più votato è eliminato e il suo ruolo viene rivelato."""
    g = Play(start(n=5, options={"win_mode": "elimination"}))
    g.eliminate("p1", "p0")
    assert not g.s.player("p1").alive
    for pid in ("p0", "p4", None):
        v = g.view(pid)
        assert v["eliminations"] == [{"player": "p1", "role": "innocente", "round": 1}]
        assert next(p for p in v["players"] if p["id"] == "p1")["revealed_role"] == "innocente"
        assert all(p["revealed_role"] is None for p in v["players"] if p["id"] != "p1")


def test_002_4_a_tie_goes_to_a_runoff_among_the_tied():
    """002 §4: In caso di pareggio si va al ballottaggio tra i pari."""
    g = Play(start(n=4, roles={"p3": "impostore"}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2"})
    assert g.s.phase == "runoff" and g.s.candidates == ["p1", "p2"]
    assert g.view("p0")["candidates"] == ["p1", "p2"]
    g.fail("p0", "not_a_candidate", type="vote", target="p3")
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p1"})
    assert not g.s.player("p1").alive


def test_002_4_tied_again_nobody_is_eliminated():
    """002 §4: se resta pari, nessuno è eliminato."""
    g = Play(start(n=4, roles={"p3": "impostore"}, options={"win_mode": "elimination"}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2"})
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2"})
    assert all(pl.alive for pl in g.s.players) and g.s.phase == "clues" and g.s.round == 2


def test_choice_a_runoff_nobody_votes_in_leaves_the_tie_standing():
    """Choice (as RULES.md for the undercover games): a runoff without votes is a tie."""
    g = Play(start(n=4, roles={"p3": "impostore"},
                   options={"win_mode": "elimination", "timers": {"discuss": 60}}))
    g.to_vote()
    g.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2"})
    g.timeout()
    assert all(pl.alive for pl in g.s.players) and g.s.phase == "clues"


def test_choice_a_ballot_nobody_votes_in_eliminates_nobody():
    """Choice: everyone abstains: nobody was designated (at the first vote: impostors win)."""
    g = Play(start(n=4, roles={"p3": "impostore"}, options={"timers": {"discuss": 60}}))
    g.to_vote()
    g.timeout()
    assert g.s.outcome == "impostors" and all(pl.alive for pl in g.s.players)


# ---------------------------------------------------------------- §5 the impostor's guess


def test_002_5_an_eliminated_impostor_has_one_try_at_the_word():
    """002 §5: Se viene eliminato un impostore, ha un tentativo per indovinare la parola."""
    g = Play(start(n=5, options={"timers": {"guess": 60}}))
    g.eliminate("p4", "p0")
    assert g.s.phase == "guess" and g.view("p0")["acting"] == "p4"
    assert g.view("p4")["me"]["can"] == ["guess"] and g.view("p0")["me"]["can"] == []
    assert g.s.deadline == g.t + 60  # Normale: 1 minute for the try
    g.fail("p0", "not_allowed", type="guess", word="gatto")
    g.act("p4", type="guess", word="zebra")
    assert g.s.phase == "over"
    g.fail("p4", "wrong_phase", type="guess", word="gatto")


def test_002_5_if_the_guess_is_right_the_impostors_win():
    """002 §5: Se ci riesce, vincono gli impostori."""
    g = Play(start(n=7, roles={"p5": "impostore", "p6": "impostore"}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word="gatto")
    assert g.s.outcome == "impostors" and set(g.s.winners) == {"p5", "p6"}


@pytest.mark.parametrize("guess", ["GATTO", "gattò", "il gatto", "gato", "gattoo", "agtto"])
def test_002_5_case_accents_and_small_typos_do_not_count(guess):
    """002 §5: Maiuscole, accenti e piccoli errori di battitura non contano (RULES.md: a
    leading article too; edit distance 1 up to 5 letters; a swap counts as one)."""
    g = Play(start(n=4, roles={"p3": "impostore"}))
    g.eliminate("p3", "p0")
    g.act("p3", type="guess", word=guess)
    assert g.s.outcome == "impostors"


def test_002_5_a_guess_is_kept_as_shown_without_invisible_or_bidi_characters():
    """The guess shown at the end is cleaned like every player text (issue 8)."""
    g = Play(start(n=4, roles={"p3": "impostore"}))
    g.eliminate("p3", "p0")
    g.act("p3", type="guess", word="\u202ezebra\u200b\u2066")
    assert g.s.guesses[-1]["word"] == "zebra"


def test_002_5_a_missed_or_absent_guess_is_wrong():
    """002 §5 (choice: no answer by the guess timer is a wrong guess)."""
    g = Play(start(n=4, roles={"p3": "impostore"}, options={"timers": {"guess": 30}}))
    g.eliminate("p3", "p0")
    g.timeout()
    assert g.s.outcome == "innocents" and g.s.guesses == [{"player": "p3", "word": None,
                                                           "right": False}]


# ---------------------------------------------------------------- who wins


def test_002_win_at_the_first_vote_innocents_if_an_impostor_out_missed_even_if_others_remain():
    """002 Chi vince, Al primo voto: la partita finisce subito. Vincono gli innocenti se è
    stato eliminato un impostore che non ha indovinato la parola, anche se ne restano altri."""
    g = Play(start(n=7, roles={"p5": "impostore", "p6": "impostore"}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word="zebra")
    assert g.s.outcome == "innocents" and g.s.player("p5").alive
    assert set(g.s.winners) == {"p0", "p1", "p2", "p3", "p4"}


def test_002_win_at_the_first_vote_impostors_in_every_other_case():
    """002: In tutti gli altri casi vincono gli impostori, anche con un pareggio senza
    eliminati."""
    g = Play(start(n=5))
    g.eliminate("p1", "p0")  # an innocent out
    assert g.s.outcome == "impostors" and g.s.winners == ["p4"]
    t = Play(start(n=4, roles={"p3": "impostore"}))
    t.to_vote()
    t.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2"})
    t.votes({"p0": "p1", "p1": "p2", "p2": "p1", "p3": "p2"})
    assert t.s.outcome == "impostors" and all(pl.alive for pl in t.s.players)


def test_002_win_by_elimination_new_rounds_until_the_impostors_are_all_out():
    """002: A eliminazione: si continua con nuovi giri di indizi e di voto. Vincono gli
    innocenti quando gli impostori sono tutti fuori."""
    g = Play(start(n=8, roles={"p6": "impostore", "p7": "impostore"},
                   options={"win_mode": "elimination"}))
    g.eliminate("p0", "p1")
    assert g.s.phase == "clues" and g.s.round == 2 and "p0" not in g.s.order
    g.eliminate("p7", "p1")
    g.act("p7", type="guess", word="zebra")
    assert g.s.phase == "clues" and g.s.round == 3
    g.eliminate("p6", "p1")
    g.act("p6", type="guess", word="zebra")
    assert g.s.outcome == "innocents"


def test_002_win_by_elimination_impostors_when_as_many_as_the_others():
    """002: ... gli impostori quando in gioco sono tanti quanti gli altri."""
    g = Play(start(n=5, options={"win_mode": "elimination"}))
    g.eliminate("p0", "p1")
    g.eliminate("p1", "p2")
    assert g.s.phase == "clues"
    g.eliminate("p2", "p3")
    assert g.s.outcome == "impostors" and g.s.winners == ["p4"]


def test_002_win_by_elimination_a_right_guess_wins_too():
    """002 §5 in the elimination mode: a right guess ends the game for the impostors."""
    g = Play(start(n=7, roles={"p5": "impostore", "p6": "impostore"},
                   options={"win_mode": "elimination"}))
    g.eliminate("p5", "p0")
    g.act("p5", type="guess", word="Gatto")
    assert g.s.outcome == "impostors"


# ---------------------------------------------------------------- roles


def test_002_roles_at_least_3_players_innocents_and_impostors():
    """002 Ruoli: Di base ci sono solo innocenti e impostori: almeno 3 giocatori."""
    with pytest.raises(GameError) as info:
        new_game("classica", None, 1, players(2), 0)
    assert info.value.code == "too_few_players"
    s = new_game("classica", None, 1, players(3), 0)
    assert sorted(pl.role for pl in s.players) == ["impostore", "innocente", "innocente"]


@pytest.mark.parametrize("roles,need", [
    (["complice"], 5), (["gemelli"], 5), (["pagliaccio"], 5),
    (["complice", "pagliaccio"], 7), (["complice", "gemelli", "pagliaccio"], 9),
])
def test_002_roles_each_asks_for_more_players_nine_with_all_three(roles, need):
    """002 Ruoli: ognuno dei quali chiede qualche giocatore in più (9 con tutti e tre);
    RULES.md: each needs two more players than the base 3. Choice: a role the table is
    too small for is left out of the deal (the view's `roles` lists those in play)."""
    opts = {"roles": roles}
    dealt = new_game("classica", opts, 3, players(need), 0)
    assert dealt.roles_in_play == roles
    assert view(dealt, None)["roles"] == roles
    smaller = new_game("classica", opts, 3, players(need - 1), 0)
    assert len(smaller.roles_in_play) == len(roles) - 1


def test_rules_md_the_complice_knows_the_word_and_the_impostors_and_wins_with_them():
    """RULES.md: The Complice knows the word and the impostors and wins with them."""
    g = Play(start(n=7, roles={"p4": "impostore", "p5": "impostore", "p6": "complice"}))
    me = g.view("p6")["me"]
    assert me["word"] == "gatto" and me["role"] == "complice"
    assert sorted(f["player"] for f in me["known"] if f["fact"] == "impostor") == ["p4", "p5"]
    assert g.view("p4")["me"]["known"] == []  # the impostors do not know their Complice
    g.eliminate("p0", "p1")
    assert g.s.outcome == "impostors" and set(g.s.winners) == {"p4", "p5", "p6"}


def test_rules_md_the_gemelli_are_two_innocents_shown_to_each_other():
    """RULES.md: the Gemelli are two innocents shown to each other."""
    g = Play(start(n=6, roles={"p4": "impostore", "p0": "gemello", "p1": "gemello"}))
    assert g.view("p0")["me"]["known"] == [{"player": "p1", "fact": "twin"}]
    assert g.view("p1")["me"]["known"] == [{"player": "p0", "fact": "twin"}]
    assert g.view("p0")["me"]["word"] == "gatto"
    g.eliminate("p4", "p2")
    g.act("p4", type="guess", word="zebra")
    assert {"p0", "p1"} <= set(g.s.winners)


def test_rules_md_the_pagliaccio_knows_the_word_and_wants_to_be_eliminated():
    """RULES.md: the Pagliaccio knows the word and wants to be eliminated. Choice: once
    eliminated he wins alone and the game ends (002: nessun altro prende punti)."""
    g = Play(start(n=6, roles={"p4": "impostore", "p5": "pagliaccio"},
                   options={"win_mode": "elimination"}))
    assert g.view("p5")["me"]["word"] == "gatto"
    g.eliminate("p5", "p0")
    assert g.s.outcome == "pagliaccio" and g.s.winners == ["p5"]


def test_002_whoever_knows_someone_from_the_card_sees_them_marked():
    """002 Ruoli: Chi conosce già qualcuno dalla propria carta (il complice, i gemelli, gli
    impostori quando si conoscono) lo vede segnato sull'avatar (`me.known`, drawn as marks)."""
    s = start(n=9, roles={"p6": "impostore", "p7": "impostore", "p8": "complice",
                          "p0": "gemello", "p1": "gemello"}, options={"impostors_know": True})
    known = {pl.id: view(s, pl.id)["me"]["known"] for pl in s.players}
    assert known["p6"] == [{"player": "p7", "fact": "impostor"}]
    assert known["p7"] == [{"player": "p6", "fact": "impostor"}]
    assert known["p2"] == [] and known["p3"] == []


# ---------------------------------------------------------------- styles and options


def test_002_styles_classica_caos_esperti_sosia():
    """002 Varianti: Stili: Classica; Caos (impostori in numero casuale, pagliaccio, a
    eliminazione); Esperti (l'impostore non riceve niente, 2 giri di indizi, voto segreto);
    Sosia."""
    caos, esperti = default_options("caos"), default_options("esperti")
    assert caos["impostors"] == "random" and caos["roles"] == ["pagliaccio"]
    assert caos["win_mode"] == "elimination"
    assert esperti["impostor_info"] == "nothing" and esperti["rounds"] == 2
    assert esperti["secret_vote"] is True
    classica = default_options("classica")
    assert classica["win_mode"] == "first_vote" and classica["impostors"] == 1
    cat = catalog()
    assert cat["engines"]["impostor"]["styles"] == ["classica", "caos", "esperti", "sosia"]
    assert cat["presets"]["sosia"]["engine"] == "undercover"
    assert {cat["presets"][p]["family"] for p in ("classica", "caos", "esperti", "sosia")} == {
        "impostore"}


def test_002_every_rule_can_be_changed_after_choosing_a_style():
    """002 Varianti: Chi crea la stanza può partire da uno stile già pronto e poi cambiare
    ogni regola."""
    changed = {"impostors": 2, "tell_count": True, "impostor_info": "category",
               "impostors_know": True, "roles": ["gemelli"], "rounds": 4, "turns": "free",
               "floor": True, "first_innocent": True, "win_mode": "first_vote",
               "secret_vote": False, "timers": {"clue": 30, "discuss": 120, "guess": 30},
               "eliminated_speak": True, "lang": "fr", "categories": ["sports", "films"]}
    for style in ("classica", "caos", "esperti"):
        out = validate_options(style, changed, 8)
        assert {k: out[k] for k in changed} == changed
    with pytest.raises(GameError) as info:
        validate_options("classica", {"nope": 1}, 5)
    assert info.value.detail["field"] == "nope"


def test_002_impostor_count_fixed_or_random_up_to_about_one_every_two():
    """002 Varianti: Quanti impostori: un numero fisso oppure casuale, fino a uno ogni due
    giocatori circa (choice: fewer than the others, (n-1)//2)."""
    assert validate_options("classica", {"impostors": 3}, 7)["impostors"] == 3
    with pytest.raises(GameError) as info:
        validate_options("classica", {"impostors": 4}, 7)
    assert info.value.code == "too_many_impostors"
    for n in (3, 4, 7, 16):
        counts = {new_game("caos", {"roles": []}, seed, players(n), 0).impostor_count
                  for seed in range(80)}
        assert counts == set(range(1, (n - 1) // 2 + 1)), (n, counts)


def test_002_with_a_random_count_nobody_knows_unless_the_impostors_are_told():
    """002: Col numero casuale nessuno sa quanti sono, a meno di attivare l'opzione che lo
    dice agli impostori."""
    s = start(n=7, roles={"p5": "impostore", "p6": "impostore"},
              options={"impostors": "random"})
    assert all(view(s, p)["impostors"] is None for p in ("p0", "p5", None))
    assert all(view(s, p)["me"]["impostor_count"] is None for p in ("p0", "p5"))
    told = start(n=7, roles={"p5": "impostore", "p6": "impostore"},
                 options={"impostors": "random", "tell_count": True})
    assert view(told, "p5")["me"]["impostor_count"] == 2
    assert view(told, "p0")["me"]["impostor_count"] is None
    fixed = start(n=7, roles={"p5": "impostore", "p6": "impostore"}, options={"impostors": 2})
    assert view(fixed, "p0")["impostors"] == 2  # a fixed count is in the rules everyone read


def test_002_impostors_know_each_other_off_by_default_on_by_option():
    """002 Varianti: Gli impostori si conoscono: di solito no, ma si può attivare."""
    assert default_options("classica")["impostors_know"] is False
    s = start(n=7, roles={"p5": "impostore", "p6": "impostore"})
    assert view(s, "p5")["me"]["known"] == []
    s = start(n=7, roles={"p5": "impostore", "p6": "impostore"}, options={"impostors_know": True})
    assert view(s, "p5")["me"]["known"] == [{"player": "p6", "fact": "impostor"}]


def test_002_first_speaker_never_an_impostor_and_then_everyone_knows_it():
    """002 Varianti: Chi inizia: di base chiunque. Si può fare in modo che il primo a
    parlare non sia mai un impostore, ma allora tutti sanno che chi inizia è innocente."""
    firsts = set()
    for seed in range(40):
        g = Play(start(n=4, roles={"p3": "impostore"}, seed=seed))
        g.seen()
        firsts.add(g.s.order[0])
        assert not any(p["known_innocent"] for p in g.view(None)["players"])
    assert "p3" in firsts  # by default anyone may start
    for seed in range(40):
        g = Play(start(n=4, roles={"p3": "impostore"}, seed=seed,
                       options={"first_innocent": True}))
        g.seen()
        assert g.s.order[0] != "p3"
        for pid in ("p0", "p3", None):
            marks = [p["id"] for p in g.view(pid)["players"] if p["known_innocent"]]
            assert marks == [g.s.order[0]]


def test_002_secret_vote_shows_only_the_votes_each_received():
    """002 Varianti: Voto segreto: si vedono solo i voti presi da ciascuno, non chi ha
    votato chi."""
    for secret in (False, True):
        g = Play(start(n=5, options={"secret_vote": secret, "win_mode": "elimination"}))
        g.to_vote()
        g.votes({"p0": "p1", "p1": "p2"})
        live = {p["id"]: p["vote"] for p in g.view("p3")["players"]}
        assert live == ({pid: None for pid in live} if secret else
                        {"p0": "p1", "p1": "p2", "p2": None, "p3": None, "p4": None})
        g.votes({"p2": "p1", "p3": "p1", "p4": "p1"})
        v = g.view("p3")
        assert v["vote_counts"] == {"p0": 0, "p1": 4, "p2": 1, "p3": 0, "p4": 0}
        assert (v["ballot"] is None) == secret
        g.eliminate("p4", "p0")
        g.act("p4", type="guess", word="zebra")
        assert all((b["votes"] is None) == secret for b in g.view("p0")["result"]["ballots"])


def test_002_timers_none_by_default_normale_and_veloce():
    """002 Varianti: Timer: nessuno di base. Il ritmo Normale dà 45 secondi per indizio, 3
    minuti per discutere e votare e 1 minuto per il tentativo; Veloce 30 secondi, 2 minuti e
    30 secondi."""
    assert default_options("classica")["timers"] == {"clue": None, "discuss": None,
                                                     "guess": None}
    paces = catalog()["engines"]["impostor"]["paces"]
    assert paces["normale"] == {"clue": 45, "discuss": 180, "guess": 60}
    assert paces["veloce"] == {"clue": 30, "discuss": 120, "guess": 30}
    g = Play(start(n=4, roles={"p3": "impostore"}, options={"timers": paces["veloce"]}))
    assert g.s.deadline == 30
    g.seen()
    assert g.s.deadline == g.t + 30
    g.clues()
    assert g.s.deadline == g.t + 120
    with pytest.raises(GameError):
        validate_options("classica", {"timers": {"clue": 2}}, 4)


def test_choice_without_timers_every_phase_waits_for_the_players():
    """Choice: with no timer nothing happens by itself (next_deadline is None)."""
    g = Play(start(n=4, roles={"p3": "impostore"}))
    for _ in range(3):
        assert next_deadline(g.s) is None
        if g.s.phase == "card":
            g.seen()
        elif g.s.phase == "clues":
            g.clues()
    assert g.s.phase == "vote" and next_deadline(g.s) is None


# ---------------------------------------------------------------- shared rules


def test_shared_the_eliminated_listen_muted_no_votes_no_new_secret():
    """RULES.md: Eliminated players stay in the room as listeners: muted, no votes; they
    learn no secret they did not have; a host option lets them speak."""
    g = Play(start(n=6, roles={"p5": "impostore"}, options={"win_mode": "elimination"}))
    g.eliminate("p0", "p1")
    assert audio_policy(g.s).muted["p0"] == "eliminated" and "p0" not in audio_policy(g.s).public
    g.to_vote()
    g.fail("p0", "dead_player", type="vote", target="p1")
    assert "p0" not in g.s.candidates
    assert g.view("p0")["me"]["can"] == []
    speak = Play(start(n=6, roles={"p5": "impostore"},
                       options={"win_mode": "elimination", "eliminated_speak": True}))
    speak.eliminate("p0", "p1")
    assert "p0" in audio_policy(speak.s).public


def test_shared_at_the_end_everything_is_shown():
    """RULES.md: At the end every role and word is shown (Impostore: every word dealt,
    the hint, the guesses)."""
    g = Play(start(n=5))
    g.act("p0", type="ask_word")
    for pid in g.s.living_ids():
        g.act(pid, type="word_vote", change=True)
    g.eliminate("p4", "p0")
    g.act("p4", type="guess", word="topo")
    r = g.view("p1")["result"]
    assert r["word"] == "cane" and r["words_dealt"] == ["gatto", "cane"] and r["hint"] == "osso"
    assert {p["id"]: p["role"] for p in r["players"]}["p4"] == "impostore"
    assert r["guesses"] == [{"player": "p4", "word": "topo", "right": False}]
    assert audio_policy(g.s).public == {"p0", "p1", "p2", "p3", "p4"}


def test_opening_events_announce_the_card():
    s = start()
    assert opening_events(s) == [{"type": "phase", "phase": "card"}]


# ---------------------------------------------------------------- points (002 "Punti e premi")


def test_002_points_innocents_one_per_impostor_voted_even_if_the_impostors_win():
    """002 Punti: Innocenti: 1 punto per ogni impostore votato almeno una volta, anche se poi
    vincono gli impostori."""
    g = Play(start(n=7, roles={"p5": "impostore", "p6": "impostore"},
                   options={"win_mode": "elimination"}))
    g.to_vote()
    g.votes({"p0": "p5", "p1": "p5", "p2": "p6", "p3": "p6", "p4": "p1", "p5": "p1", "p6": "p0"})
    assert g.s.phase == "runoff" and g.s.candidates == ["p1", "p5", "p6"]
    # p0 votes p6 in the runoff: both impostors voted at least once
    g.votes({"p0": "p6", "p1": "p5", "p2": "p1", "p3": "p1", "p4": "p1", "p5": "p1", "p6": "p1"})
    assert not g.s.player("p1").alive
    g.eliminate("p2", "p0")
    g.eliminate("p3", "p0")
    assert g.s.outcome == "impostors"
    pts = points(g.s)
    assert pts["p0"] == 2  # p5 in the vote, p6 in the runoff
    assert pts["p1"] == 1 and pts["p2"] == 1 and pts["p3"] == 1 and pts["p4"] == 0


def test_002_points_impostors_three_two_or_one_if_they_win():
    """002 Punti: Impostori, se vincono: 3 punti se non sono mai stati eliminati, 2 se
    eliminati ma hanno indovinato la parola, 1 se eliminati senza indovinarla (con più
    impostori, quando un compagno porta comunque la squadra alla vittoria)."""
    g = Play(start(n=7, roles={"p5": "impostore", "p6": "impostore"},
                   options={"win_mode": "elimination"}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word="gatto")
    assert points(g.s)["p5"] == 3 and points(g.s)["p6"] == 2
    g = Play(start(n=7, roles={"p5": "impostore", "p6": "impostore"},
                   options={"win_mode": "elimination"}))
    g.eliminate("p6", "p0")
    g.act("p6", type="guess", word="zebra")
    g.eliminate("p0", "p1")
    g.eliminate("p1", "p2")
    g.eliminate("p2", "p3")
    g.eliminate("p3", "p4")
    assert g.s.outcome == "impostors"
    assert points(g.s)["p5"] == 3 and points(g.s)["p6"] == 1


def test_002_points_complice_two_if_the_impostors_win():
    """002 Punti: Complice: 2 punti se vincono gli impostori."""
    g = Play(start(n=5, roles={"p4": "impostore", "p3": "complice"}))
    g.eliminate("p0", "p1")
    assert points(g.s)["p3"] == 2
    g = Play(start(n=5, roles={"p4": "impostore", "p3": "complice"}))
    g.eliminate("p4", "p0")
    g.act("p4", type="guess", word="zebra")
    assert points(g.s)["p3"] == 0


def test_002_points_pagliaccio_three_if_eliminated_and_nobody_else_scores():
    """002 Punti: Pagliaccio: 3 punti se si fa eliminare, e in quel caso nessun altro prende
    punti."""
    g = Play(start(n=5, roles={"p4": "impostore", "p3": "pagliaccio"}))
    g.to_vote()
    g.votes({"p0": "p4", "p1": "p3", "p2": "p3", "p3": "p0", "p4": "p3"})
    assert g.s.outcome == "pagliaccio"
    assert points(g.s) == {"p0": 0, "p1": 0, "p2": 0, "p3": 3, "p4": 0}


def test_points_are_in_the_result_with_the_stats_of_the_evening():
    """Issue 9: each game's result carries its points and per-player stats (shared schema)."""
    g = Play(start(n=4, roles={"p3": "impostore"}))
    g.to_vote()
    g.votes({"p0": "p3", "p1": "p3", "p2": "p1", "p3": "p1"})
    # tie p1/p3 -> runoff
    g.votes({"p0": "p3", "p1": "p3", "p2": "p3", "p3": "p1"})
    g.act("p3", type="guess", word="gatto")
    r = g.view(None)["result"]
    assert r["points"] == points(g.s) == {"p0": 1, "p1": 1, "p2": 1, "p3": 2}
    st = r["stats"]
    assert st["p0"] == {"side": "innocent", "role": "innocente", "won": False,
                        "eliminated": False, "votes_on_impostors": 2, "votes_on_innocents": 0,
                        "votes_received": 0, "guessed": None}
    assert st["p3"]["side"] == "impostor" and st["p3"]["guessed"] is True
    assert st["p3"]["votes_received"] == 5 and st["p1"]["votes_received"] == 3
    assert st["p2"]["votes_on_innocents"] == 1 and st["p2"]["votes_on_impostors"] == 1


def test_a_replay_of_the_log_gives_the_same_game():
    """The log replays byte for byte (words stored apart, `draw_words`)."""
    opts = {"roles": ["complice"], "impostors": "random", "turns": "free",
            "timers": {"clue": 20, "discuss": 60, "guess": 20}}
    words = draw_words("caos", validate_options("caos", opts, 6), 11)
    s = new_game("caos", opts, 11, players(6), 3.0, words=words)
    rng, log, t = random.Random(2), [], 3.0
    for _ in range(200):
        if s.phase == "over":
            break
        pid = f"p{rng.randrange(6)}"
        a = random_action(rng, view(s, pid), ["gatto"])
        t += rng.choice([0.5, 5.0, 30.0])
        if a is None:
            continue
        try:
            s, _ = apply(s, pid, a, t)
        except GameError:
            continue
        log.append({"t": t, "player": pid, "action": a})
    again = replay("caos", opts, 11, players(6), log, started_at=3.0, words=words)
    assert state_bytes(again) == state_bytes(s)
    assert WORDS["category"] == "animals"


def test_choice_the_first_speaker_is_marked_innocent_only_when_true():
    """Choice: with no innocent left in play (elimination: Complice and Pagliaccio remain
    beside the impostor), a non-impostor starts but nobody is marked innocent."""
    g = Play(start(n=7, roles={"p6": "impostore", "p5": "complice", "p4": "pagliaccio"},
                   options={"win_mode": "elimination", "first_innocent": True}))
    for out in ("p0", "p1", "p2"):
        g.eliminate(out, "p6")
    g.eliminate("p3", "p6")   # impostor 1 vs Complice and Pagliaccio: the game goes on
    assert g.s.phase == "clues" and g.s.player(g.s.order[0]).role != "impostore"
    assert g.s.order[0] not in g.s.known_innocent
    assert set(g.s.known_innocent) <= {"p0", "p1", "p2", "p3"}
