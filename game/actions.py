"""The shape of an action, checked the same way by every engine before anything else.

Each engine lists its action types with their fields (`{"vote": {"target": PLAYER}}`);
`check_shape` refuses an unknown type, a missing or extra field, or a value of the
wrong kind with `bad_action` (detail: the type or the field), before any rule is
looked at, so a malformed action is refused the same way in every phase; then
`check_phase` refuses one its engine does not take in the current phase.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import GameError

PLAYER = "player"  # a player id (a string; whether it exists is the rules' business)
TEXT = "text"  # a string
PLAYERS2 = "players2"  # a list of two player ids
FLAG = "flag"  # true or false
TALLY = "tally"  # an object: name -> count (game/table_vote.py checks the rest)


def _ok(kind: str, value: Any) -> bool:
    if kind in (PLAYER, TEXT):
        return isinstance(value, str)
    if kind == PLAYERS2:
        return isinstance(value, list) and len(value) == 2 and all(isinstance(x, str) for x in value)
    if kind == FLAG:
        return isinstance(value, bool)
    if kind == TALLY:
        return isinstance(value, dict) and len(value) <= 64
    raise ValueError(kind)  # pragma: no cover - a bug in an engine's table


def check_shape(action: Any, shapes: Mapping[str, Mapping[str, str]]) -> str:
    """The action's type, once its fields fit `shapes[type]`; else GameError bad_action."""
    if not isinstance(action, dict) or action.get("type") not in shapes:
        kind = action.get("type") if isinstance(action, dict) else None
        raise GameError("bad_action", "unknown action",
                        type=kind[:40] if isinstance(kind, str) else type(action).__name__)
    kind = action["type"]
    fields = shapes[kind]
    for name in action:
        if name != "type" and name not in fields:
            raise GameError("bad_action", f"{kind} has no field {str(name)[:24]!r}",
                            field=str(name)[:24])
    for name, want in fields.items():
        if not _ok(want, action.get(name)):
            raise GameError("bad_action", f"{kind}.{name} must be a {want}", field=name)
    return kind


def check_phase(kind: str, phase: str, phase_of: Mapping[str, tuple[str, ...]]) -> None:
    """GameError wrong_phase unless an action of type `kind` is possible in `phase`."""
    if phase not in phase_of[kind]:
        raise GameError("wrong_phase", f"{kind} is not possible now", phase=phase)
