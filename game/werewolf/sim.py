"""The werewolf engine's random player and invariants, for `game.simulate`.

A random player acts from what its own view says it can do: the veggente
looks at a random living player, each wolf picks a random living human,
the living end the discussion, votes go to random candidates (a wolf spares
the pack, the veggente names a wolf it found and spares the humans it saw),
the nominee yields the floor, a moderator sometimes moves the game on.
Nobody talks or reasons: the win shares of `sussurro simulate --preset lupi`
are those of a table that votes almost at random (docs/rules-lupi.md).
"""

from __future__ import annotations

import random
from typing import Any

from ..errors import GameError
from ..simulate_common import check_refusals
from .engine import apply
from .presets import MIN_AUTO, auto_wolves
from .state import LUPI, LUPO, UMANI, VEGGENTE, GameState

OUTCOMES = (UMANI, LUPI)


def random_options(rng: random.Random, preset: str, n: int) -> dict[str, Any] | None:
    """The defaults at 8 or more; smaller tables get a number of wolves that fits."""
    if n >= MIN_AUTO:
        return None
    return {"lupi": max(1, min(2, (n - 2) // 2))}


def guess_pool(state: GameState) -> list[str]:
    """No guesses in this game."""
    return []


def oracle(state: GameState, pid: str) -> dict[str, Any] | None:
    """No secret word to know."""
    return None


def random_clue(rng: random.Random, v: dict[str, Any]) -> str:  # pragma: no cover - no clues
    """No clues in this game."""
    raise GameError("wrong_phase", "the werewolf game has no clues")


def random_action(rng: random.Random, v: dict[str, Any], pool: list[str]) -> dict | None:
    """A random action of the player whose view is `v` (None if they can do nothing)."""
    me = v["me"]
    can = me["can"] if me else []
    if not can:
        return None
    kind = rng.choice(can)
    living = [p["id"] for p in v["players"] if p["alive"] and p["id"] != me["id"]]
    if kind == "peek":
        # A look at someone not looked at yet, when there is one.
        fresh = [pid for pid in living if pid not in {s["player"] for s in me["seen"]}]
        pool = fresh or living
        return {"type": "peek", "target": rng.choice(pool)} if pool else None
    if kind == "bite":
        prey = [pid for pid in living if pid not in me["pack"]]
        return {"type": "bite", "target": rng.choice(prey)} if prey else None
    if kind == "vote":
        choices = [c for c in v["candidates"] if c != me["id"]]
        # What the player's own view says: a wolf spares the pack, the seer names a wolf
        # it found and spares the humans it saw.
        wolves = [s["player"] for s in me["seen"] if s["wolf"]]
        humans = {s["player"] for s in me["seen"] if not s["wolf"]} | set(me["pack"])
        found = [c for c in choices if c in wolves]
        spared = [c for c in choices if c not in humans]
        pool = found or spared or choices
        return {"type": "vote", "target": rng.choice(pool)} if pool else None
    if kind == "advance":
        # A moderator who mostly lets the clock run.
        return {"type": "advance"} if rng.random() < 0.3 else None
    return {"type": kind}


def start_invariants(s: GameState) -> list[str]:
    """The deal: wolves fewer than the humans even after the first night; 004's table."""
    out = []
    wolves = len(s.wolves())
    humans = len(s.humans())
    if humans < wolves + 2 or wolves < 1:
        out.append(f"seed {s.seed}: {wolves} wolves for {humans} humans")
    if s.options["lupi"] == "auto" and wolves != auto_wolves(len(s.players)):
        out.append(f"seed {s.seed}: {wolves} wolves at {len(s.players)} players")
    seers = sum(pl.role == VEGGENTE for pl in s.players)
    if seers != (1 if s.options["veggente"] else 0):
        out.append(f"seed {s.seed}: {seers} seers")
    if s.moderator is not None and s.has(s.moderator["id"]):
        out.append(f"seed {s.seed}: the moderator holds a card")
    return out


def illegal_invariants(s: GameState, views: dict[str, dict], now: float, seed: int) -> list[str]:
    """Ghosts keep no ability; a card's power is its holder's alone; refusals change nothing."""
    attempts = []
    living = [pl.id for pl in s.players if pl.alive]
    target = living[0] if living else "p0"
    for pl in s.players:
        if not pl.alive and s.phase not in ("nomination", "over"):
            kind = {"seer": "peek", "wolves": "bite", "lynch": "vote"}.get(s.phase, "ready")
            action = {"type": kind} if kind == "ready" else {"type": kind, "target": target}
            attempts.append((pl.id, action, ("dead_player", "wrong_phase")))
            break
    if s.phase == "seer":
        other = next((pl.id for pl in s.players if pl.alive and pl.role != VEGGENTE), None)
        if other is not None:
            attempts.append((other, {"type": "peek", "target": target}, ("not_allowed",)))
    if s.phase == "wolves":
        other = next((pl.id for pl in s.players if pl.alive and pl.role != LUPO), None)
        if other is not None:
            attempts.append((other, {"type": "bite", "target": target}, ("not_allowed",)))
    if s.phase == "seer" and s.moderator is not None:
        attempts.append((s.moderator["id"], {"type": "advance"}, ("wrong_phase",)))
    return check_refusals(s, attempts, now, seed, apply)


def end_invariants(s: GameState, seed: int) -> list[str]:
    """Exactly one outcome; the whole faction wins, ghosts included; the win is real."""
    out = []
    if s.phase != "over":
        return out
    if s.outcome not in OUTCOMES:
        return [f"seed {seed}: outcome {s.outcome!r}"]
    faction = set(s.wolves(alive_only=False) if s.outcome == LUPI else s.humans(alive_only=False))
    if set(s.winners) != faction:
        out.append(f"seed {seed}: winners {s.winners} are not the whole faction")
    wolves, humans = len(s.wolves()), len(s.humans())
    if s.outcome == UMANI and wolves:
        out.append(f"seed {seed}: humans won with a wolf alive")
    if s.outcome == LUPI and wolves < humans:
        out.append(f"seed {seed}: wolves won while fewer than the humans")
    if sorted(d.player for d in s.deaths) != sorted(pl.id for pl in s.players if not pl.alive):
        out.append(f"seed {seed}: deaths and ghosts disagree")
    return out


def report_extra(state: GameState, report: dict[str, Any]) -> None:
    """Engine figures of a finished game: how many days it lasted, summed for a mean."""
    report.setdefault("days_total", 0)
    report["days_total"] += state.day
