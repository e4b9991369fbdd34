"""Timers, shared by every engine: a phase's length in seconds, set by the host.

Each engine names its timers and their defaults; this module checks a host's
values the same way for all of them. `None` means "no timer" where the engine
allows it (Impostore's default pace): the phase then waits for the players.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import GameError

TIMER_MIN, TIMER_MAX = 5, 1800


def validate_timers(
    value: Any, defaults: Mapping[str, float | None], *, allow_none: bool = False
) -> dict[str, float | None]:
    """The engine's `defaults` with the host's `value` (a partial mapping) applied.

    Refused (`bad_options`, field `timers`): not an object, an unknown timer, a
    value that is not a number of seconds in TIMER_MIN..TIMER_MAX (or None when
    `allow_none`).
    """
    if not isinstance(value, dict):
        raise GameError("bad_options", "timers must be an object", field="timers")
    merged = dict(defaults)
    for key, seconds in value.items():
        if key not in defaults:
            raise GameError("bad_options", f"unknown timer {key!r}", field="timers")
        if seconds is None and allow_none:
            merged[key] = None
            continue
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise GameError("bad_options", f"timer {key} must be a number of seconds",
                            field="timers")
        if not TIMER_MIN <= seconds <= TIMER_MAX:
            raise GameError("bad_options", f"timer {key} must be {TIMER_MIN}..{TIMER_MAX} seconds",
                            field="timers")
        merged[key] = seconds
    return merged


def deadline(start: float, seconds: float | None) -> float | None:
    """When a phase started at `start` ends (None: it has no timer)."""
    return None if seconds is None else start + seconds
