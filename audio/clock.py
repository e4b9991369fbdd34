"""Drift-free tick schedule for the 20 ms mixer loop (pure computation; the caller sleeps).

Deadline n is always computed as `start + n * period`, never by adding the
period to the previous deadline or to "now": scheduling jitter, a late wake-up
or float rounding can therefore never accumulate into drift.
"""

from __future__ import annotations

import math

__all__ = ["FrameClock"]


class FrameClock:
    """Deadlines t0, t0 + period, t0 + 2*period, ...

    Typical loop::

        clock = FrameClock(period=0.02, start=loop.time())
        while True:
            clock.catch_up(loop.time())       # bounded burst after a stall
            await asyncio.sleep(max(0.0, clock.next_time() - loop.time()))
            mixer.tick()
    """

    def __init__(self, period: float = 0.02, start: float = 0.0, max_burst: int = 5):
        """`max_burst`: at most this many overdue ticks are run back to back by `catch_up`."""
        if period <= 0:
            raise ValueError("period must be positive")
        if max_burst < 1:
            raise ValueError("max_burst must be at least 1")
        self.period = float(period)
        self.start = float(start)
        self.max_burst = int(max_burst)
        self.index = 0  # index of the next deadline to hand out
        self.missed = 0  # deadlines skipped by catch_up, in total

    def peek(self) -> float:
        """The next deadline, without consuming it."""
        return self.start + self.index * self.period

    def next_time(self) -> float:
        """Consume and return the next deadline: start + n * period (n = 0, 1, 2, ...)."""
        t = self.peek()
        self.index += 1
        return t

    def due(self, now: float) -> int:
        """How many deadlines not yet handed out are already at or before `now`."""
        if now < self.peek():
            return 0
        # The small epsilon keeps a deadline that equals `now` up to rounding "due".
        return int(math.floor((now - self.start) / self.period + 1e-9)) - self.index + 1

    def shift(self, dt: float) -> None:
        """Move every later deadline by `dt` (s; negative: earlier), to put the grid's
        phase where the audio arrives. Deadlines stay evenly spaced from there on."""
        self.start += dt

    def catch_up(self, now: float) -> int:
        """Skip overdue deadlines beyond `max_burst`; return how many were skipped.

        After a stall (a paused process, a long garbage collection) the caller
        runs at most `max_burst` ticks back to back instead of dozens; the
        skipped ones are counted in `missed`. The grid is kept: later deadlines
        are still start + n * period.
        """
        excess = self.due(now) - self.max_burst
        if excess <= 0:
            return 0
        self.index += excess
        self.missed += excess
        return excess
