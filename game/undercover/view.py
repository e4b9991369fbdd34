"""What one player may know: `view(state, pid)` is the only way state leaves the core.

Secrets (words, roles, powers, who voted whom) are removed here and nowhere
else. A player sees their own word and power, the facts they were shown
(`me.known`), their own vote, the roles the rules revealed, and who has voted
(never for whom). The tally of a ballot is shown once it is closed. At
`over`, `result` reveals everything.

`view(state, None)` is a spectator's view (a shared screen): what every
player may see, and nothing of anyone's own card (`me` is None).
"""

from __future__ import annotations

from typing import Any

from ..errors import GameError
from ..evening import ballot_counts, player_stats, tally_of
from .engine import allowed_actions
from .policy import audio_policy
from .presets import get_preset
from .state import CIVILE, FANTASMA, GameState


def view(state: GameState, pid: str | None) -> dict[str, Any]:
    """The JSON-able view of `state` for player `pid` (docs/contracts.md shape);
    `pid` None: a spectator's (public information only)."""
    s = state
    if pid is not None and (not isinstance(pid, str) or not s.has(pid)):
        raise GameError("unknown_player", "no such player", player=str(pid)[:40])
    policy = audio_policy(s)
    whisper_to = policy.whisper.get(pid, frozenset()) if pid is not None else frozenset()
    voting = s.phase in ("vote", "revote")
    players = [
        {
            "id": pl.id,
            "name": pl.name,
            "alive": pl.alive,
            "revealed_role": pl.revealed_role,
            "ready": pl.id in s.ready if s.phase == "debate" or s.reading else False,
            "voted": pl.id in s.votes if voting else False,
            "whisper_ok": pl.id in whisper_to,
        }
        for pl in s.players
    ]
    out: dict[str, Any] = {
        "game": s.game,
        "preset": s.preset,
        "lang": s.options["lang"],
        "phase": s.phase,
        "round": s.round,
        "phase_started": s.phase_started,
        "deadline": s.deadline,
        "turn": s.order[s.turn_index] if s.phase == "clues" else None,
        # the first clue waits while the players read their cards (until `deadline`)
        "reading": s.reading,
        "order": list(s.order),
        "players": players,
        "candidates": _candidates(s, pid),
        "clues": [
            {"round": c.round, "player": c.player, "text": c.text, "skipped": c.skipped,
             "spoken": c.spoken}
            for c in s.clues
        ],
        "eliminations": [
            {"player": e.player, "role": e.role, "round": e.round, "cause": e.cause}
            for e in s.eliminations
        ],
        "me": _me(s, pid, policy, voting) if pid is not None else None,
        # Who must act now; the Giudice's identity stays secret (only he sees himself).
        "acting": _acting(s, pid),
        "vote_counts": dict(s.last_tally) if s.last_tally is not None and not voting else None,
        "result": result(s),
    }
    return out


def _me(s: GameState, pid: str, policy: Any, voting: bool) -> dict[str, Any]:
    """The player's own card and choices. Eliminated players learn no new secret:
    their facts stop where they died."""
    me = s.player(pid)
    return {
        "id": pid,
        "alive": me.alive,
        "word": me.word,
        "role": me.role if me.role == FANTASMA else None,
        "power": me.power,
        "known": [dict(k) for k in me.known],
        "vote": s.votes.get(pid) if voting else None,
        "can": allowed_actions(s, pid),
        "muted": policy.muted.get(pid),
        "drunk": pid in policy.drunk,
    }


def _acting(s: GameState, pid: str | None) -> str | None:
    if s.phase in ("avenge", "guess"):
        return s.acting  # the just-eliminated player, known to all
    if s.phase == "judge" and s.acting == pid:
        return pid
    return None


def _candidates(s: GameState, pid: str | None) -> list[str]:
    if s.phase in ("vote", "revote"):
        return list(s.candidates)
    if s.phase == "judge":
        return list(s.candidates)  # the tied players are public; the choice is secret
    if s.phase == "avenge" and s.acting == pid:
        return list(s.candidates)
    return []


