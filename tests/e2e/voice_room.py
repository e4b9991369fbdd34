"""In-process voice rooms for the e2e tests: a RoomVoice and real aiortc client peers.

Everything runs in the test's event loop: the server's 20 ms loop, the
peers' senders and receivers. Audio crosses real WebRTC (ICE, DTLS, SRTP,
Opus) over the host's own address.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import numpy as np

from server.rtc_client import Source, VoicePeer
from server.voice import RoomVoice
from tests.e2e.spectrum import steady, tone_db

# One tone per seat, on exact bins of a 1 s analysis, roughly an octave apart.
# Opus at 32 kb/s leaves a coding-noise floor 50-60 dB under a tone within a
# few hundred hertz of it, but 80 dB or more far from every tone; the first
# seat's 6.1 kHz (still inside Opus's wideband) is where the other seats' noise is
# lowest, so a test that must show 60 dB of isolation gives that seat the voice
# to isolate. The drunk effect low-passes at 3 kHz: its victims use the low seats.
TONES = [6100, 300, 700, 1500, 3100, 4500]


@dataclass
class VoiceRoom:
    """A started RoomVoice with connected client peers, keyed by player id."""

    voice: RoomVoice
    peers: dict[str, VoicePeer] = field(default_factory=dict)
    mouths: list[dict[str, float]] = field(default_factory=list)

    async def join(self, pid: str, source: Source, **kw) -> VoicePeer:
        """Connect a client peer for `pid` (replacing any previous one)."""
        peer = VoicePeer(source, **kw)
        await peer.connect(lambda sdp: self.voice.offer(pid, sdp))
        old = self.peers.get(pid)
        self.peers[pid] = peer
        if old is not None:
            await old.close()
        return peer

    async def listen(self, seconds: float, settle: float = 0.6) -> dict[str, np.ndarray]:
        """Wait `settle` s, then record `seconds` s; the steady part of each recording."""
        await asyncio.sleep(settle)
        t0 = time.monotonic()
        await asyncio.sleep(seconds + 0.25)
        return {pid: steady(p.recorder.audio(since=t0), seconds, skip_end=0.1)
                for pid, p in self.peers.items()}

    async def close(self) -> None:
        await asyncio.gather(*(p.close() for p in self.peers.values()), return_exceptions=True)
        await self.voice.stop()


async def open_room(sources: dict[str, Source], **voice_kw) -> VoiceRoom:
    """Start a RoomVoice and connect one client per entry of `sources`."""
    room = VoiceRoom(voice=None)  # type: ignore[arg-type]
    room.voice = RoomVoice("TEST", on_mouths=room.mouths.append, **voice_kw)
    await room.voice.start()
    try:
        for pid, src in sources.items():
            await room.join(pid, src)
    except BaseException:
        await room.close()
        raise
    return room


def levels(rec: dict[str, np.ndarray], hz: float) -> dict[str, float]:
    """The level of tone `hz` in each recording, dB re full scale."""
    return {pid: tone_db(x, hz) for pid, x in rec.items()}
