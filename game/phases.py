"""How every engine's game moves through its phases in time, the same for all.

A state has a `phase`, the time it started (`phase_started`) and its
`deadline` (None: the phase waits for the players, or the game is over).
Time passes only through `now` arguments: when a deadline `d` passes, the
engine's `timeout(s, d, events)` says what follows, and that starts at `d`,
so late or repeated ticks give the same game. What a phase's timeout does is
each engine's rules text; this module only runs the clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .timers import deadline

Events = list[dict[str, Any]]
# An engine's `_timeout(s, d, events)`: the phase's time is up at `d`.
Timeout = Callable[[Any, float, Events], None]


def enter(s: Any, phase: str, t: float, seconds: float | None, events: Events,
          announce: bool = True) -> None:
    """The game enters `phase` at `t` for `seconds` (None: no timer), announced unless told."""
    s.phase = phase
    s.phase_started = t
    s.deadline = deadline(t, seconds)
    if announce:
        events.append({"type": "phase", "phase": phase})


def advance(s: Any, now: float, events: Events, timeout: Timeout) -> None:
    """Let every deadline up to `now` pass, each at its own time."""
    while s.deadline is not None and s.deadline <= now:
        timeout(s, s.deadline, events)


def tick(state: Any, now: float, timeout: Timeout) -> tuple[Any, Events]:
    """Let time pass until `now`; returns a new state and what happened."""
    s = state.clone()
    events: Events = []
    advance(s, now, events, timeout)
    return s, events


def catch_up(state: Any, now: float, timeout: Timeout) -> tuple[Any, Events, float]:
    """Before an action at `now`: a new state with every deadline up to `now` passed,
    what that did, and the action's time, never before the phase's start (a clock
    going backwards cannot reorder the game)."""
    s, events = tick(state, now, timeout)
    return s, events, max(now, s.phase_started)


def next_deadline(state: Any) -> float | None:
    """When the game next changes by itself (None: it waits for the players, or is over)."""
    return state.deadline


def game_over(s: Any, outcome: str, winners: Any, events: Events) -> None:
    """The game ends with `outcome`; `winners` (any order) are kept in seat order.

    The engine clears what else its own phases left open."""
    won = set(winners)
    s.outcome = outcome
    s.winners = [pl.id for pl in s.players if pl.id in won]
    s.phase = "over"
    s.deadline = None
    events.append({"type": "phase", "phase": "over"})
    events.append({"type": "game_over", "outcome": outcome, "winners": list(s.winners)})
