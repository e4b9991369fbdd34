"""Pure, deterministic game core: the one door to every engine. See docs/architecture.md.

Each function finds the engine of a preset (or of a state) in `game/engines.py`
and passes the call on, so the server never needs a game's phase or role
names. Everything here is a function of its arguments: time comes in as
`now`, randomness from the seeded generator held in the state.
"""

from __future__ import annotations

from typing import Any

from . import custom_words, words
from .engines import ENGINES, engine_of, engine_of_preset, presets
from .errors import GameError
from .evening import evening
from .policy import AudioPolicy
from .replay import replay
from .state import state_bytes

__all__ = [
    "GameError", "AudioPolicy", "PRESETS", "ENGINES", "engine_name", "catalog",
    "default_options", "validate_options", "draw_words", "new_game", "opening_events",
    "apply", "tick", "next_deadline", "view", "audio_policy", "cues", "result", "points",
    "evening", "replay", "state_bytes", "words", "warm_up", "dictionaries_read",
    "public_options",
]

PRESETS = presets()


def engine_name(preset: str) -> str:
    """The engine that plays `preset` ("undercover", ...)."""
    return engine_of_preset(preset).NAME


def default_options(preset: str) -> dict[str, Any]:
    """The options a new room starts with for `preset` (JSON-able)."""
    return engine_of_preset(preset).default_options(preset)


def validate_options(preset: str, options: dict[str, Any] | None, n_players: int) -> dict[str, Any]:
    """Check and normalise `options` at a table of `n_players` (or GameError `bad_options` ...).

    Under 3 players (a lobby still filling) only the shape is checked.
    """
    return engine_of_preset(preset).validate_options(preset, options, n_players)


def public_options(preset: str, options: dict[str, Any]) -> dict[str, Any]:
    """The room's options as every player may see them: a custom word list (the
    host's secret) shows only its size, `{"count": n}`. Any engine."""
    engine_of_preset(preset)
    return custom_words.public_options(options)


def draw_words(preset: str, options: dict[str, Any], seed: int) -> Any:
    """The words of a game, drawn apart from the game's generator (JSON-able).

    A server stores them with the game and passes them to `new_game` and
    `replay`, so a replay deals the words the players saw even if the word
    files changed meanwhile.
    """
    return engine_of_preset(preset).draw_words(preset, options, seed)


def new_game(preset: str, options: dict[str, Any] | None, seed: int,
             players: list[dict[str, Any]], now: float, **kw: Any) -> Any:
    """Deal a new game; `kw`: `words` (from `draw_words`), `deal` (a fixed deal for tests)."""
    return engine_of_preset(preset).new_game(preset, options, seed, players, now, **kw)


def opening_events(state: Any) -> list[dict[str, Any]]:
    """Events announcing how a dealt game starts (its phase, the first turn ...)."""
    return engine_of(state).opening_events(state)


def apply(state: Any, pid: str, action: dict[str, Any], now: float) -> tuple[Any, list]:
    """Let time pass to `now`, then apply `pid`'s action: (new state, events).

    An illegal action raises GameError and the input state is never changed.
    """
    return engine_of(state).apply(state, pid, action, now)


def tick(state: Any, now: float) -> tuple[Any, list]:
    """Let time pass until `now`: (new state, events)."""
    return engine_of(state).tick(state, now)


def next_deadline(state: Any) -> float | None:
    """When the game next changes by itself (None: it waits for the players, or is over)."""
    return engine_of(state).next_deadline(state)


def view(state: Any, pid: str | None) -> dict[str, Any]:
    """What `pid` may know, as JSON-able data; `pid` None: a spectator (public only)."""
    return engine_of(state).view(state, pid)


def audio_policy(state: Any) -> AudioPolicy:
    """Who may be heard by whom right now."""
    return engine_of(state).audio_policy(state)


def cues(state: Any, events: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """(cue name, listeners) for each of these events the players should hear."""
    return engine_of(state).cues(state, events)


def result(state: Any) -> dict[str, Any] | None:
    """Everything about a finished game (outcome, winners, roles, words ...); None before."""
    return engine_of(state).result(state)


def points(state: Any) -> dict[str, int]:
    """Points each player scored in a finished game (also in its `result`; see `evening`)."""
    return engine_of(state).points(state)


def warm_up(langs: tuple[str, ...] | None = None) -> None:
    """Read now what the rules read once per process: the text checks' tables and the
    lemma dictionaries of `langs` (every language by default; 0.1-0.6 s of a core each,
    read once). A server calls it in a worker thread: at start-up for the tables, and for
    a room's language before its game starts or is replayed, so that no room waits for
    them at its first clue."""
    from .text import warm_up as warm_text

    warm_text(langs)


def dictionaries_read() -> list[str]:
    """The languages whose lemma dictionary this process has read (by `warm_up` or a
    clue), in reading order."""
    from .lemmas import loaded_languages

    return loaded_languages()


def catalog() -> dict[str, Any]:
    """What a client needs to draw the settings forms, read from the rules (JSON-able).

    Every preset of every engine (with its engine, limits and defaults), each
    engine's own part (powers, timers ...), the word categories of every
    language (id -> display name, never a word) and the table sizes.
    """
    from .table import MAX_PLAYERS, MIN_PLAYERS
    from .timers import TIMER_MAX, TIMER_MIN

    parts = {name: engine.catalog() for name, engine in ENGINES.items()}
    out: dict[str, Any] = {
        "presets": {k: v for part in parts.values() for k, v in part["presets"].items()},
        "engines": {name: {k: v for k, v in part.items() if k != "presets"}
                    for name, part in parts.items()},
        "langs": list(words.langs()),
        "categories": {lang: words.category_names(lang) for lang in words.langs()},
        "players": {"min": MIN_PLAYERS, "max": MAX_PLAYERS},
    }
    # The undercover engine's powers and timers also at the top (the settings form reads them).
    uc = parts["undercover"]
    out["powers"] = uc["powers"]
    out["timers"] = {**uc["timers"], "min": TIMER_MIN, "max": TIMER_MAX}
    return out
