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

from client.rtc_peer import Source, VoicePeer
from server.media.voice import RoomVoice
from tests.e2e.spectrum import steady, tone_db_robust

# One tone per seat, on exact bins of a 0.25 s analysis (multiples of 4 Hz),
# roughly an octave apart.
# Opus (measured with SILK at 32 kb/s; the CELT mix meets the same bounds) leaves a
# coding-noise floor 50-60 dB under a tone within a few hundred hertz of it, but
# 80 dB or more far from every tone; the first
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
    last_glitches: int = 0

    async def join(self, pid: str, source: Source, **kw) -> VoicePeer:
        """Connect a client peer for `pid` (replacing any previous one)."""
        peer = VoicePeer(source, **kw)
        await peer.connect(lambda sdp: self.voice.offer(pid, sdp))
        old = self.peers.get(pid)
        self.peers[pid] = peer
        if old is not None:
            await old.close()
        return peer

    def glitches(self) -> int:
        """Transport glitches so far: jitter-queue holes and overflows, dropped packets,
        mic frames concealed and packets too late (server/media/recovery.py: a late packet
        is concealed now, not a hole)."""
        st = self.voice.stats()
        mixer = self.voice.mixer.stats()
        return (st["underruns"] + st["overflows"] + st["track_drops"]
                + st.get("mic_concealed", 0) + st.get("mic_late", 0)
                + sum(mixer.get("trimmed", {}).values()))

    async def listen(self, seconds: float, settle: float = 0.6, timeout: float = 20.0,
                     tries: int = 4) -> dict[str, np.ndarray]:
        """Wait `settle` s, then record until every peer has `seconds` s more of audio.

        Waits for audio rather than for time, and records again (up to `tries`
        times) while the window had transport glitches: on a machine whose two
        cores are shared with other jobs the event loop is sometimes starved,
        frames arrive in bursts and the jitter queues fade or drop some. The
        tests judge routing and effects, so they analyse a clean window when
        there is one (else the one with the fewest glitches).
        """
        best: tuple[int, dict[str, np.ndarray]] | None = None
        for _ in range(tries):
            before = self.glitches()
            rec = await record_all(self.peers, seconds, settle, timeout)
            bad = self.glitches() - before
            if best is None or bad < best[0]:
                best = (bad, rec)
            if bad == 0:
                break
            settle = 0.1
        self.last_glitches = best[0]
        return best[1]

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


async def record_all(peers: dict, seconds: float, settle: float = 0.6, timeout: float = 20.0
                     ) -> dict[str, np.ndarray]:
    """The steady last `seconds` of what each peer (anything with `.recorder`) hears next."""
    await asyncio.sleep(settle)
    t0 = time.monotonic()
    need = int((seconds + 0.15) * 48000)
    end = t0 + timeout
    while time.monotonic() < end:
        await asyncio.sleep(0.1)
        if all(len(p.recorder.audio(since=t0)) >= need for p in peers.values()):
            break
    return {pid: steady(p.recorder.audio(since=t0), seconds, skip_end=0.1)
            for pid, p in peers.items()}


def levels(rec: dict[str, np.ndarray], hz: float) -> dict[str, float]:
    """The level of tone `hz` in each recording, dB re full scale (median of 0.25 s windows)."""
    return {pid: tone_db_robust(x, hz) for pid, x in rec.items()}
