"""What one player may know: `view(state, pid)` is the only way state leaves the core.

Secrets are removed here and nowhere else. Everyone sees the phase, its
deadline, who is alive, who became a ghost and how (never the card), the
narration, the nominees, who has voted (never for whom in the lynch) and,
once the nomination closes, who named whom (004: everyone says it aloud).
A player sees their own card; a wolf also sees the pack (004: the wolves
recognise each other) and, during the wolves' phase, every living wolf's
pick; the veggente sees the answers to their own looks. A ghost learns no
new secret. A human moderator sees every card and every night choice and
the lynch's ballots. At `over`, `result` reveals everything.

`view(state, None)` is a spectator's view: public information only, `me` None.

Nothing a player receives at night depends on who holds which card or on
whether the seer is alive: the night's public part (phase, deadline,
narration) is the same for everyone and changes only with the clock.
"""

from __future__ import annotations

from typing import Any

from ..errors import GameError
from ..evening import ballot_counts, player_stats, tally_of
from .engine import allowed_actions
from .policy import audio_policy
from .state import LUPI, LUPO, UMANI, VEGGENTE, GameState

VOTING = ("nomination", "lynch")


def view(state: GameState, pid: str | None) -> dict[str, Any]:
    """The JSON-able view of `state` for `pid` (a role holder or the moderator);
    `pid` None: a spectator's (public information only)."""
    s = state
    if pid is not None and not s.seated(pid):
        raise GameError("unknown_player", "no such player", player=str(pid)[:40])
    voting = s.phase in VOTING
    out: dict[str, Any] = {
        "game": s.game,
        "preset": s.preset,
        "lang": s.options["lang"],
        "phase": s.phase,
        "day": s.day,
        "round": s.day,
        "phase_started": s.phase_started,
        "deadline": s.deadline,
        "moderator": dict(s.moderator) if s.moderator else None,
        "narration": narration(s),
        "players": [
            {
                "id": pl.id,
                "name": pl.name,
                "alive": pl.alive,
                "ready": s.phase == "day" and pl.id in s.ready,
                "voted": voting and pl.id in s.votes,
            }
            for pl in s.players
        ],
        "candidates": list(s.candidates) if voting else [],
        "nominees": list(s.nominees) if s.phase in ("defence", "lynch") else [],
        "defender": s.defending(),
        # Who named whom is public once the nomination closes (004: said aloud);
        # the lynch is secret: only its counts are shown.
        "nomination_votes": (
            dict(s.last_nomination)
            if s.phase in ("defence", "lynch") and s.last_nomination is not None else None
        ),
        "vote_counts": (
            dict(s.last_tally) if s.phase in ("defence", "night") and s.last_tally is not None
            else None
        ),
        "deaths": [{"player": d.player, "day": d.day, "cause": d.cause} for d in s.deaths],
        "me": _me(s, pid) if pid is not None else None,
        "secrets": _moderator_secrets(s) if s.is_moderator(pid) else None,
        "result": result(s),
    }
    return out


def _me(s: GameState, pid: str) -> dict[str, Any]:
    policy = audio_policy(s)
    base = {
        "id": pid,
        "can": allowed_actions(s, pid),
        "muted": policy.muted.get(pid),
        "vote": s.votes.get(pid) if s.phase in VOTING else None,
    }
    if s.is_moderator(pid):
        return {**base, "moderator": True, "alive": True, "role": None, "pack": [],
                "seen": [], "bite": None, "pack_picks": None}
    me = s.player(pid)
    wolf = me.role == LUPO
    # The living pack sees every wolf's pick during its phase; a ghost learns nothing new.
    picks = wolf and me.alive and s.phase == "wolves"
    return {
        **base,
        "moderator": False,
        "alive": me.alive,
        "role": me.role,
        "pack": s.wolves(alive_only=False) if wolf else [],
        "seen": (
            [{"night": p.night, "player": p.player, "wolf": p.wolf} for p in s.peeks]
            if me.role == VEGGENTE else []
        ),
        "bite": s.bites.get(pid) if picks else None,
        "pack_picks": dict(s.bites) if picks else None,
    }


def _moderator_secrets(s: GameState) -> dict[str, Any]:
    """The moderator sees every card and every night choice, and counts the secret ballots."""
    return {
        "roles": {pl.id: pl.role for pl in s.players},
        "peeks": [{"night": p.night, "player": p.player, "wolf": p.wolf} for p in s.peeks],
        "bites": dict(s.bites),
        "votes": dict(s.votes),
    }


