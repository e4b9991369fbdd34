"""Lupi Mannari (rules/004), one test per rule sentence, plus RULES.md's lines on it.

Each test quotes the sentence it checks. The deal of `lupi_scenario.start`:
p0 and p1 are the wolves, p2 the veggente, the others contadini.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from game import GameError, cues, new_game, opening_events, result, validate_options, view
from game.werewolf.presets import DEFAULT_TIMERS

from .lupi_scenario import MOD, Play, players, start

T = DEFAULT_TIMERS


def roles_of(state) -> Counter:
    return Counter(pl.role for pl in state.players)


def text_of(v: dict) -> str:
    return json.dumps(v, sort_keys=True)


# ---------------------------------------------------------------- Scopo del gioco


def test_004_scopo_two_factions_wolves_and_humans():
    """"Nel gioco ci sono due fazioni: quella dei Lupi Mannari e quella degli Umani"
    (the veggente and the contadini are the humans)."""
    p = Play(start())
    p.night("p3")
    p.lynch("p0", "p4")
    p.night("p4")
    p.lynch("p1", "p5")
    res = result(p.s)
    assert res["sides"] == {"lupi": ["p0", "p1"], "umani": ["p2", "p3", "p4", "p5", "p6", "p7"]}


def test_004_scopo_wolves_aim_to_eliminate_the_humans():
    """"Lo scopo dei Lupi Mannari è di eliminare tutti gli umani dal villaggio": they get
    there by reaching parity (see the win tests), devouring one human a night."""
    p = Play(start(n=4, roles={"p0": "lupo"}, options={"lupi": 1}))
    p.night("p1")
    p.lynch("p2", "p3")  # a human lynched: 1 wolf, 1 human
    assert p.s.outcome == "lupi" and p.s.phase == "over"


def test_004_scopo_humans_aim_to_lynch_every_wolf():
    """"quello degli umani è di linciare tutti i Lupi Mannari"."""
    p = Play(start())
    p.night("p3")
    p.lynch("p0", "p4")
    assert p.s.phase == "night"  # one wolf left: the game goes on
    p.night("p4")
    p.lynch("p1", "p5")
    assert p.s.outcome == "umani"


# ---------------------------------------------------------------- Preparazione


def test_004_prep_the_app_is_the_moderator_by_default():
    """"Scegliete il moderatore" (RULES.md: the app is the moderator by default; a room may
    seat a human one instead)."""
    s = start()
    assert s.moderator is None and view(s, "p3")["narration"]["by"] == "app"
    assert validate_options("lupi", None, 8)["moderator"] is None
    s = start(moderator=True)
    assert s.moderator == {"id": MOD, "name": "Mod"}
    assert view(s, "p3")["narration"]["by"] == "moderator"


def test_004_prep_the_moderator_belongs_to_no_faction():
    """"egli non appartiene a nessuna fazione e gestisce solo la partita"."""
    s = start(moderator=True)
    assert not s.has(MOD) and len(s.players) == 8
    v = view(s, MOD)
    assert v["me"]["moderator"] and v["me"]["role"] is None and v["me"]["can"] == ["advance"]
    p = Play(s)
    p.night("p3")
    p.lynch("p0", "p4")
    p.night("p4")
    p.lynch("p1", "p5")
    res = result(p.s)
    assert MOD not in res["winners"] and MOD not in res["points"]
    assert all(MOD not in side for side in res["sides"].values())


def test_004_prep_the_moderator_is_one_of_the_seats():
    """The host names the moderator among the seats (option `moderator`, checked at the deal)."""
    with pytest.raises(GameError) as info:
        new_game("lupi", {"moderator": "nobody"}, 1, players(8), 0.0)
    assert info.value.code == "bad_options" and info.value.detail["field"] == "moderator"
    with pytest.raises(GameError) as info:
        validate_options("lupi", {"moderator": 7}, 9)
    assert info.value.detail["field"] == "moderator"


def test_004_prep_one_covered_card_for_every_player():
    """"distribuisce una carta personaggio coperta a ogni giocatore": each role holder has
    exactly one card, shuffled: different seeds deal differently."""
    deals = set()
    for seed in range(12):
        s = new_game("lupi", None, seed, players(8), 0.0)
        assert all(pl.role in ("lupo", "contadino", "veggente") for pl in s.players)
        deals.add(tuple(pl.role for pl in s.players))
    assert len(deals) > 6


def test_004_prep_the_moderator_sees_every_card():
    """"guardandola prima di consegnarla e memorizzando se il giocatore che la riceve è un
    lupo mannaro": the human moderator's view has every card."""
    s = start(moderator=True)
    secrets = view(s, MOD)["secrets"]
    assert secrets["roles"] == {pl.id: pl.role for pl in s.players}


