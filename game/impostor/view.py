"""What one player may know of an Impostore game; the result, its points and stats.

`view(state, pid)` is the only way state leaves the core. A player sees their
own card (word and category, or for an impostor the hint, the category or
nothing, as the room chose), the facts their card gives them (`me.known`:
the Complice's impostors, the twin, fellow impostors), the public course of
the game, and the roles revealed at elimination. Never: another player's
word or role, who asked "Non conosco la parola" (not even a count per
player), or under the secret vote who voted whom (only the tallies).

`view(state, None)` is a spectator's view: the public part only.
"""

from __future__ import annotations

from typing import Any

from ..errors import GameError
from ..evening import ballot_counts, player_stats
from . import wordbank
from .engine import allowed_actions
from .policy import audio_policy
from .state import COMPLICE, IMPOSTORE, PAGLIACCIO, SIDE, GameState

VOTING = ("vote", "runoff")


def view(state: GameState, pid: str | None) -> dict[str, Any]:
    """The JSON-able view of `state` for `pid` (None: a spectator)."""
    s = state
    if pid is not None and (not isinstance(pid, str) or not s.has(pid)):
        raise GameError("unknown_player", "no such player", player=str(pid)[:40])
    voting = s.phase in VOTING
    open_votes = not s.options["secret_vote"]
    guided = s.options["turns"] == "guided"
    ready_shown = s.phase == "card" or (s.phase == "clues" and not guided)
    players = [
        {
            "id": pl.id,
            "name": pl.name,
            "alive": pl.alive,
            "revealed_role": pl.revealed_role,
            "ready": pl.id in s.ready if ready_shown else False,
            "voted": (pl.id in s.votes if voting
                      else pl.id in s.word_votes if s.phase == "word_vote" else False),
            # Open voting: everyone sees whom each player votes for, as it happens.
            "vote": s.votes.get(pl.id) if voting and open_votes else None,
            "known_innocent": pl.id in s.known_innocent,
        }
        for pl in s.players
    ]
    last = s.ballots[-1] if s.ballots else None
    out: dict[str, Any] = {
        "game": s.game,
        "preset": s.preset,
        "lang": s.options["lang"],
        "phase": s.phase,
        "round": s.round,
        "clue_round": s.clue_round,
        "rounds": s.options["rounds"],
        "phase_started": s.phase_started,
        "deadline": s.deadline,
        "rules": {
            "turns": s.options["turns"],
            "floor": s.options["floor"],
            "win_mode": s.options["win_mode"],
            "secret_vote": s.options["secret_vote"],
            "impostor_info": s.options["impostor_info"],
            "first_innocent": s.options["first_innocent"],
            "impostors_know": s.options["impostors_know"],
        },
        "impostors": s.impostor_count if s.options["impostors"] != "random" else None,
        "roles": list(s.roles_in_play),
        "turn": s.order[s.turn_index] if s.phase == "clues" and guided else None,
        "order": list(s.order),
        "players": players,
        "candidates": list(s.candidates) if voting else [],
        "turns_taken": [{"phase": t.phase, "round": t.round, "player": t.player,
                         "ended": t.ended} for t in s.turns],
        "eliminations": [{"player": e.player, "role": e.role, "round": e.round}
                         for e in s.eliminations],
        "word_request": {
            "left": s.requests_left,
            "open": s.phase == "word_vote",
            "last": dict(s.last_word_vote) if s.last_word_vote else None,
        },
        "vote_counts": dict(last.tally) if last is not None and not voting else None,
        "ballot": dict(last.votes) if last is not None and not voting and open_votes else None,
        "me": _me(s, pid) if pid is not None else None,
        "acting": s.acting if s.phase == "guess" else None,
        "result": result(s),
    }
    return out


def _me(s: GameState, pid: str) -> dict[str, Any]:
    """The player's own card: what it shows depends on the role and the room's options."""
    me = s.player(pid)
    impostor = me.role == IMPOSTORE
    info = s.options["impostor_info"]
    shows_category = not impostor or info == "category"
    category = s.category if shows_category else None
    return {
        "id": pid,
        "alive": me.alive,
        "role": me.role,
        "word": None if impostor else s.word,
        "category": category,
        "category_name": (wordbank.category_name(s.options["lang"], category)
                          if category is not None else None),
        "hint": s.hint if impostor and info == "hint" else None,
        "impostor_count": (s.impostor_count if impostor and s.options["tell_count"]
                           and s.options["impostors"] == "random" else None),
        "known": [dict(k) for k in me.known],
        "vote": s.votes.get(pid) if s.phase in VOTING else None,
        "word_vote": s.word_votes.get(pid) if s.phase == "word_vote" else None,
        "asked": pid in s.asked,
        "can": allowed_actions(s, pid),
        "muted": audio_policy(s).muted.get(pid),
    }


