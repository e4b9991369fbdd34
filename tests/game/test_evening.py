"""The evening (game/evening.py): points added up, the podium, and the awards from the
third game on, on scripted evenings of real games (docs/rules.md "Points, podium and
awards")."""

from __future__ import annotations

import pytest

from game import PRESETS, evening, result
from game.evening import AWARD_NAMES, STAT_KEYS, awards, podium
from game.simulate import play

from . import impostor_scenario as imp
from . import scenario as uc


def _impostor_game(impostor: str, ballot: dict[str, str], guess: str | None = None) -> dict:
    """A Classica game at 5 players: `impostor` is the impostor, one vote, then a guess."""
    g = imp.Play(imp.start(n=5, roles={impostor: "impostore"}))
    g.to_vote()
    g.votes(ballot)
    if g.s.phase == "guess":
        g.act(impostor, type="guess", word=guess or "zebra")
    assert g.s.phase == "over"
    return result(g.s)


def scripted_evening() -> list[dict]:
    """Three games: the innocents catch p4; p0 gets an innocent voted out; p1 is caught
    but guesses the word."""
    g1 = _impostor_game("p4", {"p0": "p4", "p1": "p4", "p2": "p4", "p3": "p4", "p4": "p0"})
    g2 = _impostor_game("p0", {"p1": "p2", "p2": "p1", "p3": "p2", "p4": "p2", "p0": "p2"})
    g3 = _impostor_game("p1", {"p0": "p1", "p2": "p3", "p3": "p1", "p4": "p1", "p1": "p0"},
                        guess="gatto")
    assert (g1["outcome"], g2["outcome"], g3["outcome"]) == ("innocents", "impostors",
                                                             "impostors")
    return [g1, g2, g3]


def test_points_add_up_game_after_game():
    """002 Punti e premi: I punti si sommano partita dopo partita."""
    ev = evening(scripted_evening())
    assert ev["games"] == 3
    assert ev["points"] == {"p0": 5, "p1": 3, "p2": 1, "p3": 2, "p4": 1}
    assert ev["names"] == {f"p{i}": f"Name{i}" for i in range(5)}


def test_the_podium_at_the_end_of_each_game():
    """002: A fine serata arrivano il podio (issue 9: at the end of each game too): the first
    three places by points, ties sharing a place."""
    results = scripted_evening()
    assert evening(results[:1])["podium"] == [{"place": 1, "points": 1,
                                               "players": ["p0", "p1", "p2", "p3"]}]
    assert evening(results)["podium"] == [
        {"place": 1, "points": 5, "players": ["p0"]},
        {"place": 2, "points": 3, "players": ["p1"]},
        {"place": 3, "points": 2, "players": ["p3"]},
    ]
    assert podium({"a": 4, "b": 4, "c": 2, "d": 1, "e": 0}) == [
        {"place": 1, "points": 4, "players": ["a", "b"]},
        {"place": 3, "points": 2, "players": ["c"]},
    ]
    assert podium({"a": 0}) == []


def test_awards_only_from_the_third_game():
    """002: ... e, dalla terza partita, i premi."""
    results = scripted_evening()
    assert evening(results[:2])["awards"] == []
    assert evening(results)["awards"]


def _award(results: list[dict], name: str) -> dict | None:
    return next((a for a in evening(results)["awards"] if a["award"] == name), None)


def test_award_miglior_detective_most_votes_on_impostors():
    """Miglior detective (docs/rules.md): most votes on impostors, cast as an innocent."""
    assert _award(scripted_evening(), "best_detective") == {
        "award": "best_detective", "players": ["p0", "p3"], "value": 2}


def test_award_impostore_imprendibile_most_games_as_impostor_never_eliminated():
    """Impostore imprendibile: most games as an impostor without being eliminated."""
    assert _award(scripted_evening(), "uncatchable") == {
        "award": "uncatchable", "players": ["p0"], "value": 1}


def test_award_lettore_del_pensiero_most_right_guesses():
    """Lettore del pensiero: most right guesses of the secret word."""
    assert _award(scripted_evening(), "mind_reader") == {
        "award": "mind_reader", "players": ["p1"], "value": 1}


def test_award_faccia_sospetta_most_votes_received_as_an_innocent():
    """Faccia sospetta: most votes received as an innocent."""
    assert _award(scripted_evening(), "suspicious_face") == {
        "award": "suspicious_face", "players": ["p2"], "value": 4}


def test_award_fuoco_amico_most_votes_on_innocents_as_an_innocent():
    """Fuoco amico: most votes on innocents, cast as an innocent."""
    assert _award(scripted_evening(), "friendly_fire") == {
        "award": "friendly_fire", "players": ["p2"], "value": 2}


