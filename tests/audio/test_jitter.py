"""Jitter queue: bursty arrivals become a continuous, bounded-latency, click-free stream."""

import numpy as np

from audio import FRAME, SAMPLE_RATE
from audio.jitter import JitterQueue
from audio.synth import tone


def _ramp_signal(n):
    # A signal whose every sample is distinct, so a shifted copy is easy to verify.
    return (np.arange(1, n + 1, dtype=np.float64) / (n + 1) * 0.5).astype(np.float32)


def _delay(out, ramp):
    # The ramp is strictly increasing, so one output sample tells where it came from.
    k = int(np.argmax(out != 0)) + 1000
    return k - int(np.searchsorted(ramp, out[k]))


def _deliver_with_network_jitter(q, signal, ticks, max_jitter_ticks, seed):
    """Packets of 20 ms produced in real time, delivered in order after a random delay."""
    rng = np.random.default_rng(seed)
    packets = len(signal) // FRAME
    arrival = np.maximum.accumulate(np.arange(packets) + rng.uniform(0, max_jitter_ticks, packets))
    out, depths, sent = [], [], 0
    for t in range(ticks):
        while sent < packets and arrival[sent] <= t:
            q.push(signal[sent * FRAME : (sent + 1) * FRAME])
            sent += 1
        depths.append(q.depth)
        out.append(q.pop())
    return np.concatenate(out), np.array(depths)


def test_jittery_minute_plays_continuously_with_constant_latency():
    ticks = 3000  # one simulated minute
    signal = _ramp_signal((ticks + 10) * FRAME)
    q = JitterQueue()
    out, depths = _deliver_with_network_jitter(q, signal, ticks, max_jitter_ticks=1.5, seed=3)
    assert out.size == ticks * FRAME
    assert depths.max() <= 5
    delay = _delay(out, signal)
    assert 0 < delay <= 3 * FRAME
    # After the 5 ms fade-in, the output is the input delayed by a constant: no drift,
    # no dropped or repeated sample over the whole minute.
    body = out[delay + 240 :]
    np.testing.assert_array_equal(body, signal[240 : 240 + body.size])
    assert q.underruns == 0 and q.overflows == 0 and q.trimmed == 0


def test_pushes_of_any_length_are_rechunked_without_loss():
    rng = np.random.default_rng(5)
    signal = _ramp_signal(200 * FRAME)
    q = JitterQueue()
    out, pos, owed = [], 0, 0.0
    for _ in range(190):
        owed += FRAME
        while owed > 0 and pos < signal.size:  # arbitrary chunk sizes, 20 ms per tick on average
            n = int(rng.integers(1, 2500))
            q.push(signal[pos : pos + n])
            pos += n
            owed -= n
        out.append(q.pop())
    out = np.concatenate(out)
    delay = _delay(out, signal)
    body = out[delay + 240 :]
    assert q.depth <= 5
    assert q.trimmed == 0 and q.underruns == 0
    np.testing.assert_array_equal(body, signal[240 : 240 + body.size])


def test_overflow_drops_the_oldest_and_is_counted():
    q = JitterQueue()
    frames = [np.full(FRAME, (i + 1) / 20, dtype=np.float32) for i in range(9)]
    q.push(np.concatenate(frames))
    assert q.overflows == 4
    assert q.depth == 5
    first = q.pop()  # frame 5 (index 4), faded in from silence
    assert first[-1] == np.float32(5 / 20)
    assert q.pop()[0] == np.float32(6 / 20)


def test_queued_audio_never_exceeds_100_ms():
    q = JitterQueue()
    for _ in range(40):
        q.push(np.ones(700, dtype=np.float32) * 0.1)
        assert q.depth * FRAME / SAMPLE_RATE <= 0.100 + 1e-9


def test_underrun_fades_out_and_back_in_without_click():
    x = tone(440, 3.0, level_db=-2.0)
    natural = np.abs(np.diff(x)).max()
    q = JitterQueue()
    out = []
    for t in range(150):
        if not 60 <= t < 70:  # a 200 ms hole in the arrivals
            q.push(x[t * FRAME : (t + 1) * FRAME])
        out.append(q.pop())
    out = np.concatenate(out)
    assert q.underruns == 1
    steps = np.abs(np.diff(out))
    # A hard cut at full scale would be a step of ~0.8; the fades stay within the
    # sine's own slope plus the fade's contribution.
    assert steps.max() < natural * 1.2
    # and there was real silence in the hole
    hole = out[64 * FRAME : 70 * FRAME]
    assert np.abs(hole).max() == 0.0


def test_speaker_who_never_sent_is_inactive_and_never_underruns():
    q = JitterQueue()
    for _ in range(200):
        assert not q.pop().any()
    assert q.underruns == 0
    assert not q.active


def test_speaker_who_stopped_sending_is_not_counted_as_underrun():
    q = JitterQueue()
    x = tone(300, 1.0, -20)
    for t in range(50):
        q.push(x[t * FRAME : (t + 1) * FRAME])
        q.pop()
    assert q.active
    for _ in range(100):
        q.pop()
    assert q.underruns == 0
    assert not q.active


def test_excess_latency_is_trimmed_back_to_target():
    q = JitterQueue()
    x = _ramp_signal(400 * FRAME)
    q.push(x[: 5 * FRAME])  # a burst fills the queue to the ceiling
    pos = 5 * FRAME
    for _ in range(300):
        q.push(x[pos : pos + FRAME])
        pos += FRAME
        q.pop()
    assert q.trimmed >= 1
    assert q.depth <= 3


def test_short_talk_spurt_is_played_after_the_sender_pauses():
    q = JitterQueue()
    q.push(np.full(FRAME + 300, 0.25, dtype=np.float32))
    out = np.concatenate([q.pop() for _ in range(6)])
    assert np.count_nonzero(out) >= FRAME + 300 - 240  # all of it, minus the fades' zero ends
    assert np.abs(np.diff(out)).max() < 0.01  # faded in and out, no steps


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 3)), min_size=1, max_size=80))
def test_any_arrival_pattern_keeps_queue_bounded_and_output_smooth(steps):
    """Whatever arrives when, the queue stays <= 100 ms and the output never steps."""
    x = tone(350, 10.0, -1.0)
    natural = np.abs(np.diff(x)).max()
    q = JitterQueue()
    pos, out = 0, []
    for size, pops in steps:
        q.push(x[pos : pos + size])
        pos += size
        assert q.depth <= 5
        for _ in range(pops):
            frame = q.pop()
            assert frame.shape == (FRAME,) and frame.dtype == np.float32
            out.append(frame)
    if out:
        y = np.concatenate(out)
        # Jumps inside the stream (drops) are cross-faded: at most the slope of the two
        # signals plus the fades', never a raw step.
        assert np.abs(np.diff(y)).max() <= 2.5 * natural
