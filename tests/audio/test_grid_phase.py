"""The voice loop's grid moves earlier by the talkers' slack, within a budget (audio/phase.py).

Issue 36: a lossy mic's slack keeps coming back (each lost frame's delay ages out of
the figures); a grid that followed it ran ahead of the listeners' media clock and their
jitter buffers grew. The phase is found at once, and the long-term rate is bounded."""

from __future__ import annotations

import pytest

from audio.phase import PHASE_BUDGET, PHASE_KEEP, PHASE_REFILL, PHASE_STEP, GridPhase


def test_a_new_talkers_phase_is_taken_at_once_a_step_a_tick():
    g = GridPhase()
    slack, ticks = 0.6, 0
    while True:
        m = g.move(slack)
        if not m:
            break
        assert m <= PHASE_STEP + 1e-12
        slack -= m
        ticks += 1
    assert slack == pytest.approx(PHASE_KEEP)
    assert ticks == pytest.approx((0.6 - PHASE_KEEP) / PHASE_STEP, abs=1)


def test_no_move_without_slack_beyond_the_keep():
    g = GridPhase()
    assert [g.move(s) for s in (None, 0.0, PHASE_KEEP, -1.0)] == [0.0] * 4
    assert g.moved == 0.0


def test_a_slack_that_keeps_coming_back_moves_the_grid_no_faster_than_the_refill():
    g = GridPhase()
    ticks = 30_000  # 10 minutes
    for _ in range(ticks):
        g.move(0.8)  # always a frame's fraction more: the returning slack of a lossy mic
    assert g.moved <= PHASE_BUDGET + ticks * PHASE_REFILL + 1e-9
    # ... and it does move at that rate (the budget is spent, not hoarded)
    assert g.moved >= ticks * PHASE_REFILL
    # 0.1 %: the listeners' jitter buffers absorb it as a clock drift
    assert g.moved / ticks <= 0.0011


def test_the_budget_comes_back_for_the_next_talker():
    g = GridPhase()
    for _ in range(200):
        g.move(5.0)
    assert g.budget < PHASE_STEP
    for _ in range(int(PHASE_BUDGET / PHASE_REFILL)):
        g.move(None)
    assert g.budget == pytest.approx(PHASE_BUDGET)
