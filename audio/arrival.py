"""One speaker's arrival delays: the jitter the playout timing waits for (audio/jitter.py).

Each whole frame pushed with timing has a delay `arrival - media time`, in
ticks. The delays are summed up per `SEGMENT` frames (0.2 s of talk) as
(min, max), over the last `SEGMENTS` whole segments (5 s) and the current
one. The jitter to wait for is the worst delay of those segments with the
`OUTLIERS` worst left out: a stall and its catch-up burst are one event,
kept in one segment, not jitter to wait for every time. A delay far from
the last one (`RESYNC`) is a new sender clock, learnt afresh.
"""

from __future__ import annotations

from collections import deque

__all__ = ["ArrivalDelays", "MARGIN"]

SEGMENT = 10  # frames (0.2 s): arrival delays are summed up per segment (min, max)
SEGMENTS = 25  # segments kept (5 s) besides the current one
# The worst segment left out: a stall once in a while is not jitter. (Three were, until
# issue 36's offline replay, bench/mic_path.py: with 30 ms of jitter the playout then
# waited for ~97 % of the frames and the rest were concealed; leaving one out keeps ~99 %,
# PESQ 3.71 -> 3.96 for 20-40 ms more delay on such a link, none on a steady one.)
OUTLIERS = 1
OUTLIERS_FROM = 5  # segments known (1 s of talk) before the worst is left out
# Ticks (8 ms) of slack beyond the worst delay: the tick grid sits just after the talkers'
# frames (audio/phase.py), so this alone covers a packet a few ms later than any of the
# last seconds (a sender's audio thread that hesitates, a Wi-Fi retry, the server's loop
# busy for a moment), which comes too late for its tick otherwise and is concealed. 2 ms
# did not: a clean room concealed 6-10 frames in some 15 s cells of bench/voice_quality.py
# and those sentences scored PESQ 1.5-1.9 (5 of 36 below 3; with 8 ms, 1 of 36 and 0 of
# 36 in two sets of 12 cells); bench/mic_path.py's `hiccups` replay concealed 13 frames
# in 4 seeds, now none. The cost: 6 ms more playout delay on a perfectly steady link.
MARGIN = 0.4
RESYNC = 25.0  # ticks: a delay this far from the last one is a new sender clock


class ArrivalDelays:
    """The delays of one speaker's frames, summed up per segment, in ticks."""

    def __init__(self) -> None:
        # (min, max) of the last SEGMENTS whole segments, and of the current one with its count
        self._segs: deque[tuple[float, float]] = deque(maxlen=SEGMENTS)
        self._seg = (0.0, 0.0)
        self._seg_n = 0
        # Kept in the grid of the first tick: a `regrid` since then moved the ticks.
        self.last_d: float | None = None  # the last delay
        self.last_at: float | None = None  # the last arrival
        self._spread: tuple[float, float] | None = None  # (low, high), cached
        self.grid = 0.0  # ticks the pops moved earlier (regrid), in all

    def note(self, at: float, ts: float) -> None:
        """One whole frame arrived at tick time `at`, spoken at media time `ts`."""
        d = at - ts
        ds, ats = d - self.grid, at - self.grid
        if self.last_d is not None and abs(ds - self.last_d) > RESYNC:
            self._segs.clear()  # a new connection, or the RTP clock wrapped
            self._seg_n = 0
        # A frame right behind the previous one is part of a catch-up burst; a
        # burst stays in one segment, so that it counts as one outlier.
        burst = self.last_at is not None and ats - self.last_at < 0.5
        self.last_d, self.last_at = ds, ats
        if self._seg_n >= SEGMENT and not burst:
            self._segs.append(self._seg)
            self._seg_n = 0
        if self._seg_n == 0:
            self._seg = (ds, ds)
            self._spread = None
        else:
            lo, hi = self._seg
            if ds < lo or ds > hi:
                self._seg = (min(lo, ds), max(hi, ds))
                self._spread = None
        self._seg_n += 1

    def spread(self) -> tuple[float, float]:
        """(lowest delay, the jitter's worst delay + MARGIN) in ticks, over the last
        5 s of talk, leaving out the OUTLIERS worst segments. With fewer than
        SEGMENT delays known, a whole frame of jitter is assumed."""
        if self._spread is None:
            segs = list(self._segs)
            if self._seg_n:
                segs.append(self._seg)
            low = min(lo for lo, _ in segs)
            if len(self._segs) == 0 and self._seg_n < SEGMENT:
                high = max(self._seg[1], low + 1.0)
            else:
                # (until a second's worth of segments is known, none is left out)
                highs = sorted((hi for _, hi in segs), reverse=True)
                high = highs[OUTLIERS if len(highs) >= OUTLIERS_FROM else 0]
            self._spread = (low, high)
        low, high = self._spread
        return low + self.grid, high + self.grid + MARGIN

    def regrid(self, ticks: float) -> None:
        """The pops now come `ticks` periods earlier: every delay counts that much longer."""
        self.grid += ticks