def test_004_prep_players_see_only_their_own_card_until_the_end():
    """"I giocatori guardano segretamente la propria carta e la tengono coperta fino alla
    fine del gioco"."""
    s = start()
    for pid, role in (("p3", "contadino"), ("p2", "veggente"), ("p0", "lupo")):
        v = view(s, pid)
        assert v["me"]["role"] == role and v["secrets"] is None
        others = text_of({k: x for k, x in v.items() if k != "me"})
        assert not any(r in others for r in ("lupo", "contadino", "veggente"))
    spectator = view(s, None)
    assert spectator["me"] is None and "lupo" not in text_of(spectator)


@pytest.mark.parametrize("n,wolves,seers,contadini", [
    (8, 2, 1, 5), (9, 2, 1, 6), (12, 2, 1, 9), (15, 2, 1, 12), (16, 3, 1, 12)])
def test_004_prep_setup_by_table_size(n, wolves, seers, contadini):
    """"In 8 giocatori: usare 5 contadini, 2 lupi mannari e il veggente. Da 9 a 15 giocatori:
    aggiungere contadini e lasciare invariato il numero dei lupi mannari e un veggente. Da 16
    giocatori in poi: aggiungere un terzo lupo mannaro"."""
    for seed in range(3):
        s = new_game("lupi", None, seed, players(n), 0.0)
        assert roles_of(s) == Counter(lupo=wolves, veggente=seers, contadino=contadini)


def test_004_prep_the_moderator_seat_is_not_counted():
    """With a human moderator the cards go to the other seats: 9 seats, 8 role holders."""
    s = new_game("lupi", {"moderator": "pm"}, 3, players(8, moderator=True), 0.0)
    assert roles_of(s) == Counter(lupo=2, veggente=1, contadino=5)


def test_rules_lupi_eight_or_more_by_default():
    """RULES.md: "A room holds 3 to 16 players (Lupi Mannari: 8 or more by default)"."""
    with pytest.raises(GameError) as info:
        new_game("lupi", None, 1, players(7), 0.0)
    assert info.value.code == "too_few_players" and info.value.detail["min"] == 8
    with pytest.raises(GameError):  # the moderator's seat does not count
        new_game("lupi", {"moderator": "pm"}, 1, players(7, moderator=True), 0.0)
    with pytest.raises(GameError) as info:
        new_game("lupi", None, 1, players(17), 0.0)
    assert info.value.code == "too_many_players"
    # A lobby still filling may set the game up: the table is checked at the deal.
    assert validate_options("lupi", {"lupi": 3}, 5)["lupi"] == 3


def test_rules_lupi_host_counts_while_wolves_stay_fewer_than_humans():
    """RULES.md: "the host may change counts if wolves stay fewer than humans" (and still
    after the first night's victim: humans >= wolves + 2)."""
    s = new_game("lupi", {"lupi": 3}, 1, players(9), 0.0)
    assert roles_of(s)["lupo"] == 3
    s = new_game("lupi", {"lupi": 1, "veggente": False}, 1, players(4), 0.0)
    assert roles_of(s) == Counter(lupo=1, contadino=3)
    for n, lupi in ((4, 2), (7, 3), (15, 7)):
        with pytest.raises(GameError) as info:
            new_game("lupi", {"lupi": lupi}, 1, players(n), 0.0)
        assert info.value.code == "too_many_wolves"
    assert roles_of(new_game("lupi", {"lupi": 7}, 1, players(16), 0.0))["lupo"] == 7
    with pytest.raises(GameError) as info:
        validate_options("lupi", {"lupi": 8}, 16)
    assert info.value.code == "bad_options" and info.value.detail["field"] == "lupi"
    with pytest.raises(GameError):
        new_game("lupi", None, 1, players(8), 0.0, deal={"roles": {"p0": "lupo", "p1": "lupo",
                                                                    "p2": "lupo", "p3": "lupo"}})


# ---------------------------------------------------------------- Il gioco


def test_004_gioco_night_then_day_in_turn():
    """"Il gioco si divide in due fasi: la notte e il giorno": night, seer, wolves; day,
    nomination, defences, lynch; then a new night."""
    p = Play(start())
    seen = [p.s.phase]
    p.night("p3")
    p.lynch("p4", "p5")
    seen += [e["phase"] for e in p.events if e["type"] == "phase"]
    assert seen == ["night", "seer", "wolves", "day", "nomination", "defence", "defence",
                    "lynch", "night"]


