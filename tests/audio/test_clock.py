"""FrameClock: deadlines on a fixed grid whatever the scheduling jitter."""

import numpy as np
import pytest

from audio import FrameClock


def test_deadlines_stay_on_grid_over_3000_jittery_ticks():
    rng = np.random.default_rng(1)
    clock = FrameClock(period=0.02, start=1000.0)
    now = 1000.0
    for n in range(3000):
        deadline = clock.next_time()
        assert abs(deadline - (1000.0 + n * 0.02)) < 1e-9
        # The caller wakes up late by a random amount (0-15 ms), then works 1-3 ms.
        now = max(now, deadline) + rng.uniform(0.0, 0.015) + rng.uniform(0.001, 0.003)
        assert clock.catch_up(now) == 0
    assert clock.peek() == 1000.0 + 3000 * 0.02
    assert clock.missed == 0


def test_first_deadline_is_the_start():
    clock = FrameClock(period=0.02, start=5.0)
    assert clock.next_time() == 5.0
    assert clock.next_time() == 5.02


def test_stall_is_caught_up_in_a_bounded_burst_and_counted():
    clock = FrameClock(period=0.02, start=0.0, max_burst=5)
    for _ in range(10):
        clock.next_time()
    now = 0.18 + 1.0  # one second stall after the 10th deadline
    assert clock.due(now) == 50  # deadlines 0.20 .. 1.18
    skipped = clock.catch_up(now)
    assert skipped == 45
    assert clock.missed == 45
    assert clock.due(now) == 5
    burst = [clock.next_time() for _ in range(5)]
    assert all(t <= now for t in burst)
    assert clock.next_time() > now
    # still the same grid
    assert abs(clock.peek() - clock.index * 0.02) < 1e-9


def test_nothing_due_before_the_next_deadline():
    clock = FrameClock(period=0.02, start=10.0)
    assert clock.due(9.99) == 0
    assert clock.due(10.0) == 1
    clock.next_time()
    assert clock.due(10.019) == 0


def test_shift_moves_every_later_deadline_and_keeps_them_evenly_spaced():
    """Issue 15: the voice loop moves its grid's phase to where the audio arrives."""
    c = FrameClock(period=0.02, start=0.0)
    assert c.next_time() == 0.0
    c.shift(-0.005)
    got = [c.next_time() for _ in range(3)]
    assert got == pytest.approx([0.015, 0.035, 0.055])
