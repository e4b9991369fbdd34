"""Pieces of random play every engine's simulator shares."""

from __future__ import annotations

import random

EMOJI = ["🐱", "🌊", "🔥", "🍕", "⚽", "🎸", "🌙", "🚗", "🐟", "🍎", "❄️", "🎩"]
SYLLABLES = ["zor", "blik", "quam", "vex", "trun", "plo", "wix", "gad", "snu", "fep"]


def nonsense(rng: random.Random) -> str:
    """A made-up word that no secret word contains (consonant-heavy nonsense)."""
    return "".join(rng.choice(SYLLABLES) for _ in range(2)) + rng.choice("kqxz")
