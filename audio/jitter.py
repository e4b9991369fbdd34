"""Per-speaker jitter queue: bursty arrivals in, exactly one 960-sample frame out per tick.

Policy, in the order a frame meets it:

- `push` accepts any length and re-chunks into frames; the queue never holds
  more than `max_frames` frames of audio (100 ms), or, for a timed stream whose
  measured jitter needs more, that need and two frames (at most `DEEPEST`, 240 ms):
  beyond that the oldest
  frames are dropped (`overflows`).
- Playback starts (and restarts after running dry) once `target` frames are
  queued, so a burst-and-gap arrival pattern is absorbed with 40-60 ms of
  latency. A talk spurt shorter than that still plays once the sender has
  paused for two ticks.
- With playout timing (`push(pcm, since_pop=..., ts=...)`: when the frame
  arrived, and its media time from the sender's RTP clock) the queue
  measures the speaker's own arrival jitter instead of assuming it: each
  frame's delay `arrival - media time` is summed up per 0.2 s of talk over
  the last 5 s, and a talk spurt starts playing on the first tick at which
  every later frame of it, up to the worst delay of those segments (the
  worst left out: a stall and its catch-up burst are one event, not
  jitter) plus `MARGIN`, will have arrived before its own tick. On a steady
  link that is the next tick after the first frame (no frame of cushion:
  20 ms less than `target` 2); on a jittery one it waits as long as the
  jitter needs. While it plays, the queue knows how long after being spoken
  each frame is played (`_offset`, in ticks); before each pop it cuts
  whatever exceeds the jitter's need by half a frame or more (down to a
  quarter frame above it) instead of reading the queue's depth, so a stream
  that started with too much cushion (the first frames, before the jitter
  is known, assume a whole frame) or got a catch-up burst comes back to the
  floor even if it never pauses. `slack` says how long its worst frames
  wait for their pop; the voice loop moves its tick grid earlier by that
  much (`regrid` tells the queue), so the tick comes right after the frames.
- Excess latency is shed quickly: if after every pop of the last
  `trim_ticks` ticks (200 ms) more than `target` frames were left (a sender's
  catch-up burst after a stall, or a clock that runs fast), the queue is cut
  back to its usual `target - 1` frames after a pop, one frame's worth per
  tick (`trimmed` counts them), so a 200 ms burst is recovered from within
  ~0.4 s instead of sitting at the ceiling. A stream that ran dry twice
  within `HOLE_MEMORY` (5 s) is cut back to `target` instead: a frame of
  cushion against its next hole. Each cut takes the quietest 20 ms
  of the queued audio (silence first: the cuts may wait up to `PATIENCE`
  ticks in all for a pause to be queued, `PATIENCE_SMALL` (1 s) for an excess of a
  frame or less, so pauses between words absorb them),
  ends it where the following audio best matches the removed audio's start
  (up to 5 ms later: a pitch-aligned time compression for voiced sound) and
  cross-fades over 5 ms from the removed audio's start, the true continuation
  of what precedes the cut, into what follows it: no click. A cut still
  pending when the queue runs dry is dropped: the excess was that stream's.
- Running dry plays silence: the last frame's tail is continued (mirrored)
  and faded out over 5 ms, so there is no click; playback fades back in.
  Any other break in continuity (a dropped frame) is a 5 ms cross-fade.
- `underruns` counts holes *inside* a stream: the queue ran dry and audio
  came back within `gap_ticks` (200 ms). A speaker who never sent, or who
  stopped sending (muted mic, DTX), is not counted; `active` says whether
  the speaker sent anything in the last `idle_ticks` ticks.

The queue keeps the policy; the splices (fades, concealment, cuts) are in
audio/splice.py and the arrival delays' statistics in audio/arrival.py.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from audio.arrival import ArrivalDelays
from audio.format import FRAME
from audio.splice import ALIGN, FADE, conceal, crossfade, cut, flush

__all__ = ["JitterQueue", "FADE"]

HOLE_MEMORY = 250  # ticks (5 s): two underruns this close keep the queue a frame deeper
PATIENCE = 6  # ticks the cuts of one excess may wait in all for a pause to be queued (0.12 s)
# ... and of an excess of a frame or less (a jitter estimate that came down, the first
# frames' assumed cushion): 20 ms of latency for a while costs less than a cut inside a
# word, which costs PESQ 0.1-0.6 on the sentence it falls in (issue 36); a pause (and
# the end of a talk spurt, which drops what is pending) comes within a second or two
PATIENCE_SMALL = 50  # ticks (1 s)
DEEPEST = 12  # frames a timed stream's queue may hold at most (240 ms), for its jitter
TIMED_EXCESS = 0.5  # ticks of playout delay beyond the jitter's need before a cut
_SILENCE = np.zeros(FRAME, dtype=np.float32)
_SILENCE.flags.writeable = False
SILENT_FRAME = _SILENCE  # what `pop` returns while nothing plays: the same array every time


class JitterQueue:
    """Bounded FIFO of one speaker's frames with click-free underrun handling."""

    def __init__(
        self,
        target: int = 2,
        max_frames: int = 5,
        gap_ticks: int = 10,
        idle_ticks: int = 25,
        trim_ticks: int = 10,
    ):
        self.target = target
        self.max_frames = max_frames
        self.gap_ticks = gap_ticks
        self.idle_ticks = idle_ticks
        self.trim_ticks = trim_ticks
        self.underruns = 0
        self.overflows = 0
        self.trimmed = 0
        self._frames: deque[np.ndarray] = deque()
        self._partial = np.zeros(0, dtype=np.float32)
        self._playing = False
        self._last = _SILENCE  # last frame handed out, for the mirrored continuation
        self._splice = True  # the next frame played does not continue `_last`
        self._flushed: np.ndarray | None = None  # a partial frame padded with silence
        self._tick = 0
        self._last_push: int | None = None  # tick of the last push
        self._dry_at: int | None = None  # tick the queue ran dry while playing
        self._lows: deque[float] = deque(maxlen=trim_ticks)  # depth left after the last pops
        self._excess = 0  # samples still to shed
        self._waited = 0  # ticks the next cut has waited for a pause
        self._holes: deque[int] = deque(maxlen=2)  # ticks of the last two underruns
        # playout timing (push with since_pop and ts), in ticks
        self._delays = ArrivalDelays()
        self._due: float | None = None  # the tick the pending talk spurt may start at
        self._head_ts: float | None = None  # media time of the pending spurt's first frame
        self._next_ts: float | None = None  # media time the next frame should have
        self._offset: float | None = None  # while playing: tick of a pop - media time played
        self._phase = 0.0  # the fraction of a frame in the sender's media times

    # ------------------------------------------------------------------ state

    @property
    def depth(self) -> float:
        """Queued audio, in frames (a partial frame counts as a fraction)."""
        return (len(self._frames) * FRAME + self._partial.size) / FRAME

    @property
    def active(self) -> bool:
        """True if the speaker pushed audio in the last `idle_ticks` ticks."""
        return self._last_push is not None and self._tick - self._last_push <= self.idle_ticks

    # ------------------------------------------------------------------- push

    def push(self, pcm: np.ndarray, since_pop: float | None = None,
             ts: float | None = None) -> None:
        """Queue float32 mono samples of any length (copied).

        Playout timing, for a whole frame: `since_pop`, how long after the
        last pop it arrived (in periods, >= 0), and `ts`, the media time of
        its first sample in frames (the sender's RTP time / 960).
        """
        x = np.asarray(pcm, dtype=np.float32).reshape(-1)
        if x.size == 0:
            return
        if since_pop is not None and ts is not None and x.size == FRAME:
            self._timed(self._tick + max(0.0, since_pop), float(ts))
        if x.size == FRAME and not self._partial.size:
            self._frames.append(x.copy())  # the usual case: one whole 20 ms frame
        else:
            x = np.concatenate([self._partial, x]) if self._partial.size else x.copy()
            whole = x.size // FRAME
            for i in range(whole):
                self._frames.append(x[i * FRAME : (i + 1) * FRAME])
            self._partial = x[whole * FRAME :]
        cap = self._cap() * FRAME
        while self._frames and len(self._frames) * FRAME + self._partial.size > cap:
            self._frames.popleft()  # the oldest audio is the least useful
            self.overflows += 1
            if self._offset is not None:
                self._offset -= 1  # what follows plays a frame earlier
            elif self._head_ts is not None:
                self._head_ts += 1
            self._splice = True
        if self._dry_at is not None:
            if self._tick - self._dry_at <= self.gap_ticks:
                self.underruns += 1
                self._holes.append(self._tick)
            self._dry_at = None
        self._last_push = self._tick

    def note(self, since_pop: float, ts: float) -> None:
        """Frame `ts` came `since_pop` after the last pop, too late (or a lost one's FEC): its
        delay counts, and it is a hole as an underrun is (see `_chronic`)."""
        self._delays.note(self._tick + max(0.0, since_pop), float(ts))
        self._holes.append(self._tick)

    # -------------------------------------------------------------------- pop

    def pop(self) -> np.ndarray:
        """The frame to play this tick (960 samples; silence when there is none)."""
        self._tick += 1
        paused = self._last_push is not None and self._tick - self._last_push > 2
        if not self._playing:
            if self._due is not None:
                ready = bool(self._frames) and self._tick >= self._due - 1e-9
            else:
                ready = len(self._frames) >= self.target
            # A timed spurt starts at its due tick, pause or not: its next frames may just
            # be late (the jitter it waits for); started early, it would play untimed.
            early = paused and self._due is None
            if ready or (early and (self._frames or self._partial.size)):
                self._playing = True
                self._due = None
                if self._head_ts is not None and ready:
                    self._offset = self._tick - self._head_ts
                self._head_ts = None
            else:
                self._last = _SILENCE
                return _SILENCE
        if not self._frames and paused and self._partial.size:
            self._flush_partial()
        if not self._frames:
            self._playing = False
            self._offset = None
            self._dry_at = self._tick
            # The excess was this stream's latency, and it ran out: a cut still pending
            # would take audio from the next spurt, which starts at its own latency.
            self._excess = 0
            self._waited = 0
            return self._conceal()
        timed = self._offset is not None
        if timed:
            # Before the pop, so that the frame after it (if here) can be cut too.
            self._trim(timed=True)
        frame = self._frames.popleft()
        # Silence was padded in after a flushed partial frame: whatever comes
        # next does not continue it.
        padded = frame is self._flushed
        if self._splice:
            frame = self._crossfade(frame)
        self._splice = padded
        if not timed:
            self._trim()
        self._last = frame
        return frame

    # ---------------------------------------------------------------- helpers

    def _conceal(self) -> np.ndarray:
        out = conceal(self._last)
        self._last = out
        self._splice = True
        return out

    def _crossfade(self, frame: np.ndarray) -> np.ndarray:
        return crossfade(frame, self._last)

    def _flush_partial(self) -> None:
        # The sender paused mid-frame: play what there is, then fade it out. It
        # continues the last frame played, unless a splice (fade-in) is pending.
        out = flush(self._partial, None if self._splice else self._last)
        self._frames.append(out)
        self._flushed = out
        self._partial = np.zeros(0, dtype=np.float32)

    def _trim(self, timed: bool = False) -> None:
        # Find excess latency and shed it, about a frame's worth per tick. Without
        # timing: called after each pop, from the depth left over the last
        # `trim_ticks` pops. Timed: called before the pop (the frame to play now
        # must stay whole), from how long after being spoken the frames play.
        if self._excess == 0 and timed:
            # A pop plays a whole frame's worth, so the frames that hold it must all
            # be here: the earliest workable offset is the first one, at or after
            # the jitter's worst delay, at which the pops fall on the frames' own
            # boundaries (the media time's fraction `_phase`). Anything beyond is
            # shed, down to a quarter frame above it (a cut may remove up to
            # ALIGN / 2 more than asked).
            excess = self._offset - self._best_offset()
            if excess >= TIMED_EXCESS:
                self._excess = round((excess - 0.25) * FRAME)
        elif self._excess == 0:
            lows = self._lows
            lows.append((len(self._frames) * FRAME + self._partial.size) / FRAME)  # depth
            if len(lows) == lows.maxlen:  # more than `target` frames left after every pop?
                low = min(lows)
                if low >= 1 and low >= self.target + 1:
                    self._excess = round((low - self._floor()) * FRAME)
        if self._excess > 0:
            patience = PATIENCE_SMALL if self._excess <= FRAME else PATIENCE
            cut = self._shed(min(FRAME, self._excess), silent_only=self._waited < patience,
                             keep=FRAME if timed else None)
            if cut is None:  # no pause queued yet: wait a little for one
                self._waited += 1
                return
            self.trimmed += cut > 0
            if self._offset is not None:
                self._offset -= cut / FRAME
            # what is left is under half an alignment step (or the queue drained meanwhile)
            self._excess = self._excess - cut if cut and self._excess - cut >= ALIGN // 2 else 0
            if self._excess == 0:
                self._lows.clear()
                self._waited = 0

    def _floor(self) -> int:
        # Frames to keep after a pop: one more while the stream keeps running dry
        # (two holes within HOLE_MEMORY), against the next one; a single stall
        # and its catch-up burst go back to the usual latency.
        return self.target - 1 + self._chronic()

    def _best_offset(self) -> float:
        # The earliest workable playout offset (ticks): the first one at or after the
        # jitter's worst delay on the frames' own boundaries, plus a frame if chronic.
        low, high = self._delays.spread()
        return math.ceil(high + self._phase - 1e-9) - self._phase + self._chronic()

    def _cap(self) -> int:
        # Frames the queue may hold: `max_frames`, or a timed stream's measured jitter
        # and two frames more (30 ms s.d. of delay needs ~100 ms), up to DEEPEST.
        if self._delays.last_d is None:
            return self.max_frames
        low, high = self._delays.spread()
        return max(self.max_frames, min(DEEPEST, math.ceil(high - low) + 2))

    def _chronic(self) -> int:
        # Two holes (underruns, late or lost frames) within HOLE_MEMORY: a frame more.
        return int(len(self._holes) == 2 and self._tick - self._holes[0] <= HOLE_MEMORY)

    # ---------------------------------------------------------- playout timing

    def _timed(self, at: float, ts: float) -> None:
        # One whole frame arrived at tick time `at`, spoken at media time `ts`.
        d = at - ts
        self._delays.note(at, ts)
        if self._offset is not None and self._next_ts is not None and ts > self._next_ts + 0.5:
            # Frames lost on the way: the queue plays this one as early as the
            # first missing one would have been.
            self._offset -= round(ts - self._next_ts)
        self._next_ts = ts + 1
        self._phase = ts % 1.0
        if not self._playing and not self._frames:
            # (a partial frame left by a cut plays first: it counts as earlier media)
            self._head_ts = ts - self._partial.size / FRAME
            # The first frame of a talk spurt: the spurt's frames are played one
            # per tick from this one's, so it waits until the latest of them
            # (the worst delay seen) would still be in time.
            low, high = self._delays.spread()
            wait = min(max(0.0, high - d) + self._chronic(), self._cap() - 1)
            self._due = at + wait

    def regrid(self, ticks: float) -> None:
        """The pops now come `ticks` periods earlier than the delays known so far
        assumed (the caller moved its tick grid): every delay counts that much
        longer, and a pending start waits that much more in ticks (the same time)."""
        self._delays.regrid(ticks)
        if self._due is not None:
            self._due += ticks

    @property
    def slack(self) -> float | None:
        """While a timed stream plays: how long (in ticks) its worst-delayed frames,
        margin included, wait for their pop; None otherwise. A tick that came this
        much earlier would still find them all. 0 while a cut is under way or due
        (the grid must hold still while the cut takes the excess)."""
        if self._offset is None or not self._playing:
            return None
        if self._excess > 0:
            return 0.0  # a cut is under way: it alone takes the excess
        if self._offset - self._best_offset() >= TIMED_EXCESS:
            return 0.0  # a cut is due at the next pop: it alone takes the excess
        low, high = self._delays.spread()
        return self._offset - high - self._chronic()

    @property
    def jitter(self) -> float | None:
        """The arrival jitter the playout allows for, in frames (None without timing)."""
        if self._delays.last_d is None:
            return None
        low, high = self._delays.spread()
        return high - low

    def _shed(self, want: int, silent_only: bool = False, keep: int | None = None) -> int | None:
        """Remove about `want` samples of queued audio (within +-ALIGN/2), quietest
        first, click-free; the number removed (0 if the queue is too short for a
        clean cut or holds a flushed partial), None if `silent_only` and no pause
        is queued."""
        if any(f is self._flushed for f in self._frames):
            return 0
        # What must stay after the cut: the frames the queue plays from, and a whole fade.
        if keep is None:
            keep = max(FADE, self._floor() * FRAME)
        got = cut(self._frames, self._partial, want, keep, silent_only)
        if got is None:
            return None
        rest, removed = got
        if rest is not None:
            whole = rest.size // FRAME
            self._frames = deque(rest[i * FRAME : (i + 1) * FRAME] for i in range(whole))
            self._partial = rest[whole * FRAME :]
        return removed