# ---------------------------------------------------------------- the end


def points(s: GameState) -> dict[str, int]:
    """002 "Punti e premi" for a finished game (empty while it runs).

    Innocents (the Gemelli too): 1 per impostor they voted at least once (in a
    closed ballot), even if the impostors win; on one phone 1 per impostor out at
    the end (the table votes together). Impostors, if they win: 3 never
    eliminated, 2 eliminated but guessed the word, 1 eliminated without. The
    Complice: 2 if the impostors win. The Pagliaccio: 3 if eliminated, and then
    nobody else scores.
    """
    if s.phase != "over":
        return {}
    pts = {pl.id: 0 for pl in s.players}
    if s.outcome == "pagliaccio":
        for pid in s.winners:
            pts[pid] = 3
        return pts
    impostors = {pl.id for pl in s.players if pl.role == IMPOSTORE}
    right = {g["player"] for g in s.guesses if g["right"]}
    won = s.outcome == "impostors"
    # One phone: the ballots keep tallies only (who pointed at whom is never known); the
    # table votes together, so every innocent scores the impostors it put out.
    table_found = ({pl.id for pl in s.players if not pl.alive} & impostors
                   if s.options.get("one_phone") else None)
    for pl in s.players:
        side = SIDE[pl.role]
        if side == "innocent" and table_found is not None:
            pts[pl.id] = len(table_found)
        elif side == "innocent":
            voted = {t for b in s.ballots for v, t in b.votes.items() if v == pl.id}
            pts[pl.id] = len(voted & impostors)
        elif pl.role == IMPOSTORE and won:
            pts[pl.id] = 3 if pl.alive else 2 if pl.id in right else 1
        elif pl.role == COMPLICE and won:
            pts[pl.id] = 2
    return pts


def stats(s: GameState) -> dict[str, dict[str, Any]]:
    """Each player's statistics in the evening's shared schema (game/evening.py).

    Under the secret vote no ballot counts in the votes a player cast: who voted whom
    stays secret, also at the end (only the tallies and the points are told)."""
    sides = {pl.id: SIDE[pl.role] for pl in s.players}
    open_ballots = [] if s.options["secret_vote"] else [b.votes for b in s.ballots]
    counts = ballot_counts(sides, open_ballots, [b.tally for b in s.ballots])
    guessed = {g["player"]: bool(g["right"]) for g in s.guesses}
    return {
        pl.id: player_stats(side=sides[pl.id], role=pl.role, won=pl.id in s.winners,
                            eliminated=not pl.alive, counts=counts[pl.id],
                            guessed=guessed.get(pl.id))
        for pl in s.players
    }


def result(s: GameState) -> dict[str, Any] | None:
    """Everything, at the end: roles, every word dealt, the hint, ballots (open votes
    only), guesses, points and stats. None while the game runs."""
    if s.phase != "over":
        return None
    open_votes = not s.options["secret_vote"]
    sides: dict[str, list[str]] = {"innocents": [], "impostors": [], "others": []}
    for pl in s.players:
        key = {"innocent": "innocents", "impostor": "impostors"}.get(SIDE[pl.role], "others")
        sides[key].append(pl.id)
    return {
        "outcome": s.outcome,
        "winners": list(s.winners),
        "sides": sides,
        "word": s.word,
        "words_dealt": list(s.words_seen),
        "hint": s.hint,
        "category": s.category,
        "category_name": wordbank.category_name(s.options["lang"], s.category),
        "players": [
            {"id": pl.id, "name": pl.name, "role": pl.role, "alive": pl.alive,
             "won": pl.id in s.winners}
            for pl in s.players
        ],
        "pagliaccio": next((pl.id for pl in s.players if pl.role == PAGLIACCIO), None),
        "guesses": [dict(g) for g in s.guesses],
        "ballots": [{"round": b.round, "kind": b.kind, "tally": dict(b.tally),
                     "votes": dict(b.votes) if open_votes else None} for b in s.ballots],
        "turns_taken": [{"phase": t.phase, "round": t.round, "player": t.player,
                         "ended": t.ended} for t in s.turns],
        "rounds": s.round,
        "points": points(s),
        "stats": stats(s),
    }
