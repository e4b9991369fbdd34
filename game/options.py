"""A host's options, checked the same way for every engine's presets.

Each engine lists its options and their defaults (its `presets.py`) and checks
what only its rules know; the shapes every engine has are checked here. A
refusal is GameError `bad_options` naming the option in `detail.field`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from .errors import GameError


def bad(field: str, message: str) -> GameError:
    """The refusal of the option `field` (`bad_options`)."""
    return GameError("bad_options", message, field=field)


def merged(options: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """`defaults` (a fresh dict) with the host's `options` (None: none) applied.

    Refused: options that are not an object, an option the engine does not have.
    """
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise bad("options", "options must be an object")
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise bad(unknown[0], f"unknown option {unknown[0]!r}")
    out = dict(defaults)
    out.update(copy.deepcopy(options))
    return out


def check_flag(out: dict[str, Any], key: str) -> None:
    """The option `key` is true or false."""
    if not isinstance(out[key], bool):
        raise bad(key, f"{key} must be true or false")


def check_choice(out: dict[str, Any], key: str, allowed: Sequence[str]) -> None:
    """The option `key` is one of `allowed`."""
    if out[key] not in allowed:
        raise bad(key, f"{key} must be one of {', '.join(allowed)}")


def check_categories(value: Any, available: Sequence[str]) -> list[str] | None:
    """The word categories a room plays (None: all), in `available`'s order.

    Refused: not null or a list of ids, an empty list, an id not in `available`.
    """
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise bad("categories", "categories must be null or a list of category ids")
    missing = [c for c in value if c not in available]
    if missing or not value:
        raise bad("categories", f"unknown categories: {missing}" if missing else "no category")
    return [c for c in available if c in value]