def result(s: GameState) -> dict[str, Any] | None:
    """Everything, at the end: roles, words, powers, both words side by side, winners.

    None while the game runs.
    """
    if s.phase != "over":
        return None
    sides: dict[str, list[str]] = {"civili": [], "infiltrati": []}
    for pl in s.players:
        sides["civili" if pl.role == "civile" else "infiltrati"].append(pl.id)
    return {
        "outcome": s.outcome,
        "winners": list(s.winners),
        "sides": sides,
        "words": {"civili": s.word_civili, "intrusi": s.word_intrusi},
        "category": s.category,
        "players": [
            {
                "id": pl.id,
                "name": pl.name,
                "role": pl.role,
                "word": pl.word,
                "power": pl.power,
                "alive": pl.alive,
                "won": pl.id in s.winners,
            }
            for pl in s.players
        ],
        "cupid": list(s.cupid),
        "drunk": list(s.drunk),
        "guesses": [dict(g) for g in s.guesses],
        "clues": [
            {"round": c.round, "player": c.player, "text": c.text, "skipped": c.skipped,
             "spoken": c.spoken}
            for c in s.clues
        ],
        "rounds": s.round,
        "points": points(s),
        "stats": stats(s),
    }


def _side(role: str) -> str:
    return "innocent" if role == CIVILE else "impostor"


def points(s: GameState) -> dict[str, int]:
    """docs/rules.md "Points": the undercover games' table, in the spirit of 002's.

    Civili: 1 per infiltrator they voted at least once (closed ballots), whoever
    wins; on one phone (the table's tallies only) 1 per infiltrator out at the end. Infiltrators whose camp wins: 3 never eliminated, 2 eliminated but
    guessed the word, 1 eliminated. A Fantasma who wins alone by guessing: 3.
    The Buffone who wins alone: 3, and nobody else scores. A Cupido pair member
    who wins only through the pair: 2. Empty while the game runs.
    """
    if s.phase != "over":
        return {}
    pts = {pl.id: 0 for pl in s.players}
    if s.outcome == "buffone":
        for pid in s.winners:
            pts[pid] = 3
        return pts
    infiltrators = {pl.id for pl in s.players if pl.role != CIVILE}
    right = {g["player"] for g in s.guesses if g["right"]}
    # Infiltré: the Amnésique's right guess wins for the whole camp (001).
    camp_won = s.outcome == "infiltrati" or (s.outcome == "fantasma"
                                            and get_preset(s.preset).guess_wins_camp)
    # One phone: only the table's tallies are known, never who pointed at whom; the
    # table votes together, so every Civile scores the infiltrators it put out.
    table_found = ({pl.id for pl in s.players if not pl.alive} & infiltrators
                   if s.options.get("one_phone") else None)
    for pl in s.players:
        if pl.role == CIVILE:
            if table_found is not None:
                pts[pl.id] = len(table_found)
                continue
            voted = {t for b in s.ballots for v, t in b.items() if v == pl.id}
            pts[pl.id] = len(voted & infiltrators)
        elif camp_won:
            pts[pl.id] = 3 if pl.alive else 2 if pl.id in right else 1
        elif s.outcome == "fantasma" and pl.id in right:
            pts[pl.id] = 3  # the Fantasma's guess wins alone (000)
    if s.outcome == "civili":
        by_side = {pl.id for pl in s.players if pl.role == CIVILE}
    elif camp_won:
        by_side = infiltrators
    else:
        by_side = right
    for pid in set(s.winners) - by_side:  # won only through the Cupido pair
        pts[pid] += 2
    return pts


def stats(s: GameState) -> dict[str, dict[str, Any]]:
    """Each player's statistics in the evening's shared schema (game/evening.py).

    Every ballot here is secret: none counts in the votes a player cast (who voted
    whom stays secret, also at the end); the tallies give the votes received."""
    sides = {pl.id: _side(pl.role) for pl in s.players}
    counts = ballot_counts(sides, [], [tally_of(b) for b in s.ballots])
    guessed = {g["player"]: bool(g["right"]) for g in s.guesses}
    return {
        pl.id: player_stats(side=sides[pl.id], role=pl.role, won=pl.id in s.winners,
                            eliminated=not pl.alive, counts=counts[pl.id],
                            guessed=guessed.get(pl.id))
        for pl in s.players
    }
