"""The werewolf engine: Lupi Mannari (004), preset `lupi`.

The engine API of docs/architecture.md ("Adding an engine"). The rules read
top to bottom in `engine.py`; the preset, options and setup table are data in
`presets.py`; what a player may know is `view.py` (with the narration); who
hears whom is `policy.py`; the random player of `game.simulate` is `sim.py`.
docs/rules-lupi.md says what the engine does where 004 is silent.
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

NAME = "werewolf"

__all__ = [
    "NAME", "PRESETS", "default_options", "validate_options", "draw_words", "new_game",
    "opening_events", "apply", "tick", "next_deadline", "view", "audio_policy", "cues",
    "result", "points", "catalog", "sim",
]


def opening_events(state: GameState) -> list[dict[str, Any]]:
    """How the dealt game starts: the first night falls."""
    return [{"type": "phase", "phase": state.phase}]


def cues(state: GameState, events: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """The sound cues of these events: the shared mapping, to the moderator as well.

    No cue depends on a card: none for the seer's or the wolves' turn (a chime on
    one phone would tell the table who it is). The moderator hears night, day,
    votes and deaths, not victory or defeat (they belong to no faction).
    """
    holders = [pl.id for pl in state.players]
    out = cues_for(events, holders)
    if state.moderator is not None:
        mod = state.moderator["id"]
        out = [(name, listeners + [mod] if name not in ("victory", "defeat", "your_turn")
                else listeners) for name, listeners in out]
    return out


def points(state: GameState) -> dict[str, int]:
    """Points of a finished game (its result's `points`; empty while it runs)."""
    res = result(state)
    return dict(res["points"]) if res else {}
