"""Real-time DSP and mixing on numpy arrays (48 kHz mono float32, 20 ms frames).

No networking and no game rules here: frames and a routing policy in,
per-listener mixes and per-speaker mouth levels out. See docs/contracts.md.
"""

from audio.clock import FrameClock
from audio.cues import CueBank
from audio.drunk import DrunkVoice
from audio.format import FRAME, SAMPLE_RATE
from audio.mixer import RoomMixer, TickResult
from audio.routing import Routing

__all__ = [
    "CueBank",
    "DrunkVoice",
    "FRAME",
    "FrameClock",
    "RoomMixer",
    "Routing",
    "SAMPLE_RATE",
    "TickResult",
]
