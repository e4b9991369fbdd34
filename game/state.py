"""What every engine's state shares: canonical bytes for replays.

Each engine keeps its whole state as plain dataclasses (its own `state.py`),
with the one seeded random generator inside. `state_bytes` turns any of them
into canonical bytes, so two games can be compared byte for byte.
"""

from __future__ import annotations

import json
import random
from dataclasses import fields, is_dataclass
from typing import Any


def to_data(obj: Any) -> Any:
    """A JSON-able copy of a state (dataclasses, lists, dicts; the RNG as its state)."""
    if isinstance(obj, random.Random):
        version, internal, gauss = obj.getstate()
        return {"rng": [version, list(internal), gauss]}
    if is_dataclass(obj):
        return {f.name: to_data(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_data(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_data(v) for v in obj]
    return obj


def state_bytes(state: Any) -> bytes:
    """Canonical bytes of the whole state, RNG included: equal bytes, equal games."""
    return json.dumps(to_data(state), sort_keys=True, separators=(",", ":")).encode("utf-8")


def copy_rng(rng: random.Random) -> random.Random:
    """An independent generator in the same state."""
    new = random.Random()
    new.setstate(rng.getstate())
    return new