def test_004_gioco_the_wolves_devour_one_player_a_night():
    """"Di notte i lupi mannari sbranano un giocatore"."""
    p = Play(start())
    p.night("p5")
    assert [(d.player, d.cause) for d in p.s.deaths] == [("p5", "devoured")]
    assert sum(not pl.alive for pl in p.s.players) == 1


def test_004_gioco_the_day_lynches_one_player():
    """"Di giorno si discute e si lincia qualcuno"."""
    p = Play(start())
    p.night("p5")
    p.lynch("p6", "p7")
    assert [(d.player, d.cause) for d in p.s.deaths] == [("p5", "devoured"), ("p6", "lynched")]


# ---------------------------------------------------------------- La notte


def test_004_notte_the_night_opens_and_every_mic_shuts():
    """"Il moderatore dichiara l'inizio della notte ... Tutti i giocatori chiudono gli occhi":
    the game opens at night; every public microphone is shut by the server."""
    s = start()
    assert s.phase == "night" and opening_events(s) == [{"type": "phase", "phase": "night"}]
    assert ("night", [f"p{i}" for i in range(8)]) in cues(s, opening_events(s))
    assert view(s, "p3")["narration"]["lines"] == [{"key": "night_falls"}]
    p = Play(s)
    for phase in ("night", "seer", "wolves"):
        p.until(phase)
        pol = p.policy()
        assert pol.public == frozenset() and pol.mouths == frozenset()
        assert all(pol.muted.get(pid) == "night" for pid in ("p2", "p3", "p7"))


def test_004_notte_the_seer_is_called():
    """"Il moderatore chiama ad alta voce il veggente"."""
    p = Play(start())
    p.until("seer")
    assert p.view("p5")["narration"]["lines"] == [{"key": "seer_wakes"}]
    assert p.s.deadline - p.s.phase_started == T["seer"]


def test_004_notte_the_seer_points_silently_at_a_player():
    """"Il veggente apre gli occhi e indica con un gesto (senza farsi sentire!) un giocatore
    a sua scelta": one living player other than themselves, once; their mic stays shut."""
    p = Play(start())
    p.until("seer")
    assert p.policy().muted["p2"] == "night" and "p2" not in p.policy().public
    assert p.view("p2")["me"]["can"] == ["peek"]
    p.fail("p2", "not_a_candidate", type="peek", target="p2")
    p.fail("p2", "unknown_player", type="peek", target="zz")
    p.act("p2", type="peek", target="p6")
    p.fail("p2", "already_used", type="peek", target="p0")
    assert p.view("p2")["me"]["can"] == []


def test_004_notte_the_answer_is_wolf_or_not_to_the_seer_alone():
    """"Il moderatore gli risponde con un cenno del capo affermativo se il giocatore indicato
    è un lupo mannaro, negativo altrimenti": at once, shown only to the veggente."""
    p = Play(start())
    p.until("seer")
    before = {pid: p.view(pid) for pid in ("p0", "p3", "p6")}
    p.act("p2", type="peek", target="p0")
    assert p.view("p2")["me"]["seen"] == [{"night": 1, "player": "p0", "wolf": True}]
    for pid, v in before.items():
        assert p.view(pid) == v  # nobody else's view changed
    p.until("wolves")
    p.act("p0", type="bite", target="p3")
    p.timeout()
    p.lynch("p4", "p5")
    p.night("p5", peek="p6")
    assert p.view("p2")["me"]["seen"][-1] == {"night": 2, "player": "p6", "wolf": False}


def test_004_notte_the_seer_phase_ends_after_its_fixed_time():
    """"Il moderatore quindi chiama la fine della fase del veggente": the phase lasts its
    whole time even after the look (no early end that would time the seer)."""
    p = Play(start())
    p.until("seer")
    started = p.s.phase_started
    p.act("p2", type="peek", target="p4")
    assert p.s.phase == "seer"
    p.timeout()
    assert p.s.phase == "wolves" and p.s.phase_started == started + T["seer"]


def test_004_notte_the_seer_phase_is_played_when_the_seer_is_a_ghost():
    """"questa fase va giocata anche se il veggente è un fantasma ... il moderatore chiama il
    veggente (il quale non si sveglierà) e, poco dopo, la fine della fase": the same phases,
    lengths and narration, and nobody can act in it."""
    alive, dead = Play(start()), Play(start())
    alive.night("p3")
    dead.night("p2")  # the veggente devoured
    for p in (alive, dead):
        p.lynch("p4", "p5")
        p.until("seer")
    assert dead.view("p2")["me"]["can"] == [] and not dead.s.player("p2").alive
    dead.fail("p2", "dead_player", type="peek", target="p6")
    for p in (alive, dead):
        assert p.s.deadline - p.s.phase_started == T["seer"]
    assert alive.view("p6")["narration"] == dead.view("p6")["narration"]


