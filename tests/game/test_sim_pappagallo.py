"""The simulator's Pappagallo gives clues the rules accept (issue 8: the Pappagallo is stuck
when the clue before him is his own word; an article alone does not satisfy his repeat)."""

from __future__ import annotations

import random

import pytest

from game import text as texts
from game.undercover.sim import random_clue

PREVIOUS = ["il gelato freddo", "Gelati! la neve", "gelato", "il la lo", "il cono 🍦", "Un freddo"]


@pytest.mark.parametrize("previous", PREVIOUS)
def test_the_simulated_pappagallo_repeats_only_what_the_check_accepts(previous):
    view = {"me": {"power": "pappagallo", "word": "gelato"}, "lang": "it",
            "clues": [{"text": previous, "skipped": False}]}
    for seed in range(60):
        clue = random_clue(random.Random(seed), view)
        assert texts.check_clue(clue, "gelato", "it", must_repeat_from=previous)
