"""Pieces of random play every engine's simulator shares."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .errors import GameError
from .state import state_bytes

EMOJI = ["🐱", "🌊", "🔥", "🍕", "⚽", "🎸", "🌙", "🚗", "🐟", "🍎", "❄️", "🎩"]
SYLLABLES = ["zor", "blik", "quam", "vex", "trun", "plo", "wix", "gad", "snu", "fep"]


def nonsense(rng: random.Random) -> str:
    """A made-up word that no secret word contains (consonant-heavy nonsense)."""
    return "".join(rng.choice(SYLLABLES) for _ in range(2)) + rng.choice("kqxz")


def check_refusals(
    s: Any, attempts: list[tuple[str, dict[str, Any], tuple[str, ...] | None]],
    now: float, seed: int, apply: Callable[..., Any],
) -> list[str]:
    """Invariants broken by illegal `attempts` (pid, action, the codes it may be refused
    with; None: any): each must be refused, with one of its codes, and change nothing."""
    out = []
    before = state_bytes(s)
    for pid, action, codes in attempts:
        try:
            apply(s, pid, action, now)
        except GameError as exc:
            if codes and exc.code not in codes:
                out.append(f"seed {seed}: {action} by {pid} gave {exc.code}")
        else:
            out.append(f"seed {seed}: illegal {action} by {pid} accepted in {s.phase}")
        if state_bytes(s) != before:
            out.append(f"seed {seed}: a refused action changed the state")
    return out
