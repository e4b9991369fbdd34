"""How far the voice loop's tick grid moves earlier, from the talkers' playout slack.

The talkers' frames wait for the next tick: up to a whole period, 10 ms on average.
While every talker's worst frame would still be in time for an earlier tick
(`JitterQueue.slack`), the grid moves earlier, `PHASE_STEP` at most per tick, until
their slack is down to `PHASE_KEEP`: the tick then comes right after the frames of
whoever talks. Listeners get their packets that much faster meanwhile (the RTP times
stay regular), which their jitter buffer has to absorb.

That is worth it once: the phase between a talker's packets and the grid is under a
period and stays put but for the clocks' drift (well under 0.1 %). A lossy or jittery
mic's slack keeps coming back (a lost frame's delay ages out of the figures, a new
talk spurt starts with the cushion its loss needs), and a grid that followed it would
keep running ahead of the listeners' media clock: their jitter buffers grew to 80-350
ms and time-compressed the voice (issue 36). So the moves draw on a budget of one
period (`PHASE_BUDGET`), refilled at `PHASE_REFILL` a tick: a new talker's phase is
found at once, and the grid never runs ahead of the media clock faster than 0.1 % for
long; the slack beyond is the speaker's queue's to cut, in a pause.
"""

from __future__ import annotations

__all__ = ["GridPhase", "PHASE_STEP", "PHASE_KEEP", "PHASE_BUDGET", "PHASE_REFILL"]

PHASE_STEP = 0.01  # ticks the grid may move earlier per tick (0.2 ms: 1 % faster for a while)
PHASE_KEEP = 0.05  # ticks of slack left to the talkers' worst frames (1 ms, beyond their margin)
PHASE_BUDGET = 1.0  # ticks the grid may move at once (a period: any phase)
PHASE_REFILL = 0.001  # ticks of budget regained per tick (0.1 %: a period per 20 s)


class GridPhase:
    """The grid's moves (in ticks) from the talkers' slack, one call per tick."""

    __slots__ = ("budget", "moved")

    def __init__(self) -> None:
        self.budget = PHASE_BUDGET
        self.moved = 0.0  # ticks moved earlier, in all

    def move(self, slack: float | None) -> float:
        """How far (ticks) to move the grid earlier after this tick: 0 if not at all."""
        self.budget = min(PHASE_BUDGET, self.budget + PHASE_REFILL)
        if slack is None or slack <= PHASE_KEEP:
            return 0.0
        m = min(PHASE_STEP, slack - PHASE_KEEP, self.budget)
        if m <= 0.0:
            return 0.0
        self.budget -= m
        self.moved += m
        return m