def test_004_notte_the_wolves_wake_and_recognise_each_other():
    """"Il moderatore quindi chiama i lupi mannari ... I lupi mannari aprono gli occhi e si
    riconoscono": each wolf's view names the pack; nobody else's does."""
    p = Play(start())
    for wolf in ("p0", "p1"):
        assert p.view(wolf)["me"]["pack"] == ["p0", "p1"]
    assert p.view("p2")["me"]["pack"] == [] and p.view("p5")["me"]["pack"] == []
    p.until("wolves")
    assert p.view("p5")["narration"]["lines"] == [{"key": "seer_sleeps"}, {"key": "wolves_wake"}]


def test_004_notte_the_wolves_agree_silently_on_a_private_channel():
    """"si mettono rapidamente e silenziosamente (senza farsi sentire!!) d'accordo": the wolves
    hear each other on a channel nobody else hears; each wolf's pick is shown to the others."""
    p = Play(start())
    p.until("wolves")
    pol = p.policy()
    assert pol.channels == (frozenset({"p0", "p1"}),) and pol.public == frozenset()
    assert "p0" not in pol.muted and pol.muted["p3"] == "night"
    p.act("p0", type="bite", target="p4")
    assert p.view("p1")["me"]["pack_picks"] == {"p0": "p4"}
    assert p.view("p0")["me"]["bite"] == "p4"
    p.act("p1", type="bite", target="p5")
    p.act("p0", type="bite", target="p5")  # a pick can change until the deadline
    assert p.view("p0")["me"]["pack_picks"] == {"p0": "p5", "p1": "p5"}
    for pid in ("p2", "p3"):
        v = p.view(pid)
        assert v["me"]["pack_picks"] is None and "p5" not in text_of(v["me"])
    p.fail("p0", "not_a_candidate", type="bite", target="p1")  # not a fellow wolf
    p.fail("p3", "not_allowed", type="bite", target="p4")


def test_004_notte_the_most_picked_is_taken_at_the_deadline():
    """"Il moderatore prende atto della decisione e chiama la fine della fase": at the
    deadline the most picked is taken (RULES.md), a tie drawn at random."""
    p = Play(start(n=9, options={"lupi": 3}, roles={"p0": "lupo", "p1": "lupo", "p8": "lupo",
                                                     "p2": "veggente"}))
    p.until("wolves")
    p.act("p0", type="bite", target="p4")
    p.act("p1", type="bite", target="p4")
    p.act("p8", type="bite", target="p5")
    p.timeout()
    assert p.s.deaths[-1].player == "p4"
    victims = set()
    for seed in range(30):
        q = Play(start(seed=seed))
        q.until("wolves")
        q.act("p0", type="bite", target="p4")
        q.act("p1", type="bite", target="p5")
        q.timeout()
        victims.add(q.s.deaths[-1].player)
    assert victims == {"p4", "p5"}


def test_004_notte_no_pick_is_a_tie_of_every_human():
    """Wolves away or silent (RULES.md: turns time out): every living human is tied at zero
    and the lot decides; never a wolf."""
    victims = set()
    for seed in range(40):
        q = Play(start(seed=seed))
        q.until("wolves")
        q.timeout()
        victims.add(q.s.deaths[-1].player)
    assert victims <= {f"p{i}" for i in range(2, 8)} and len(victims) >= 4


def test_004_notte_the_night_ends_there_resolved_at_once():
    """"A questo punto la notte è terminata": the night is resolved at once at its end;
    nothing of it (no death, no pick) reaches anyone before."""
    p = Play(start())
    p.until("wolves")
    p.act("p0", type="bite", target="p6")
    p.act("p1", type="bite", target="p6")
    assert p.s.player("p6").alive and p.s.deaths == []
    assert p.view("p6")["me"]["alive"] and p.s.phase == "wolves"
    ev = p.timeout()
    assert {"type": "eliminated", "player": "p6", "cause": "devoured"} in ev
    assert p.s.phase == "day" and p.s.phase_started == p.t


