"""Per-speaker jitter queue: bursty arrivals in, exactly one 960-sample frame out per tick.

Policy, in the order a frame meets it:

- `push` accepts any length and re-chunks into frames; the queue never holds
  more than `max_frames` frames of audio (100 ms): beyond that the oldest
  frames are dropped (`overflows`).
- Playback starts (and restarts after running dry) once `target` frames are
  queued, so a burst-and-gap arrival pattern is absorbed with 40-60 ms of
  latency. A talk spurt shorter than that still plays once the sender has
  paused for two ticks.
- Excess latency is shed quickly: if after every pop of the last
  `trim_ticks` ticks (200 ms) more than `target` frames were left (a sender's
  catch-up burst after a stall, or a clock that runs fast), the queue is cut
  back to its usual `target - 1` frames after a pop, one frame's worth per
  tick (`trimmed` counts them), so a 200 ms burst is recovered from within
  ~0.4 s instead of sitting at the ceiling. A stream that ran dry twice
  within `HOLE_MEMORY` (5 s) is cut back to `target` instead: a frame of
  cushion against its next hole. Each cut takes the quietest 20 ms
  of the queued audio (silence first: the cuts may wait up to `PATIENCE`
  ticks in all for a pause to be queued, so pauses between words absorb them),
  ends it where the following audio best matches the removed audio's start
  (up to 5 ms later: a pitch-aligned time compression for voiced sound) and
  cross-fades over 5 ms from the removed audio's start, the true continuation
  of what precedes the cut, into what follows it: no click.
- Running dry plays silence: the last frame's tail is continued (mirrored)
  and faded out over 5 ms, so there is no click; playback fades back in.
  Any other break in continuity (a dropped frame) is a 5 ms cross-fade.
- `underruns` counts holes *inside* a stream: the queue ran dry and audio
  came back within `gap_ticks` (200 ms). A speaker who never sent, or who
  stopped sending (muted mic, DTX), is not counted; `active` says whether
  the speaker sent anything in the last `idle_ticks` ticks.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from audio.format import FRAME

__all__ = ["JitterQueue", "FADE"]

FADE = 240  # 5 ms: long enough to be click-free, short enough to be unnoticed
ALIGN = 240  # a cut may end up to 5 ms later, to match a pitch period of 200 Hz or more
SILENT_POWER = 1e-5  # mean square of a pause (-50 dBFS): cut there without a sound lost
HOLE_MEMORY = 250  # ticks (5 s): two underruns this close keep the queue a frame deeper
PATIENCE = 6  # ticks the cuts of one excess may wait in all for a pause to be queued (0.12 s)
_FADE_OUT = (0.5 * (1.0 + np.cos(np.pi * np.arange(FADE) / FADE))).astype(np.float32)
_FADE_IN = (1.0 - _FADE_OUT).astype(np.float32)
_SILENCE = np.zeros(FRAME, dtype=np.float32)
_SILENCE.flags.writeable = False


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

    def push(self, pcm: np.ndarray) -> None:
        """Queue float32 mono samples of any length (copied)."""
        x = np.asarray(pcm, dtype=np.float32).reshape(-1)
        if x.size == 0:
            return
        if x.size == FRAME and not self._partial.size:
            self._frames.append(x.copy())  # the usual case: one whole 20 ms frame
        else:
            x = np.concatenate([self._partial, x]) if self._partial.size else x.copy()
            whole = x.size // FRAME
            for i in range(whole):
                self._frames.append(x[i * FRAME : (i + 1) * FRAME])
            self._partial = x[whole * FRAME :]
        while self._frames and len(self._frames) * FRAME + self._partial.size > self.max_frames * FRAME:
            self._frames.popleft()  # the oldest audio is the least useful
            self.overflows += 1
            self._splice = True
        if self._dry_at is not None:
            if self._tick - self._dry_at <= self.gap_ticks:
                self.underruns += 1
                self._holes.append(self._tick)
            self._dry_at = None
        self._last_push = self._tick

    # -------------------------------------------------------------------- pop

    def pop(self) -> np.ndarray:
        """The frame to play this tick (960 samples; silence when there is none)."""
        self._tick += 1
        paused = self._last_push is not None and self._tick - self._last_push > 2
        if not self._playing:
            if len(self._frames) >= self.target or (paused and (self._frames or self._partial.size)):
                self._playing = True
            else:
                self._last = _SILENCE
                return _SILENCE
        if not self._frames and paused and self._partial.size:
            self._flush_partial()
        if not self._frames:
            self._playing = False
            self._dry_at = self._tick
            return self._conceal()
        frame = self._frames.popleft()
        # Silence was padded in after a flushed partial frame: whatever comes
        # next does not continue it.
        padded = frame is self._flushed
        if self._splice:
            frame = self._crossfade(frame)
        self._splice = padded
        self._trim()
        self._last = frame
        return frame

    # ---------------------------------------------------------------- helpers

    def _continuation(self) -> np.ndarray:
        # Mirror the last frame around its last sample: continuous in value,
        # and with the same local slope magnitude, so fading it is click-free.
        return self._last[-2 : -2 - FADE : -1]

    def _conceal(self) -> np.ndarray:
        out = np.zeros(FRAME, dtype=np.float32)
        out[:FADE] = self._continuation() * _FADE_OUT
        self._last = out
        self._splice = True
        return out

    def _crossfade(self, frame: np.ndarray) -> np.ndarray:
        out = frame.copy()
        out[:FADE] = frame[:FADE] * _FADE_IN + self._continuation() * _FADE_OUT
        return out

    def _flush_partial(self) -> None:
        # The sender paused mid-frame: play what there is, then fade out a
        # mirrored continuation of it (as on an underrun), then silence.
        n = self._partial.size
        out = np.zeros(FRAME, dtype=np.float32)
        out[:n] = self._partial
        # What the partial continues: the last frame played, unless a splice
        # (fade-in) is pending, in which case only the partial itself.
        played = self._partial if self._splice else np.concatenate([self._last, self._partial])
        mirrored = np.pad(played, (0, FADE), mode="reflect")[played.size :]
        out[n : n + FADE] = (mirrored * _FADE_OUT)[: FRAME - n]
        self._frames.append(out)
        self._flushed = out
        self._partial = np.zeros(0, dtype=np.float32)

    def _trim(self) -> None:
        # Called after each pop: find excess latency over the last `trim_ticks`
        # pops and shed it, about a frame's worth per tick.
        if self._excess == 0:
            self._lows.append(self.depth)
            low = min(self._lows)
            if len(self._lows) == self._lows.maxlen and low >= self.target + 1:
                self._excess = round((low - self._floor()) * FRAME)
        if self._excess > 0:
            cut = self._shed(min(FRAME, self._excess), silent_only=self._waited < PATIENCE)
            if cut is None:  # no pause queued yet: wait a little for one
                self._waited += 1
                return
            self.trimmed += cut > 0
            # what is left is under half an alignment step (or the queue drained meanwhile)
            self._excess = self._excess - cut if cut and self._excess - cut >= ALIGN // 2 else 0
            if self._excess == 0:
                self._lows.clear()
                self._waited = 0

    def _floor(self) -> int:
        # Frames to keep after a pop: one more while the stream keeps running dry
        # (two holes within HOLE_MEMORY), against the next one; a single stall
        # and its catch-up burst go back to the usual latency.
        chronic = len(self._holes) == 2 and self._tick - self._holes[0] <= HOLE_MEMORY
        return self.target - 1 + chronic

    def _shed(self, want: int, silent_only: bool = False) -> int | None:
        """Remove about `want` samples of queued audio (within +-ALIGN/2), quietest
        first, click-free; the number removed (0 if the queue is too short for a
        clean cut or holds a flushed partial), None if `silent_only` and no pause
        is queued."""
        if any(f is self._flushed for f in self._frames):
            return 0
        parts = [*self._frames, self._partial] if self._partial.size else list(self._frames)
        flat = np.concatenate(parts)
        # What must stay after the cut: the frames the queue plays from, and a whole fade.
        keep = max(FADE, self._floor() * FRAME)
        base = max(want - ALIGN // 2, 1)
        align = min(ALIGN, flat.size - keep - base)
        if align < 0:
            return 0
        # The quietest `base`-long window, on a 5 ms grid (the earliest on ties).
        power = np.concatenate([[0.0], np.cumsum(flat.astype(np.float64) ** 2)])
        starts = np.arange(0, flat.size - base - align - FADE + 1, FADE)
        window = power[starts + base] - power[starts]
        s = int(starts[np.argmin(window)])
        if silent_only and window.min() > SILENT_POWER * base:
            return None
        head = flat[s : s + FADE]
        # End the cut where what follows looks most like the removed audio's start
        # (normalised cross-correlation), so a voiced sound keeps its phase.
        lag = 0
        if align and np.dot(head, head) > 1e-8:
            seg = flat[s + base : s + base + align + FADE - 1].astype(np.float64)
            corr = np.correlate(seg, head.astype(np.float64), mode="valid")
            energy = np.convolve(seg**2, np.ones(FADE), mode="valid")
            lag = int(np.argmax(corr / np.sqrt(energy + 1e-12)))
        tail = flat[s + base + lag :].copy()
        tail[:FADE] = tail[:FADE] * _FADE_IN + head * _FADE_OUT
        rest = np.concatenate([flat[:s], tail])
        whole = rest.size // FRAME
        self._frames = deque(rest[i * FRAME : (i + 1) * FRAME] for i in range(whole))
        self._partial = rest[whole * FRAME :]
        return base + lag
