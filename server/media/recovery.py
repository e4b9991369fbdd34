"""One speaker's mic packets put back in order, and the lost ones rebuilt, before the mixer.

What a browser's NetEq does for its own listener, the server does for every mic it
mixes (issue 36: a lost mic packet used to be a hole the jitter queue faded over,
and a packet that came out of order was thrown away):

- **Order.** Packets are decoded in sequence-number order. One that comes after
  a gap is held (`MAX_GAP` at most) until the missing one arrives or the
  speaker's jitter queue needs it, whichever comes first: a path that reorders
  loses nothing, and a lost packet costs no more delay than the queue already
  has.
- **In-band FEC.** When the queue needs a frame that never came, the packet
  after it is asked for its LBRR copy of it (the browser codes one once the
  answer says `useinbandfec=1` and its receiver reports show loss); libopus
  falls back to its own concealment where that packet carries none.
- **Concealment.** Where nothing after the hole has come yet, libopus's packet
  loss concealment continues the voice (pitch-synchronous, fading) for up to
  `MAX_EXPAND` frames, instead of a 5 ms fade to silence; the late packet of
  a frame already concealed is then dropped and the decoder goes on from the
  next, as a browser's does.
- Nothing is rebuilt after a silent frame (a DTX pause, a muted mic: the
  browser sends nothing on purpose), nor across a hole longer than `MAX_GAP`
  (a blackout, a new stream: the queue's fade and restart handle those).

Only the speaker's own packets are read: a rebuilt frame is this speaker's voice,
routed as any of their frames (the mixer's routing decides who hears it).
`deliver(pcm, ts, at)` receives every frame, real or rebuilt, in media order, and
`deliver(None, ts, at)` the arrival of what came too late to be played (a packet whose
frame was concealed, or the FEC that could have rebuilt it), for the playout timing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from server.media.opus import FRAME, DirectDecoder, OpusError

__all__ = ["MicRecovery", "MAX_GAP", "MAX_EXPAND"]

MAX_GAP = 8  # packets held after a hole at most (160 ms); a longer hole is not filled
MAX_EXPAND = 5  # frames concealed in a row while nothing comes (100 ms), then the queue fades
SOUND_POWER = (4 / 32768) ** 2  # mean square above which a frame is sound, not silence


def _seq_delta(a: int, b: int) -> int:
    """a - b on the 16-bit sequence-number circle, in -32768..32767."""
    return ((a - b + 0x8000) & 0xFFFF) - 0x8000


def _ts_delta(a: int, b: int) -> int:
    """a - b on the 32-bit RTP-time circle."""
    return ((a - b + 0x80000000) & 0xFFFFFFFF) - 0x80000000


class MicRecovery:
    """The packets of one mic stream -> frames in order, lost ones rebuilt (see module)."""

    __slots__ = ("_dec", "_deliver", "_next_seq", "_next_ts", "_held", "_expanded",
                 "_talking", "decoded", "recovered", "concealed", "reordered", "late",
                 "errors")

    def __init__(self, decoder: DirectDecoder,
                 deliver: Callable[[np.ndarray | None, int, float | None], None]) -> None:
        self._dec = decoder
        self._deliver = deliver
        self._next_seq: int | None = None  # the sequence number expected next
        self._next_ts = 0  # the RTP time the next frame starts at
        self._held: dict[int, tuple[int, bytes, float | None]] = {}  # seq -> (ts, payload, at)
        self._expanded = 0  # frames concealed since the last packet decoded
        self._talking = False  # the last frame decoded was sound, not silence
        self.decoded = 0  # packets decoded
        self.recovered = 0  # lost frames rebuilt from the next packet's FEC
        self.concealed = 0  # lost frames concealed (nothing to rebuild them from)
        self.reordered = 0  # packets that came after a later one and were still used
        self.late = 0  # packets dropped: a repeat, or their frame was already rebuilt
        self.errors = 0  # payloads libopus refused

    @property
    def next_seq(self) -> int:
        """The sequence number expected next (0 before the first packet)."""
        return 0 if self._next_seq is None else self._next_seq

    @property
    def waiting(self) -> bool:
        """True while packets are held behind a hole."""
        return bool(self._held)

    # ---------------------------------------------------------------- arrival

    def take(self, seq: int, ts: int, payload: bytes, at: float | None = None) -> None:
        """One packet as it arrives (any order): decoded now if it is the next one,
        held if it comes after a hole, dropped if its frame is already played."""
        if self._next_seq is None:
            self._next_seq, self._next_ts = seq, ts
        d = _seq_delta(seq, self._next_seq)
        if d < 0:
            self.late += 1
            return
        if d >= MAX_GAP:
            # A hole too long to fill (a blackout, a restarted sender): play what is held
            # as it is, then start again from this packet.
            self._flush_held()
            self._next_seq, self._next_ts = seq, ts
            d = 0
        if d > 0:
            if seq in self._held:
                self.late += 1
            else:
                self._held[seq] = (ts, payload, at)
            return
        if self._held:
            self.reordered += 1  # it came after a later packet, in time to be used
        self._play(seq, ts, payload, at)
        self._release()

    # ------------------------------------------------------------------ ticks

    def settle(self, dry: bool, at: float | None = None) -> None:
        """Before a tick: `dry` says the speaker's queue would run out at this tick. Then a
        hole behind held packets is filled (FEC, else concealment), or, mid-speech with
        nothing held, one frame is concealed."""
        if not dry or self._next_seq is None:
            return
        if self._held:
            self._fill_hole(at)
        elif self._talking and self._expanded < MAX_EXPAND:
            self._conceal(None, at)
            self._expanded += 1

    # --------------------------------------------------------------- helpers

    def _play(self, seq: int, ts: int, payload: bytes, at: float | None) -> None:
        # One packet in its turn; a packet whose frame was concealed already is dropped
        # (the decoder went on without it).
        self._next_seq = (seq + 1) & 0xFFFF
        if _ts_delta(ts, self._next_ts) < 0:
            # Its frame was concealed already: too late, but its delay is the path's
            # jitter, which the playout timing must count.
            self.late += 1
            self._deliver(None, ts, at)
            return
        if self._expanded:
            # The frame before this one was concealed: waiting for this packet would have
            # rebuilt it from the FEC, so that is the delay the timing counts for it.
            self._deliver(None, (ts - FRAME) & 0xFFFFFFFF, at)
        try:
            pcm = self._dec.decode(payload)
        except OpusError:
            self.errors += 1
            return
        self.decoded += 1
        self._expanded = 0
        self._next_ts = (ts + pcm.size) & 0xFFFFFFFF
        self._talking = float(np.dot(pcm, pcm)) > pcm.size * SOUND_POWER
        self._deliver(pcm, ts, at)

    def _release(self) -> None:
        while self._next_seq in self._held:
            ts, payload, at = self._held.pop(self._next_seq)
            self._play(self._next_seq, ts, payload, at)

    def _fill_hole(self, at: float | None) -> None:
        # Rebuild every frame missing before the first held packet: concealment for all
        # but the last, which that packet's FEC rebuilds; then play what is held.
        first = min(self._held, key=lambda s: _seq_delta(s, self._next_seq))
        ts_first, payload, _ = self._held[first]
        missing = _seq_delta(first, self._next_seq)
        step = self._dec.samples_of(payload)  # the lost packets were as long as this one
        for i in range(missing):
            ts = (ts_first - (missing - i) * step) & 0xFFFFFFFF
            if _ts_delta(ts, self._next_ts) < 0:
                continue  # concealed already, while nothing was held
            self._next_ts = ts
            self._conceal(payload if i == missing - 1 else None, at, step)
        self._next_seq = first
        self._release()

    def _conceal(self, fec_from: bytes | None, at: float | None, samples: int = FRAME) -> None:
        try:
            pcm = self._dec.recover(fec_from, samples)
        except Exception:
            self.errors += 1
            return
        if fec_from is not None and self._dec.carries_fec(fec_from):
            self.recovered += 1
        else:
            self.concealed += 1
        ts = self._next_ts
        self._next_ts = (ts + pcm.size) & 0xFFFFFFFF
        self._deliver(pcm, ts, at)

    def _flush_held(self) -> None:
        for seq in sorted(self._held, key=lambda s: _seq_delta(s, self._next_seq)):
            ts, payload, at = self._held[seq]
            self._next_seq, self._next_ts = seq, ts
            self._play(seq, ts, payload, at)
        self._held.clear()

    def counts(self) -> dict[str, int]:
        """The stream's counters, by name."""
        return {name: getattr(self, name) for name in
                ("decoded", "recovered", "concealed", "reordered", "late", "errors")}
