"""The engines of the core and the presets each one plays.

An engine is a package of `game/` (undercover, impostor, werewolf) whose
`__init__` offers the same functions, listed in `ENGINE_API` and documented
in docs/architecture.md ("Adding an engine"). A preset (Intruso, Classica,
Lupi ...) is data over one engine; preset names are unique across engines.
`game/__init__.py` finds the engine of a preset or of a state here and
passes each call on.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import impostor, undercover, werewolf
from .errors import GameError

ENGINES: dict[str, ModuleType] = {
    undercover.NAME: undercover,
    impostor.NAME: impostor,
    werewolf.NAME: werewolf,
}

# What every engine module offers (checked by tests/game/test_engines.py).
ENGINE_API = (
    "NAME",  # the engine's name, also `state.game`
    "PRESETS",  # preset name -> the preset's data
    "default_options",  # (preset) -> options
    "validate_options",  # (preset, options, n_players) -> options | GameError
    "draw_words",  # (preset, options, seed) -> JSON-able words, stored with the game
    "new_game",  # (preset, options, seed, players, now, *, deal=None, words=None) -> state
    "opening_events",  # (state) -> events announcing how the game starts (first turn ...)
    "apply",  # (state, pid, action, now) -> (state, events)
    "tick",  # (state, now) -> (state, events)
    "next_deadline",  # (state) -> float | None
    "view",  # (state, pid | None) -> dict; None: a spectator
    "audio_policy",  # (state) -> AudioPolicy
    "cues",  # (state, events) -> [(cue, listeners)]
    "result",  # (state) -> dict | None: everything, once over (outcome, winners, ...)
    "points",  # (state) -> {pid: points} of a finished game
    "catalog",  # () -> the engine's part of the catalog
    "sim",  # the engine's random player for game.simulate
)

_BY_PRESET: dict[str, ModuleType] = {
    preset: engine for engine in ENGINES.values() for preset in engine.PRESETS
}


def engine_of_preset(preset: Any) -> ModuleType:
    """The engine that plays `preset`, or GameError `bad_options`."""
    engine = _BY_PRESET.get(preset) if isinstance(preset, str) else None
    if engine is None:
        raise GameError("bad_options", f"unknown preset {str(preset)[:40]!r}", field="preset")
    return engine


def engine_of(state: Any) -> ModuleType:
    """The engine of a game state (its `game` field)."""
    return ENGINES[state.game]


def presets() -> dict[str, Any]:
    """Every preset of every engine: name -> preset data."""
    return {name: p for engine in ENGINES.values() for name, p in engine.PRESETS.items()}
