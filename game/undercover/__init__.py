"""The undercover engine: Intruso (000), Infiltré (001) and Sosia.

The engine API of docs/architecture.md ("Adding an engine"). The rules read
top to bottom in `engine.py`; the presets are data in `presets.py`; what a
player may know is `view.py`; who hears whom is `policy.py`; the random
player of `game.simulate` is `sim.py`.
"""

from __future__ import annotations

from typing import Any

from ..cues import cues_for
from ..phases import next_deadline
from . import sim
from .engine import apply, draw_words, new_game, tick
from .policy import audio_policy
from .presets import PRESETS, catalog, default_options, validate_options
from .state import GameState
from .view import result, view

NAME = "undercover"

__all__ = [
    "NAME", "PRESETS", "default_options", "validate_options", "draw_words", "new_game",
    "opening_events", "apply", "tick", "next_deadline", "view", "audio_policy", "cues",
    "result", "points", "catalog", "sim",
]


def opening_events(state: GameState) -> list[dict[str, Any]]:
    """How the dealt game starts: its phase and, in the clues, whose turn it is."""
    events: list[dict[str, Any]] = [{"type": "phase", "phase": state.phase}]
    if state.phase == "clues":
        events.append({"type": "turn", "player": state.order[state.turn_index]})
    return events


def cues(state: GameState, events: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """The sound cues of these events: the shared mapping over this table."""
    return cues_for(events, [pl.id for pl in state.players])


def points(state: GameState) -> dict[str, int]:
    """Points of a finished game (its result's `points`; empty while it runs)."""
    res = result(state)
    return dict(res["points"]) if res else {}
