"""An evening of games in one room: points, the podium and the awards, for every engine.

The room keeps the `result` of every finished game (any engine, also after a
restart). Each result carries:

- `points`: {pid: points} of that game (each engine's own table, docs/rules.md);
- `stats`: {pid: stats} in the one schema below, from which the awards come;
- `players`: [{id, name, ...}] (the names shown on the podium).

The stats schema, the same for every engine (docs/architecture.md, "The
evening's statistics"): per player of the game

| key | value |
|---|---|
| `side` | `"innocent"` (Civili, innocents, villagers), `"impostor"` (Intrusi, Fantasmi, impostors, wolves) or `"other"` (Complice, Pagliaccio, ...) |
| `role` | the engine's role name (`civile`, `impostore`, `complice`, ...) |
| `won` | bool |
| `eliminated` | bool: out of the game before its end |
| `votes_on_impostors` | votes this player cast, in closed ballots that were open, on players of side impostor |
| `votes_on_innocents` | ... on players of side innocent |
| `votes_received` | votes cast on this player in closed ballots (open or secret) |
| `guessed` | the secret-word guess: true (right), false (wrong or none given), null (no guess due) |

A "closed ballot" is every vote that counted when a ballot closed (a vote
changed before the close does not count; runoffs count).

One rule for every engine: a ballot that was secret stays secret, also at
the end. An open ballot (everyone saw who voted whom) counts in the votes a
player cast; a secret one (Impostore's `secret_vote`, every undercover
ballot, Lupi's lynch) never does, as anything counted per voter would tell,
compared with the tallies, how someone voted. Its tally is public, so it
counts in `votes_received`. The awards built on the cast votes (Miglior
detective, Fuoco amico) therefore count open ballots only.

`evening(results)` turns the list into what the room shows: totals, the
podium, and from the third game on the awards (`AWARDS`, docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

SIDES = ("innocent", "impostor", "other")
STAT_KEYS = ("side", "role", "won", "eliminated", "votes_on_impostors", "votes_on_innocents",
             "votes_received", "guessed")
AWARDS_FROM_GAME = 3
PODIUM_PLACES = 3


def ballot_counts(sides: Mapping[str, str], open_ballots: Iterable[Mapping[str, str]],
                  tallies: Iterable[Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Per player: votes on impostors and on innocents cast in the closed open ballots
    (`open_ballots`: voter -> target, who voted whom was shown to all), and votes
    received from the tallies of every closed ballot (public even when it was secret).

    The votes of a secret ballot are never passed here: the core keeps them for the
    points alone (module docstring).
    """
    out = {pid: {"votes_on_impostors": 0, "votes_on_innocents": 0, "votes_received": 0}
           for pid in sides}
    for votes in open_ballots:
        for voter, target in votes.items():
            if voter in out and target in out:
                side = sides[target]
                if side == "impostor":
                    out[voter]["votes_on_impostors"] += 1
                elif side == "innocent":
                    out[voter]["votes_on_innocents"] += 1
    for tally in tallies:
        for target, n in tally.items():
            if target in out:
                out[target]["votes_received"] += int(n)
    return out


def tally_of(votes: Mapping[str, str]) -> dict[str, int]:
    """A closed ballot's public tally from its votes (candidates nobody chose left out)."""
    out: dict[str, int] = {}
    for target in votes.values():
        out[target] = out.get(target, 0) + 1
    return out


def player_stats(*, side: str, role: str, won: bool, eliminated: bool,
                 counts: Mapping[str, int], guessed: bool | None) -> dict[str, Any]:
    """One player's stats in the shared schema (counts from `ballot_counts`)."""
    assert side in SIDES, side
    return {"side": side, "role": role, "won": bool(won), "eliminated": bool(eliminated),
            "votes_on_impostors": int(counts.get("votes_on_impostors", 0)),
            "votes_on_innocents": int(counts.get("votes_on_innocents", 0)),
            "votes_received": int(counts.get("votes_received", 0)),
            "guessed": guessed}


# ---------------------------------------------------------------- awards

Stat = Mapping[str, Any]


def _innocent(st: Stat, key: str) -> int:
    return int(st.get(key) or 0) if st.get("side") == "innocent" else 0