def test_004_notte_the_wolves_phase_lasts_its_time_even_when_agreed():
    """The wolves' phase does not end when they agree (its length would time them)."""
    p = Play(start())
    p.until("wolves")
    p.act("p0", type="bite", target="p6")
    p.act("p1", type="bite", target="p6")
    assert p.s.phase == "wolves" and p.s.deadline == p.s.phase_started + T["wolves"]


# ---------------------------------------------------------------- Il giorno


def test_004_giorno_day_breaks_and_everyone_opens_their_eyes():
    """"Il moderatore dichiara ora l'inizio del giorno ... Tutti i giocatori aprono gli occhi":
    the day cue, and every living player's microphone opens."""
    p = Play(start())
    p.night("p6")
    assert ("day", [f"p{i}" for i in range(8)]) in cues(p.s, p.events)
    pol = p.policy()
    assert pol.public == frozenset({"p0", "p1", "p2", "p3", "p4", "p5", "p7"})
    assert pol.mouths == pol.public


def test_004_giorno_the_victim_is_told_and_becomes_a_ghost():
    """"Il moderatore dice al giocatore scelto dai Lupi Mannari che è stato sbranato! ...
    Questo giocatore da ora in poi non gioca più come personaggio ma come Fantasma"."""
    p = Play(start())
    p.night("p6")
    lines = p.view("p3")["narration"]["lines"]
    assert {"key": "devoured", "player": "p6"} in lines
    v = p.view("p6")
    assert v["me"]["alive"] is False and v["me"]["muted"] == "ghost"
    assert v["deaths"] == [{"player": "p6", "day": 1, "cause": "devoured"}]
    assert ("elimination", [f"p{i}" for i in range(8)]) in cues(p.s, p.events)


def test_004_giorno_the_players_discuss():
    """"possono parlare fra loro per identificare chi siano i lupi mannari": the living talk
    in the discussion; they may end it early once all of them are ready."""
    p = Play(start())
    p.night("p6")
    assert p.s.phase == "day"
    for pid in p.s.living_ids():
        assert p.view(pid)["me"]["can"] == ["ready"]
        p.act(pid, type="ready")
    assert p.s.phase == "nomination"


def test_004_giorno_cards_are_never_shown():
    """"Si può mentire liberamente, ma non si può mai mostrare la propria carta agli altri!":
    there is no action to show a card and no view shows another's card before the end."""
    p = Play(start())
    p.night("p2")  # even the devoured veggente's card stays covered
    p.lynch("p0", "p3")  # a wolf lynched: still covered
    for pid in ("p3", "p4", None):
        v = p.view(pid)
        public = text_of({k: x for k, x in v.items() if k != "me"})
        assert "lupo" not in public and "veggente" not in public
    p.fail("p3", "bad_action", type="reveal")


# ---------------------------------------------------------------- Il linciaggio


def test_004_linciaggio_at_most_three_minutes_of_discussion():
    """"Dopo un massimo di tre minuti di discussione": the day lasts 3 minutes by default,
    the host may shorten it, never lengthen it."""
    p = Play(start())
    p.night("p6")
    assert p.s.deadline - p.s.phase_started == 180
    assert validate_options("lupi", {"timers": {"day": 60}}, 8)["timers"]["day"] == 60
    with pytest.raises(GameError) as info:
        validate_options("lupi", {"timers": {"day": 181}}, 8)
    assert info.value.detail["field"] == "timers"
    p.timeout()
    assert p.s.phase == "nomination"


def test_004_linciaggio_everyone_ghosts_included_names_someone():
    """"Tutti i giocatori, inclusi i fantasmi al proprio turno votano e i due giocatori con
    più voti sono indiziati"."""
    p = Play(start())
    p.night("p6")
    p.until("day")
    p.timeout()
    assert p.view("p6")["me"]["can"] == ["vote"]  # the ghost votes too
    p.fail("p3", "not_a_candidate", type="vote", target="p6")  # ghosts are not candidates
    p.fail("p3", "self_vote", type="vote", target="p3")
    votes = {"p0": "p3", "p1": "p3", "p2": "p4", "p3": "p4", "p4": "p3", "p5": "p7",
             "p6": "p4", "p7": "p3"}
    for voter, target in votes.items():
        p.act(voter, type="vote", target=target)
    assert p.s.nominees == ["p3", "p4"] and p.s.phase == "defence"
    v = p.view("p5")
    assert v["nominees"] == ["p3", "p4"] and v["nomination_votes"] == votes
    assert v["vote_counts"]["p3"] == 4 and v["vote_counts"]["p4"] == 3


