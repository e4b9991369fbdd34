"""The undercover engine's random player and invariants, for `game.simulate`.

A random player acts from what its own view says it can do: random clues that
pass the checks (nonsense words, emoji for the Muto, a repeated word for the
Pappagallo), random votes and power uses; an eliminated Fantasma sometimes
"knows" the word (`oracle`).
"""

from __future__ import annotations

import random
from typing import Any

from .. import text as texts
from .. import words as wordlist
from ..simulate_common import EMOJI, check_refusals, nonsense
from .engine import apply
from .presets import get_preset
from .state import CIVILE, FANTASMA, GameState

OUTCOMES = ("civili", "infiltrati", "fantasma", "buffone")


def random_options(rng: random.Random, preset: str, n: int) -> dict[str, Any] | None:
    """Mostly the preset's defaults; sometimes every power, to exercise them all."""
    p = get_preset(preset)
    if p.name == "intruso":
        return None
    if rng.random() < 0.5:
        return {"powers": "auto", "fantasmi": "auto" if p.max_fantasmi else 0}
    return None


def guess_pool(state: GameState) -> list[str]:
    """Words a random guesser picks from (mostly wrong)."""
    return [w for pair in wordlist.load_pairs(state.options["lang"])[:40] for w in (pair.a, pair.b)]


def oracle(state: GameState, pid: str) -> dict[str, Any] | None:
    """The action of a player who somehow knows the answer (the Fantasma's right guess)."""
    return {"type": "guess", "word": state.word_civili}


def random_action(rng: random.Random, v: dict[str, Any], pool: list[str]) -> dict | None:
    """A random action of the player whose view is `v` (None if they can do nothing)."""
    can = v["me"]["can"]
    if not can:
        return None
    kind = rng.choice(can)
    me = v["me"]["id"]
    others = [p["id"] for p in v["players"] if p["id"] != me]
    living_others = [p["id"] for p in v["players"] if p["id"] != me and p["alive"]]
    if kind == "bind":
        return {"type": "bind", "target": rng.choice(others)}
    if kind == "intoxicate":
        return {"type": "intoxicate", "targets": rng.sample(others, 2)}
    if kind == "clue":
        return {"type": "clue", "text": random_clue(rng, v)}
    if kind == "ready":
        return {"type": "ready"}
    if kind == "swap":
        return {"type": "swap", "target": rng.choice(living_others)} if living_others else None
    if kind in ("vote", "judge", "avenge"):
        choices = [c for c in v["candidates"] if c != me]
        return {"type": kind, "target": rng.choice(choices)} if choices else None
    if kind == "guess":
        return {"type": "guess", "word": rng.choice(pool)}
    return None


def random_clue(rng: random.Random, v: dict[str, Any]) -> str:
    """A clue that passes the checks for this player's power."""
    power = v["me"]["power"]
    if power == "muto":
        return "".join(rng.sample(EMOJI, rng.randint(1, 3)))
    words = [nonsense(rng) for _ in range(rng.randint(1, 3))]
    if power == "pappagallo":
        previous = next((c["text"] for c in reversed(v["clues"]) if not c["skipped"]), None)
        # Only what the check lets him repeat: not an article, not his own word's family.
        allowed = texts.repeat_candidates(previous, v["me"].get("word"), v["lang"]) if previous else []
        if allowed:
            words[0] = rng.choice(allowed)
    return " ".join(words)


def start_invariants(s: GameState) -> list[str]:
    """Counts at the start: Civili outnumber infiltrators; roles fit the preset."""
    out = []
    civili = sum(pl.role == CIVILE for pl in s.players)
    if civili <= len(s.players) - civili:
        out.append(f"seed {s.seed}: Civili do not outnumber the infiltrators")
    if s.preset == "sosia" and any(pl.role == FANTASMA for pl in s.players):
        out.append(f"seed {s.seed}: a Fantasma in Sosia")
    twins = [pl for pl in s.players if pl.power == "gemelli"]
    if twins and (len(twins) != 2 or any(pl.role != CIVILE for pl in twins)):
        out.append(f"seed {s.seed}: Gemelli are not two Civili")
    if any(pl.power == "sabotatore" and pl.word is None for pl in s.players):
        out.append(f"seed {s.seed}: a Sabotatore without a word")
    return out


def illegal_invariants(
    s: GameState, views: dict[str, dict], now: float, seed: int
) -> list[str]:
    """An eliminated player cannot act; an action out of phase changes nothing."""
    attempts = []
    for pid, v in views.items():
        if not v["me"]["alive"] and not v["me"]["can"]:
            target = next((p["id"] for p in v["players"] if p["id"] != pid and p["alive"]), pid)
            attempts.append((pid, {"type": "vote", "target": target}, ("dead_player", "wrong_phase")))
            break
    idle = next((pid for pid, v in views.items() if not v["me"]["can"]), None)
    if idle is not None and s.phase != "over":
        attempts.append((idle, {"type": "judge", "target": idle}, None))
    return check_refusals(s, attempts, now, seed, apply)


def end_invariants(s: GameState, seed: int) -> list[str]:
    """Exactly one outcome, with winners that fit it."""
    out = []
    if s.phase != "over":
        return out
    if s.outcome not in OUTCOMES:
        out.append(f"seed {seed}: outcome {s.outcome!r}")
        return out
    winners = set(s.winners)
    if not winners:
        out.append(f"seed {seed}: nobody won")
    civili = {pl.id for pl in s.players if pl.role == CIVILE}
    camp = {pl.id for pl in s.players if pl.role != CIVILE}
    if s.outcome == "civili" and not civili <= winners:
        out.append(f"seed {seed}: Civili won but not all of them are winners")
    if s.outcome == "infiltrati" and not camp <= winners:
        out.append(f"seed {seed}: infiltrators won but not all of them are winners")
    if s.outcome == "civili" and any(pl.alive for pl in s.players if pl.id in camp):
        out.append(f"seed {seed}: Civili won with an infiltrator alive")
    extra = winners - (civili if s.outcome == "civili" else camp) - set(s.cupid)
    if s.outcome in ("civili", "infiltrati") and extra:
        out.append(f"seed {seed}: unexpected winners {sorted(extra)}")
    return out


def report_extra(state: GameState, report: dict[str, Any]) -> None:
    """Engine-specific figures of a finished game: Cupido pairs that won with a side."""
    report.setdefault("cupid_cowins", 0)
    if len(state.cupid) == 2 and set(state.cupid) <= set(state.winners):
        if state.outcome in ("civili", "infiltrati"):
            report["cupid_cowins"] += 1