# Each award: (id, what one game's stats add to a player's score). The highest
# evening score wins it (ties share it); nobody gets it with a score of 0. Every
# score is public data: a secret ballot is in no player's cast votes (above).
AWARDS: tuple[tuple[str, Callable[[Stat], int]], ...] = (
    # Miglior detective: most votes on impostors, cast as an innocent (open ballots).
    ("best_detective", lambda st: _innocent(st, "votes_on_impostors")),
    # Impostore imprendibile: most games as an impostor without being eliminated.
    ("uncatchable", lambda st: int(st.get("side") == "impostor" and not st.get("eliminated"))),
    # Lettore del pensiero: most right guesses of the secret word.
    ("mind_reader", lambda st: int(st.get("guessed") is True)),
    # Faccia sospetta: most votes received as an innocent.
    ("suspicious_face", lambda st: _innocent(st, "votes_received")),
    # Fuoco amico: most votes on innocents, cast as an innocent (open ballots).
    ("friendly_fire", lambda st: _innocent(st, "votes_on_innocents")),
    # Capro espiatorio: most times eliminated as an innocent.
    ("scapegoat", lambda st: int(st.get("side") == "innocent" and bool(st.get("eliminated")))),
    # Sfortunato: most games lost.
    ("unlucky", lambda st: int(not st.get("won"))),
)
# Camaleonte: won on both sides; the score is the smaller of the two win counts.
CHAMELEON = "chameleon"
AWARD_NAMES = tuple(name for name, _ in AWARDS) + (CHAMELEON,)


def _winners_of(scores: Mapping[str, int]) -> tuple[list[str], int]:
    top = max(scores.values(), default=0)
    if top <= 0:
        return [], 0
    return sorted(pid for pid, v in scores.items() if v == top), top


def awards(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every award of the evening with who holds it: [{award, players, value}].

    An award nobody scored in is left out. Games without stats count for nothing.
    """
    games = [res.get("stats") or {} for res in results]
    out = []
    for name, score in AWARDS:
        scores: dict[str, int] = {}
        for stats in games:
            for pid, st in stats.items():
                scores[pid] = scores.get(pid, 0) + score(st)
        players, value = _winners_of(scores)
        if players:
            out.append({"award": name, "players": players, "value": value})
    wins: dict[str, dict[str, int]] = {}
    for stats in games:
        for pid, st in stats.items():
            if st.get("won") and st.get("side") in ("innocent", "impostor"):
                per = wins.setdefault(pid, {"innocent": 0, "impostor": 0})
                per[st["side"]] += 1
    players, value = _winners_of({pid: min(w.values()) for pid, w in wins.items()})
    if players:
        out.append({"award": CHAMELEON, "players": players, "value": value})
    return out


def podium(totals: Mapping[str, int]) -> list[dict[str, Any]]:
    """The first three places by points (ties share a place: 1, 1, 3); nobody with 0."""
    ranked = sorted(((n, pid) for pid, n in totals.items() if n > 0), key=lambda x: (-x[0], x[1]))
    places: list[dict[str, Any]] = []
    for i, (n, pid) in enumerate(ranked):
        if places and places[-1]["points"] == n:
            places[-1]["players"].append(pid)
        elif i + 1 <= PODIUM_PLACES:
            places.append({"place": i + 1, "points": n, "players": [pid]})
        else:
            break
    return places


def evening(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The evening so far from the finished games' results, oldest first (JSON-able):

    `{games, points: {pid: total}, names: {pid: name}, podium: [{place, points,
    players}], awards: [{award, players, value}]}`; `awards` is empty before
    the third game.
    """
    totals: dict[str, int] = {}
    names: dict[str, str] = {}
    for res in results:
        for pid, n in (res.get("points") or {}).items():
            totals[pid] = totals.get(pid, 0) + int(n)
        for pl in res.get("players") or []:
            if isinstance(pl, dict) and isinstance(pl.get("id"), str):
                names[pl["id"]] = str(pl.get("name", pl["id"]))
    return {
        "games": len(results),
        "points": totals,
        "names": names,
        "podium": podium(totals),
        "awards": awards(results) if len(results) >= AWARDS_FROM_GAME else [],
    }