def test_rules_lupi_a_tie_for_a_place_is_drawn_at_random():
    """RULES.md: "the two most voted are nominated (ties for a place drawn at random)"."""
    seconds = set()
    for seed in range(30):
        p = Play(start(seed=seed))
        p.night("p6")
        p.until("day")
        p.timeout()
        for voter, target in {"p0": "p3", "p1": "p3", "p3": "p4", "p4": "p5"}.items():
            p.act(voter, type="vote", target=target)
        p.timeout()
        assert p.s.nominees[0] == "p3"
        seconds.add(p.s.nominees[1])
    assert seconds == {"p4", "p5"}


def test_004_linciaggio_each_nominee_defends_alone():
    """"I due giocatori indiziati possono difendersi con un ultimo breve discorso" (RULES.md:
    each defends alone for a set time, only their mic open)."""
    p = Play(start())
    p.night("p6")
    p.nominate("p3", "p4")
    for defender in ("p3", "p4"):
        assert p.s.phase == "defence" and p.s.defending() == defender
        assert p.s.deadline - p.s.phase_started == T["defence"]
        pol = p.policy()
        assert pol.floor == defender and pol.public == frozenset({defender})
        assert pol.mouths == frozenset({defender}) and pol.muted["p5"] == "floor"
        assert p.view("p5")["defender"] == defender
        assert p.view(defender)["me"]["can"] == ["ready"]
        p.fail("p5", "not_your_turn", type="ready")
        p.timeout()
    assert p.s.phase == "lynch"
    assert ("your_turn", ["p3"]) in cues(p.s, p.events)


def test_004_linciaggio_a_defender_may_yield_the_floor():
    """A nominee who has said enough ends their defence (`ready`)."""
    p = Play(start())
    p.night("p6")
    p.nominate("p3", "p4")
    p.act("p3", type="ready")
    assert p.s.defending() == "p4"


def test_004_linciaggio_the_living_not_nominated_vote_between_the_two():
    """"i giocatori non indiziati e ancora vivi (esclusi quindi gli indiziati e i fantasmi)
    votano di nuovo il giocatore tra gli indiziati che verrà linciato"."""
    p = Play(start())
    p.night("p6")
    p.nominate("p3", "p4")
    p.until("lynch")
    p.fail("p6", "dead_player", type="vote", target="p3")  # a ghost
    p.fail("p3", "not_allowed", type="vote", target="p4")  # a nominee
    p.fail("p5", "not_a_candidate", type="vote", target="p7")
    assert p.view("p6")["me"]["can"] == [] and p.view("p3")["me"]["can"] == []
    assert p.view("p5")["candidates"] == ["p3", "p4"]
    assert sorted(p.s.lynch_voters()) == ["p0", "p1", "p2", "p5", "p7"]


def test_004_linciaggio_the_lynch_vote_is_secret_and_together():
    """"Questa votazione avviene in segreto e in contemporanea": nobody sees another's
    ballot, only who has voted; the counts come when it closes."""
    p = Play(start())
    p.night("p6")
    p.nominate("p3", "p4")
    p.until("lynch")
    p.act("p0", type="vote", target="p4")
    for pid in ("p1", "p3", "p5", None):
        v = p.view(pid)
        assert v["nomination_votes"] is not None  # the nomination was open
        assert v["vote_counts"] is None and (v["me"] is None or v["me"]["vote"] is None)
        assert [x["voted"] for x in v["players"]][:2] == [True, False]
    assert p.view("p0")["me"]["vote"] == "p4"
    p.act("p0", type="vote", target="p3")  # changeable until everyone has voted
    for pid in ("p1", "p2", "p5", "p7"):
        p.act(pid, type="vote", target="p4")
    assert p.s.deaths[-1].player == "p4" and p.view("p5")["vote_counts"] == {"p3": 1, "p4": 4}


def test_004_linciaggio_the_most_voted_is_lynched_and_becomes_a_ghost():
    """"Chi ha preso più voti è linciato e diventa un fantasma!"; RULES.md: a tie is drawn at
    random."""
    p = Play(start())
    p.night("p6")
    p.lynch("p3", "p4")
    assert not p.s.player("p3").alive and p.s.deaths[-1].cause == "lynched"
    assert p.view("p3")["me"]["muted"] == "ghost"
    p.until("day")
    assert p.policy().muted["p3"] == "ghost"
    lynched = set()
    for seed in range(30):
        q = Play(start(seed=seed))
        q.night("p6")
        q.nominate("p3", "p4")
        q.until("lynch")
        for pid, target in zip(q.s.lynch_voters()[:4], ["p3", "p4", "p3", "p4"], strict=True):
            q.act(pid, type="vote", target=target)
        q.timeout()
        lynched.add(q.s.deaths[-1].player)
    assert lynched == {"p3", "p4"}


