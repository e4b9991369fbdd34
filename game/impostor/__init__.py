"""The impostor engine: Impostore (002) in the styles Classica, Caos and Esperti.

The engine API of docs/architecture.md ("Adding an engine"). The rules read
top to bottom in `engine.py`; the styles are data in `presets.py`; what a
player may know, the result and its points are `view.py`; who hears whom is
`policy.py`; the words are `wordbank.py`; the random player of
`game.simulate` is `sim.py`. Sosia, 002's fourth style, is a preset of the
undercover engine.
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

NAME = "impostor"

__all__ = [
    "NAME", "PRESETS", "default_options", "validate_options", "draw_words", "new_game",
    "opening_events", "apply", "tick", "next_deadline", "view", "audio_policy", "cues",
    "result", "points", "catalog", "sim",
]


def opening_events(state: GameState) -> list[dict[str, Any]]:
    """How the dealt game starts: the card phase (everyone looks at their card)."""
    return [{"type": "phase", "phase": state.phase}]


def cues(state: GameState, events: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """The sound cues of these events: the shared mapping over this table.

    `turn` chimes (and buzzes) on the called player's phone only; a vote opening
    (the word vote too), an elimination and the end chime for everyone.
    """
    return cues_for(events, [pl.id for pl in state.players])


def points(state: GameState) -> dict[str, int]:
    """Points of a finished game (its result's `points`; empty while it runs)."""
    res = result(state)
    return dict(res["points"]) if res else {}