def test_award_capro_espiatorio_most_times_eliminated_as_an_innocent():
    """Capro espiatorio: most times eliminated as an innocent."""
    assert _award(scripted_evening(), "scapegoat") == {
        "award": "scapegoat", "players": ["p2"], "value": 1}


def test_award_sfortunato_most_games_lost():
    """Sfortunato: most games lost."""
    assert _award(scripted_evening(), "unlucky") == {
        "award": "unlucky", "players": ["p4"], "value": 3}


def test_award_camaleonte_won_on_both_sides():
    """Camaleonte: won as an innocent and as an impostor (the smaller count decides)."""
    assert _award(scripted_evening(), "chameleon") == {
        "award": "chameleon", "players": ["p0", "p1"], "value": 1}


def test_an_award_nobody_scored_in_is_not_given_and_games_without_stats_count_nothing():
    """An award with a best score of 0 goes to nobody; a result from before stats existed
    (stored earlier) adds its points only."""
    results = scripted_evening()
    quiet = [dict(r, stats={pid: dict(st, guessed=None) for pid, st in r["stats"].items()})
             for r in results]
    assert _award(quiet, "mind_reader") is None
    old = {"points": {"p9": 4}, "players": [{"id": "p9", "name": "Old"}]}
    ev = evening([old, *results])
    assert ev["points"]["p9"] == 4 and ev["names"]["p9"] == "Old"
    assert {a["award"] for a in ev["awards"]} == {a["award"] for a in awards(results)}


def test_at_least_eight_awards_each_with_a_definition():
    """Issue 9: Miglior detective, Impostore imprendibile, Lettore del pensiero, Faccia
    sospetta, Fuoco amico and at least three more."""
    assert {"best_detective", "uncatchable", "mind_reader", "suspicious_face",
            "friendly_fire"} <= set(AWARD_NAMES)
    assert len(AWARD_NAMES) >= 8


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_engine_fills_the_one_stats_schema(preset):
    """game/evening.py: every preset's finished game carries points and per-player stats in
    the one schema (docs/architecture.md, "The evening's statistics")."""
    state, broken, _ = play(preset, 8, 3)
    assert not broken and state.phase == "over"
    res = result(state)
    ids = {p["id"] for p in res["players"]}
    assert set(res["points"]) == set(res["stats"]) == ids
    for st in res["stats"].values():
        assert tuple(st) == STAT_KEYS
        assert st["side"] in ("innocent", "impostor", "other")
        assert isinstance(st["won"], bool) and isinstance(st["eliminated"], bool)
        assert st["guessed"] in (True, False, None)
        assert all(isinstance(st[k], int) and st[k] >= 0 for k in
                   ("votes_on_impostors", "votes_on_innocents", "votes_received"))
    assert {pid for pid, st in res["stats"].items() if st["won"]} == set(res["winners"])


def test_an_evening_of_several_engines():
    """Undercover and Impostore games add up on the same evening."""
    g = uc.Play(uc.start("intruso", n=5))
    g.eliminate("p4", "p0")  # every Civile voted the Intruso: 1 point each
    mixed = [result(g.s), *scripted_evening()]
    ev = evening(mixed)
    assert ev["games"] == 4
    assert ev["points"] == {"p0": 6, "p1": 4, "p2": 2, "p3": 3, "p4": 1}
    assert ev["awards"]


def test_secret_ballots_add_nothing_to_the_awards_on_cast_votes():
    """Issue 29: a secret ballot stays secret at the end, so Miglior detective and Fuoco
    amico count open ballots only (one secret ballot would make a player's "votes on
    impostors" their vote); its public tally still counts for Faccia sospetta."""
    secret = []
    for _ in range(3):
        g = imp.Play(imp.start("esperti", n=5, roles={"p4": "impostore"}))
        g.to_vote()
        g.votes({"p0": "p4", "p1": "p2", "p2": "p4", "p3": "p4", "p4": "p2"})
        g.act("p4", type="guess", word="zebra")
        secret.append(result(g.s))
    assert all(st["votes_on_impostors"] == st["votes_on_innocents"] == 0
               for res in secret for st in res["stats"].values())
    assert secret[0]["stats"]["p2"]["votes_received"] == 2
    assert secret[0]["points"] == {"p0": 1, "p1": 0, "p2": 1, "p3": 1, "p4": 0}
    names = {a["award"] for a in evening(secret)["awards"]}
    assert "best_detective" not in names and "friendly_fire" not in names
    assert _award(secret, "suspicious_face") == {
        "award": "suspicious_face", "players": ["p2"], "value": 6}
    # The same games with open votes give both awards.
    assert _award(scripted_evening(), "best_detective") is not None