def test_004_linciaggio_then_a_new_night():
    """"A questo punto il giorno è terminato: si ricomincia con una nuova notte e così via,
    finché una fazione non vince"."""
    p = Play(start())
    p.night("p6")
    p.lynch("p3", "p4")
    assert p.s.phase == "night" and p.s.day == 2
    lines = p.view("p5")["narration"]["lines"]
    assert lines == [{"key": "lynched", "player": "p3"}, {"key": "night_falls"}]


def test_004_vittoria_humans_win_when_every_wolf_is_lynched():
    """"Il moderatore dichiara la partita finita con una vittoria degli umani se questi
    linciano tutti i lupi mannari"."""
    p = Play(start())
    p.night("p6")
    p.lynch("p0", "p3")
    p.night("p5")
    p.lynch("p1", "p3")
    assert p.s.phase == "over" and p.s.outcome == "umani"
    assert p.view("p3")["narration"]["lines"][-1] == {"key": "umani_win"}


def test_004_vittoria_wolves_win_at_parity_after_a_night():
    """"I lupi mannari sono invece dichiarati vincitori se in un qualunque momento sono in
    numero pari agli umani ancora vivi (per esempio, 2 lupi mannari e 2 umani, oppure 1 e 1)":
    after a night."""
    p = Play(start(n=6, options={"lupi": 2}))
    p.night("p3")  # 2 wolves, 3 humans
    p.lynch("p4", "p2")  # 2 wolves, 2 humans: parity after a lynch
    assert p.s.outcome == "lupi"
    q = Play(start(n=7, options={"lupi": 2}))
    q.night("p3")  # 2 v 4
    q.lynch("p4", "p2")  # 2 v 3
    assert q.s.phase == "night"
    q.night("p5")  # 2 v 2: parity after a night
    assert q.s.outcome == "lupi" and q.s.phase == "over"


def test_004_vittoria_one_and_one_is_parity_too():
    """"oppure 1 e 1"."""
    p = Play(start(n=5, roles={"p0": "lupo", "p1": "lupo"}, options={"lupi": 1}))
    p.night("p2")  # 2 v 2 already: the wolves win at once after the night
    assert p.s.outcome == "lupi"
    q = Play(start(n=4, roles={"p0": "lupo"}, options={"lupi": 1}))
    q.night("p1")  # 1 v 2
    q.lynch("p2", "p0")  # 1 v 1
    assert q.s.outcome == "lupi"


def test_004_vittoria_the_whole_faction_wins_ghosts_included():
    """"È sempre l'intera fazione a vincere: quindi anche i fantasmi partecipano alla
    vittoria!"; every card is shown at the end."""
    p = Play(start())
    p.night("p6")
    p.lynch("p0", "p3")
    p.night("p5")
    p.lynch("p1", "p3")
    res = result(p.s)
    assert res["winners"] == ["p2", "p3", "p4", "p5", "p6", "p7"]  # p5, p6 are ghosts
    assert {x["id"]: x["role"] for x in res["players"]} == {
        "p0": "lupo", "p1": "lupo", "p2": "veggente", "p3": "contadino", "p4": "contadino",
        "p5": "contadino", "p6": "contadino", "p7": "contadino"}
    assert p.view("p0")["result"] == res and p.view(None)["result"] == res
    assert cues(p.s, p.events)[-2:] == [("victory", res["winners"]), ("defeat", ["p0", "p1"])]


# ---------------------------------------------------------------- Regole per i fantasmi


def test_004_fantasmi_cannot_reveal_their_card():
    """"non possono rivelare il proprio personaggio!": a ghost's card stays covered for
    everyone (the deaths list has no role) until the end."""
    p = Play(start())
    p.night("p2")  # the veggente
    assert p.view("p3")["deaths"] == [{"player": "p2", "day": 1, "cause": "devoured"}]
    assert "veggente" not in text_of({k: x for k, x in p.view("p3").items() if k != "me"})


def test_004_fantasmi_close_their_eyes_at_night():
    """"di notte chiudono gli occhi, come tutti gli altri giocatori": a ghost's night view
    is a contadino's (no pick, no look, no channel)."""
    p = Play(start())
    p.night("p6")
    p.lynch("p1", "p3")  # a lynched wolf is a ghost now
    p.until("wolves")
    assert p.policy().channels == (frozenset({"p0"}),)
    ghost_wolf = p.view("p1")
    assert ghost_wolf["me"]["can"] == [] and ghost_wolf["me"]["pack_picks"] is None
    assert ghost_wolf["me"]["muted"] == "ghost"