def narration(s: GameState) -> dict[str, Any]:
    """What the moderator says now: the same lines for everyone, from public facts only.

    `by`: "app" (the browsers show it and, if `speak`, say it aloud in the
    room's language) or "moderator" (a seated human reads it; the app only
    shows it). `lines`: [{key, player?, players?}], translated by the client.
    """
    lines: list[dict[str, Any]] = []
    last = s.deaths[-1] if s.deaths else None
    if s.phase == "night":
        if last is not None and last.cause == "lynched" and last.day == s.day - 1:
            lines.append({"key": "lynched", "player": last.player})
        lines.append({"key": "night_falls"})
    elif s.phase == "seer":
        lines.append({"key": "seer_wakes"})  # called even when the seer is a ghost (004)
    elif s.phase == "wolves":
        if s.options["veggente"]:
            lines.append({"key": "seer_sleeps"})
        lines.append({"key": "wolves_wake"})
    elif s.phase == "day":
        lines += [{"key": "wolves_sleep"}, {"key": "day_breaks"}]
        if last is not None and last.cause == "devoured" and last.day == s.day:
            lines.append({"key": "devoured", "player": last.player})
        lines.append({"key": "discuss"})
    elif s.phase == "nomination":
        lines.append({"key": "nominate"})
    elif s.phase == "defence":
        if s.defender == 0:
            lines.append({"key": "nominated", "players": list(s.nominees)})
        lines.append({"key": "defend", "player": s.defending()})
    elif s.phase == "lynch":
        lines.append({"key": "lynch_vote", "players": list(s.nominees)})
    elif s.phase == "over":
        if last is not None:
            lines.append({"key": last.cause, "player": last.player})
        lines.append({"key": f"{s.outcome}_win"})
    mod = s.moderator is not None
    return {
        "by": "moderator" if mod else "app",
        "speak": not mod and bool(s.options["narration_voice"]),
        "lines": lines,
    }


# ---------------------------------------------------------------- the end


# The points of one game (docs/rules-lupi.md): every member of the winning faction
# scores one point, ghosts included; a winner still alive at the end scores one more.
WIN_POINTS = 1
SURVIVOR_POINTS = 1


def result(s: GameState) -> dict[str, Any] | None:
    """Everything, at the end: every card, who won, the night's looks, points and stats.

    None while the game runs.
    """
    if s.phase != "over":
        return None
    won = set(s.winners)
    points = {
        pl.id: (WIN_POINTS + (SURVIVOR_POINTS if pl.alive else 0)) if pl.id in won else 0
        for pl in s.players
    }
    return {
        "outcome": s.outcome,
        "winners": list(s.winners),
        "sides": {UMANI: s.humans(alive_only=False), LUPI: s.wolves(alive_only=False)},
        "players": [
            {"id": pl.id, "name": pl.name, "role": pl.role, "alive": pl.alive,
             "won": pl.id in won}
            for pl in s.players
        ],
        "moderator": dict(s.moderator) if s.moderator else None,
        "deaths": [{"player": d.player, "day": d.day, "cause": d.cause} for d in s.deaths],
        "peeks": [{"night": p.night, "player": p.player, "wolf": p.wolf} for p in s.peeks],
        "rounds": s.day,
        "points": points,
        "stats": _stats(s, won),
    }


def _stats(s: GameState, won: set[str]) -> dict[str, dict[str, Any]]:
    """Per player, for the evening, in the stats schema every engine shares: side (humans
    innocent, wolves impostor), role, won, eliminated, the votes cast on each side in the
    nominations (public: 004 has each say it aloud), the votes received in nominations
    and lynches (their tallies are public), guessed (None: no guess here).

    The lynch is secret: its votes never count per voter, or the nominations subtracted
    from the totals would tell each voter's lynch vote."""
    wolves = set(s.wolves(alive_only=False))
    side = {pl.id: "impostor" if pl.id in wolves else "innocent" for pl in s.players}
    ballots: dict[tuple[str, int], dict[str, str]] = {}
    for stage, day, voter, target in s.ballots:
        ballots.setdefault((stage, day), {})[voter] = target
    nominations = [votes for (stage, _day), votes in ballots.items() if stage == "nomination"]
    counts = ballot_counts(side, nominations, [tally_of(v) for v in ballots.values()])
    return {
        pl.id: player_stats(side=side[pl.id], role=pl.role, won=pl.id in won,
                            eliminated=not pl.alive, counts=counts[pl.id], guessed=None)
        for pl in s.players
    }
