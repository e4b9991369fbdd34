"""Rebuilding a game from its log: (preset, options, seed, players, words, timestamped actions)."""

from __future__ import annotations

from typing import Any

from .engines import engine_of_preset


def replay(
    preset: str,
    options: dict[str, Any] | None,
    seed: int,
    players: list[dict[str, Any]],
    log: list[dict[str, Any]],
    started_at: float | None = None,
    words: Any = None,
) -> Any:
    """Re-apply the accepted actions of `log` in order, each at its own `t`.

    `started_at` is the `now` given to `new_game`; without it a first entry
    `{"t": t0, "player": None, "action": {"type": "start"}}` gives it, else 0.0.
    An entry `{"t": t, "player": None, "action": {"type": "tick"}}` lets time
    pass to `t` (logging ticks is optional: deadlines are computed from their
    own times, so a later action or tick gives the same state). The result's
    `state_bytes` equal the original game's at the time of the last entry.
    `words` are the words the original game was given (see `draw_words`).
    """
    engine = engine_of_preset(preset)
    entries = list(log)
    if started_at is None:
        first = entries[0] if entries else None
        if first and first.get("player") is None and first.get("action", {}).get("type") == "start":
            started_at = float(first["t"])
        else:
            started_at = 0.0
    state = engine.new_game(preset, options, seed, players, started_at, words=words)
    for entry in entries:
        action = entry.get("action") or {}
        if entry.get("player") is None and action.get("type") == "start":
            continue
        if entry.get("player") is None and action.get("type") == "tick":
            state, _ = engine.tick(state, float(entry["t"]))
            continue
        state, _ = engine.apply(state, entry["player"], action, float(entry["t"]))
    return state