def test_004_fantasmi_keep_no_special_ability():
    """"non importa che personaggio fossero stati in vita, ora non hanno più alcuna abilità
    speciale": the dead veggente does not look, a dead wolf does not pick."""
    p = Play(start())
    p.night("p2")
    p.lynch("p1", "p3")
    p.until("seer")
    p.fail("p2", "dead_player", type="peek", target="p4")
    p.until("wolves")
    p.fail("p1", "dead_player", type="bite", target="p4")
    p.act("p0", type="bite", target="p4")
    assert p.view("p1")["me"]["pack_picks"] is None  # learns no new secret


def test_004_fantasmi_never_speak_again():
    """"non possono più parlare per il resto della partita": server-enforced, in every phase
    until the end."""
    p = Play(start())
    p.night("p6")
    for _ in range(12):
        if p.s.phase == "over":
            break
        pol = p.policy()
        assert "p6" not in pol.public and "p6" not in pol.mouths, p.s.phase
        assert all("p6" not in c for c in pol.channels) and pol.muted["p6"] == "ghost"
        p.timeout()


def test_004_fantasmi_vote_to_nominate():
    """"possono votare per scegliere i giocatori indiziati"."""
    p = Play(start())
    p.night("p6")
    p.until("nomination")
    p.act("p6", type="vote", target="p3")
    assert p.s.votes["p6"] == "p3"


def test_004_fantasmi_do_not_vote_the_lynch():
    """"non possono votare chi deve essere linciato tra i giocatori indiziati"."""
    p = Play(start())
    p.night("p6")
    p.nominate("p3", "p4")
    p.until("lynch")
    p.fail("p6", "dead_player", type="vote", target="p3")


# ---------------------------------------------------------------- Personaggi


def test_004_personaggi_the_seer_looks_at_a_living_person():
    """"veggente (può sapere durante la notte se una persona ancora viva è un lupo o no)"."""
    p = Play(start())
    p.night("p6")
    p.lynch("p3", "p4")
    p.until("seer")
    p.fail("p2", "not_a_candidate", type="peek", target="p6")
    p.fail("p2", "not_a_candidate", type="peek", target="p3")
    p.act("p2", type="peek", target="p1")
    assert p.view("p2")["me"]["seen"][-1]["wolf"] is True


# ---------------------------------------------------------------- RULES.md, shared lines


def test_rules_shared_an_away_player_times_out():
    """RULES.md: "While away, their turns time out as the rules say and they abstain from
    votes": a game nobody plays still ends."""
    p = Play(start())
    for _ in range(200):
        if p.s.phase == "over":
            break
        p.timeout()
    assert p.s.phase == "over" and p.s.outcome in ("lupi", "umani")


def test_rules_shared_votes_change_until_all_voted_nobody_self_abstain():
    """RULES.md: "A vote can be changed until everyone has voted or time runs out; nobody may
    vote for themselves; who has not voted by the deadline abstains"."""
    p = Play(start())
    p.night("p6")
    p.until("nomination")
    p.act("p0", type="vote", target="p3")
    p.act("p0", type="vote", target="p4")
    assert p.s.votes == {"p0": "p4"}
    p.fail("p0", "self_vote", type="vote", target="p0")
    p.timeout()
    assert p.s.last_nomination == {"p0": "p4"} and p.s.nominees[0] == "p4"


def test_rules_shared_the_eliminated_learn_no_new_secret():
    """RULES.md: eliminated players "learn no secret they did not have until the game
    ends": a lynched wolf keeps the pack it knew and sees no new pick."""
    p = Play(start())
    p.night("p6")
    p.lynch("p0", "p3")
    p.until("wolves")
    p.act("p1", type="bite", target="p4")
    v = p.view("p0")
    assert v["me"]["pack"] == ["p0", "p1"] and v["me"]["pack_picks"] is None


def test_rules_shared_every_role_shown_at_the_end():
    """RULES.md: "At the end every role ... is shown" (and the seer's looks)."""
    p = Play(start())
    p.night("p6", peek="p0")
    p.lynch("p0", "p3")
    p.night("p5", peek="p1")
    p.lynch("p1", "p3")
    res = p.view("p7")["result"]
    assert {x["role"] for x in res["players"]} == {"lupo", "veggente", "contadino"}
    assert res["peeks"] == [{"night": 1, "player": "p0", "wolf": True},
                            {"night": 2, "player": "p1", "wolf": True}]
