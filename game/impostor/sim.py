"""Impostore's random player and invariants, for `game.simulate`.

A random player acts from what its own view says it can do: it looks at its
card (and now and then says it does not know the word), votes yes or no on a
change, ends its spoken turn, votes for a random candidate; an eliminated
impostor guesses a random word, or "knows" it (`oracle`).
"""

from __future__ import annotations

import random
from typing import Any

from ..simulate_common import check_refusals, nonsense
from .engine import apply
from .presets import max_impostors
from .state import COMPLICE, GEMELLO, IMPOSTORE, INNOCENTE, GameState

OUTCOMES = ("innocents", "impostors", "pagliaccio")


def random_options(rng: random.Random, preset: str, n: int) -> dict[str, Any] | None:
    """The style's defaults, sometimes with every optional rule turned on."""
    if rng.random() < 0.5:
        return None
    return {
        "roles": ["complice", "gemelli", "pagliaccio"],
        "impostors_know": True,
        "first_innocent": True,
        "turns": rng.choice(["guided", "free"]),
        "rounds": rng.randint(1, 3),
        "timers": {"clue": 30, "discuss": 120, "guess": 30},
    }


def guess_pool(state: GameState) -> list[str]:
    """Words a random guesser picks from (mostly wrong)."""
    return [w["word"] for w in state.reserve] + ["zorblat", "quamvex"]


def oracle(state: GameState, pid: str) -> dict[str, Any] | None:
    """The guess of an impostor who somehow knows the word."""
    return {"type": "guess", "word": state.word}


def random_clue(rng: random.Random, v: dict[str, Any]) -> str:
    """Clues are spoken in Impostore; a made-up word stands for one where text is needed."""
    return nonsense(rng)


def random_action(rng: random.Random, v: dict[str, Any], pool: list[str]) -> dict | None:
    """A random action of the player whose view is `v` (None if they can do nothing)."""
    can = v["me"]["can"]
    if not can:
        return None
    me = v["me"]["id"]
    if "ask_word" in can and rng.random() < 0.1:
        return {"type": "ask_word"}
    kind = rng.choice([c for c in can if c != "ask_word"] or can)
    if kind in ("seen", "done", "ready", "ask_word"):
        return {"type": kind}
    if kind == "word_vote":
        return {"type": "word_vote", "change": rng.random() < 0.5}
    if kind == "vote":
        choices = [c for c in v["candidates"] if c != me]
        return {"type": "vote", "target": rng.choice(choices)} if choices else None
    if kind == "guess":
        return {"type": "guess", "word": rng.choice(pool)}
    return None


def start_invariants(s: GameState) -> list[str]:
    """The deal: impostors fewer than the others, roles that fit the table."""
    out = []
    n = len(s.players)
    roles = [pl.role for pl in s.players]
    impostors = roles.count(IMPOSTORE)
    if not 1 <= impostors <= max_impostors(n, []):
        out.append(f"seed {s.seed}: {impostors} impostors at {n} players")
    if roles.count(GEMELLO) not in (0, 2):
        out.append(f"seed {s.seed}: Gemelli are not two")
    if n < 3 + 2 * len(s.roles_in_play):
        out.append(f"seed {s.seed}: roles {s.roles_in_play} at {n} players")
    if roles.count(INNOCENTE) + roles.count(GEMELLO) <= impostors:
        out.append(f"seed {s.seed}: innocents do not outnumber the impostors")
    if s.word != s.reserve[0]["word"]:
        out.append(f"seed {s.seed}: the first word is not the dealt one")
    return out


def illegal_invariants(
    s: GameState, views: dict[str, dict], now: float, seed: int
) -> list[str]:
    """An eliminated player cannot act; an action out of phase changes nothing."""
    attempts = []
    for pid, v in views.items():
        if not v["me"]["alive"] and not v["me"]["can"]:
            attempts.append((pid, {"type": "seen"}, ("dead_player", "wrong_phase")))
            break
    idle = next((pid for pid, v in views.items() if not v["me"]["can"]), None)
    if idle is not None and s.phase != "over":
        attempts.append((idle, {"type": "guess", "word": "x"}, None))
    return check_refusals(s, attempts, now, seed, apply)


def end_invariants(s: GameState, seed: int) -> list[str]:
    """Exactly one outcome, with winners that fit it."""
    out: list[str] = []
    if s.phase != "over":
        return out
    if s.outcome not in OUTCOMES:
        return [f"seed {seed}: outcome {s.outcome!r}"]
    winners = set(s.winners)
    innocents = {pl.id for pl in s.players if pl.role in (INNOCENTE, GEMELLO)}
    team = {pl.id for pl in s.players if pl.role in (IMPOSTORE, COMPLICE)}
    if s.outcome == "innocents" and winners != innocents:
        out.append(f"seed {seed}: innocents won but the winners are {sorted(winners)}")
    if s.outcome == "impostors" and winners != team:
        out.append(f"seed {seed}: impostors won but the winners are {sorted(winners)}")
    if s.outcome == "pagliaccio" and len(winners) != 1:
        out.append(f"seed {seed}: the Pagliaccio wins alone")
    if (s.outcome == "innocents" and s.options["win_mode"] == "elimination"
            and any(pl.alive and pl.role == IMPOSTORE for pl in s.players)):
        out.append(f"seed {seed}: innocents won by elimination with an impostor alive")
    return out


def report_extra(state: GameState, report: dict[str, Any]) -> None:
    """Engine-specific figures: how often the word was changed, how often a guess won."""
    report.setdefault("word_changes", 0)
    report.setdefault("guesses_won", 0)
    report["word_changes"] += len(state.words_seen) - 1
    report["guesses_won"] += int(any(g["right"] for g in state.guesses))
