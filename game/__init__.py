"""Pure, deterministic game core. See docs/architecture.md.

The undercover engine (`game/undercover.py`) plays Intruso, Infiltré and
Sosia, three presets (`game/presets.py`). Everything here is a function of
its arguments: time comes in as `now`, randomness from the seeded generator
held in the state.
"""

from .errors import GameError
from .policy import AudioPolicy, audio_policy
from .presets import PRESETS, catalog, default_options, validate_options
from .replay import replay
from .state import GameState, state_bytes
from .undercover import apply, draw_pair, new_game, next_deadline, tick
from .views import view

__all__ = [
    "GameError",
    "GameState",
    "PRESETS",
    "catalog",
    "default_options",
    "validate_options",
    "new_game",
    "draw_pair",
    "apply",
    "tick",
    "next_deadline",
    "view",
    "audio_policy",
    "replay",
    "state_bytes",
    "AudioPolicy",
]
