"""Issue 15: the jitter queue with playout timing plays each speaker as early as their
own arrival jitter allows (audio/jitter.py, "With playout timing")."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from audio import FRAME
from audio.arrival import MARGIN
from audio.jitter import PATIENCE_SMALL, JitterQueue
from audio.synth import speech_like, tone


def _ramp(n):
    # Every sample distinct and increasing: an output sample tells which input it was.
    return (np.arange(1, n + 1, dtype=np.float64) / (n + 1) * 0.5).astype(np.float32)


def _run(q, signal, arrivals, ticks, *, timed=True, ts_offset=0.0):
    """Frame k of `signal` (media time k) arrives at tick time `arrivals[k]` (pops are at
    whole ticks 1, 2, ...; a frame arriving at 3.0 is in time for the pop at 3).
    Returns the output and the queue's depth before each pop."""
    order = np.argsort(arrivals, kind="stable")
    out, depths, i = [], [], 0
    for t in range(1, ticks + 1):
        while i < len(order) and arrivals[order[i]] <= t:
            k = int(order[i])
            frame = signal[k * FRAME : (k + 1) * FRAME]
            if timed:
                q.push(frame, since_pop=arrivals[k] - (t - 1), ts=k + ts_offset)
            else:
                q.push(frame)
            i += 1
        depths.append(q.depth)
        out.append(q.pop())
    return np.concatenate(out), np.array(depths)


def _lags(out, ramp):
    """Per output tick: how many samples after being spoken its first sample is played
    (-1 where the tick is silent), from the ramp's values. Frame k is spoken during tick
    k (it is complete at k + 1), so its first sample is spoken at k * FRAME."""
    ticks = len(out) // FRAME
    res = np.full(ticks, -1)
    for t in range(ticks):
        y = out[t * FRAME]
        if y > 0:
            j = int(np.searchsorted(ramp, y))
            res[t] = (t + 1) * FRAME - j  # pop t + 1 plays it
    return res


def test_a_steady_stream_plays_on_the_first_tick_after_it_arrives():
    """A frame that arrives 0.3 tick after it was complete is played at the next tick:
    a frame (20 ms) earlier than the untimed queue's two-frame start, and no hole.

    (The first frames, before the jitter is known, start a frame later; the excess is
    then cut to within a quarter frame, +-2.5 ms, of the floor.)"""
    ticks = 300
    ramp = _ramp((ticks + 5) * FRAME)
    arrivals = np.arange(ticks) + 1.3
    timed = JitterQueue()
    out, _ = _run(timed, ramp, arrivals, ticks)
    plain = JitterQueue()
    out0, _ = _run(plain, ramp, arrivals, ticks, timed=False)
    lag = _lags(out, ramp)[100:]
    lag0 = _lags(out0, ramp)[100:]
    assert (lag >= 0).all() and (lag0 >= 0).all()
    # Spoken during tick k, complete at k + 1, arrived at k + 1.3, played from k + 2:
    # one frame of capture and 0.7 tick of waiting, plus what is left of the cut.
    assert np.ptp(lag) == 0 and 2 * FRAME <= lag[0] <= 2.4 * FRAME
    assert np.ptp(lag0) == 0 and lag0[0] == 3 * FRAME
    # `jitter` is the spread the playout allows for: the margin and (here) almost nothing
    assert timed.underruns == 0 and timed.jitter is not None and timed.jitter < MARGIN + 0.05


def test_jitter_is_waited_for_once_and_never_heard_as_holes():
    """Arrivals jittered by up to 1.5 ticks: after the first seconds (the queue learns the
    jitter) the stream plays without a hole, and waits no longer than the jitter needs."""
    ticks = 3000
    ramp = _ramp((ticks + 10) * FRAME)
    rng = np.random.default_rng(3)
    arrivals = np.maximum.accumulate(np.arange(ticks) + 1.1 + rng.uniform(0, 1.5, ticks))
    q = JitterQueue()
    out, _ = _run(q, ramp, arrivals, ticks)
    lag = _lags(out, ramp)
    settled = lag[500:-20]
    assert (settled >= 0).all()  # no silent tick: no hole
    steps = np.abs(np.diff(out[500 * FRAME : -20 * FRAME]))
    assert steps.max() < 1e-3  # the ramp plays on, unbroken
    # The worst arrival is 1 + 0.1 + 1.5 ticks after the frame started; with the
    # margin (0.4) the first whole tick after it is 3: played 3 ticks after being
    # spoken, within a cut's residue.
    assert 3 * FRAME <= settled.min() and settled.max() <= 3.4 * FRAME
    assert q.underruns == 0
    assert 1.2 <= q.jitter - MARGIN <= 1.6


def test_a_burst_after_a_200_ms_stall_is_back_to_the_usual_latency_within_half_a_second():
    """The sender stalls 200 ms and sends its backlog at once: the stall is one event,
    not jitter to wait for; the excess is shed, click-free, within 0.5 s."""
    ticks = 300
    x = speech_like(ticks * 0.02 + 1, seed=7, level_db=-6.0)
    arrivals = np.arange(ticks) + 1.2
    arrivals[140:150] = 150.2  # frames 140-149 wait for the stall's end
    q = JitterQueue()
    out, depths = _run(q, x, arrivals, ticks)
    offsets_settle = []
    q2 = JitterQueue()
    # Same run, reading the queue's own playout offset (pop tick - media time) per tick.
    order, i = np.argsort(arrivals, kind="stable"), 0
    for t in range(1, ticks + 1):
        while i < ticks and arrivals[order[i]] <= t:
            k = int(order[i])
            q2.push(x[k * FRAME : (k + 1) * FRAME], since_pop=arrivals[k] - (t - 1), ts=k)
            i += 1
        q2.pop()
        offsets_settle.append(np.nan if q2._offset is None else q2._offset)
    off = np.array(offsets_settle)
    # Arriving 0.2 tick after complete (+ 0.1 margin): the floor is 2 ticks.
    before = off[100:139]
    assert 2.0 <= np.nanmin(before) and np.nanmax(before) <= 2.4
    during = off[150:160]
    assert np.nanmax(during) >= 4  # the burst did raise it
    after = off[151 + 25 :]  # 0.5 s after the burst
    assert 2.0 <= np.nanmin(after) and np.nanmax(after) <= 2.4
    assert q.trimmed >= 3
    steps = np.abs(np.diff(out[152 * FRAME :]))
    assert steps.max() < np.abs(np.diff(x)).max() * 1.05


def test_a_stream_that_started_with_a_cushion_is_trimmed_without_a_pause():
    """The first frames (jitter still unknown) start a frame late; a tone that never
    pauses is brought back to the measured need by pitch-aligned, cross-faded cuts, once
    it has waited PATIENCE_SMALL ticks for a pause (issue 36: a cut inside a word costs
    more than 20 ms of latency for a second)."""
    ticks = 200
    x = tone(440, ticks * 0.02 + 1, level_db=-2.0)
    arrivals = np.arange(ticks) + 1.2
    q = JitterQueue()
    order, i = np.argsort(arrivals, kind="stable"), 0
    out, offsets = [], []
    for t in range(1, ticks + 1):
        while i < ticks and arrivals[order[i]] <= t:
            k = int(order[i])
            q.push(x[k * FRAME : (k + 1) * FRAME], since_pop=arrivals[k] - (t - 1), ts=k)
            i += 1
        out.append(q.pop())
        offsets.append(q._offset)
    assert offsets[5] >= 3.0  # started with a whole frame of cushion
    assert min(offsets[5:PATIENCE_SMALL]) >= 3.0  # waiting for a pause that never comes
    settled = offsets[PATIENCE_SMALL + 15:]
    assert 2.0 <= min(settled) and max(settled) <= 2.4  # the floor + residue
    assert q.underruns == 0 and q.trimmed >= 1
    y = np.concatenate(out)
    assert np.abs(np.diff(y[3 * FRAME :])).max() < np.abs(np.diff(x)).max() * 1.05


def test_a_new_sender_clock_is_learnt_afresh():
    """A reconnection starts its RTP time anywhere: the delays seen before do not hold
    the new stream back."""
    ticks = 200
    ramp = _ramp((ticks + 5) * FRAME)
    q = JitterQueue()
    arrivals = np.arange(ticks) + 1.3
    _run(q, ramp, arrivals[:100], 100)
    for _ in range(5):
        q.pop()  # the old connection is gone: the queue runs dry
    out = []
    for k in range(100):
        t = 106 + k
        q.push(ramp[k * FRAME : (k + 1) * FRAME], since_pop=0.3, ts=1e6 + k)
        out.append(q.pop())
        assert t == q._tick
    assert q.jitter < MARGIN + 0.05  # the jump of 1e6 was not taken for jitter
    y = np.concatenate(out)
    assert (y[60 * FRAME :] > 0).all()


def test_a_lost_frame_costs_one_hole_not_a_lasting_delay():
    """A frame lost on the network: the next ones play a frame earlier than scheduled,
    the queue runs dry once and restarts at the usual latency."""
    ticks = 300
    ramp = _ramp((ticks + 5) * FRAME)
    arrivals = np.arange(ticks) + 1.3
    arrivals[150] = np.inf  # never arrives
    q = JitterQueue()
    out, _ = _run(q, ramp, arrivals, ticks)
    lag = _lags(out, ramp)
    assert q.underruns <= 1
    assert np.ptp(lag[200:]) == 0 and 2 * FRAME <= lag[200] <= 2.4 * FRAME


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 6), st.booleans()), min_size=5, max_size=120))
def test_any_timed_arrival_pattern_keeps_the_queue_bounded_and_the_output_smooth(delays):
    """Whatever the delays (up to 6 ticks, some frames lost), the queue holds at most
    100 ms and the output never steps more than the signal's own slope plus the fades."""
    x = tone(350, 4.0, -1.0)
    natural = np.abs(np.diff(x)).max()
    arrivals = np.array([k + 1 + d if keep else np.inf for k, (d, keep) in enumerate(delays)])
    arrivals = np.maximum.accumulate(arrivals)  # in order (the receiver drops reordered)
    q = JitterQueue()
    out, depths = _run(q, x, arrivals, len(delays) + 10)
    assert depths.max() <= 5 + 1
    assert np.abs(np.diff(out)).max() <= 2.5 * natural


def test_ticks_moved_earlier_count_as_longer_delays_and_leave_no_hole():
    """The voice loop moves its grid earlier by the talkers' slack (`regrid`): the queue
    counts every delay that much longer, its slack shrinks by as much, nothing is late."""
    ticks = 300
    ramp = _ramp((ticks + 5) * FRAME)
    q = JitterQueue()
    out, slacks = [], []
    for t in range(1, ticks + 1):
        shift = 0.5 if t > 150 else 0.0  # from tick 150 the pops come 0.5 tick earlier
        if t == 151:
            q.regrid(0.5)
        k = t - 2  # frame k arrives 1.3 ticks after it began: at k + 1.3 (+ the shift)
        if k >= 0:
            q.push(ramp[k * FRAME : (k + 1) * FRAME], since_pop=0.3 + shift, ts=k)
        out.append(q.pop())
        slacks.append(q.slack)
    assert q.underruns == 0
    before, after = slacks[140], slacks[-1]
    assert before is not None and after is not None
    assert abs((before - after) - 0.5) < 1e-6
    assert np.abs(np.diff(np.concatenate(out)[100 * FRAME :])).max() < 1e-3


def _opus_frames(signal):
    """`signal` through the project's Opus encoder and decoder, frame by frame: the very
    frames the voice loop pushes (real decoded lengths and values)."""
    from server.media.opus import OpusDecoder, OpusEncoder

    enc, dec = OpusEncoder(), OpusDecoder()
    return [dec.decode(enc.encode(signal[k * FRAME : (k + 1) * FRAME]))
            for k in range(signal.size // FRAME)]


def test_issue29_14_a_cut_pending_when_a_spurt_ends_does_not_fail_the_next_pop():
    """Issue 29 item 14 (`voice tick failed ... need at least one array to concatenate`).

    A steady timed spurt starts with a frame of cushion, so the queue cuts it back
    (catch-up shedding). The cut leaves a fraction of a frame queued and a rest of
    the excess pending; the speaker stops, the queue runs dry with that rest still
    pending, the fraction is flushed and played when the pause is noticed, and the
    pending cut then met an empty queue. Here with Opus-decoded speech, for every
    spurt length and arrival phase: every pop gives a frame, the spurt's end plays,
    and the next spurt plays whole and click-free."""
    fr = _opus_frames(speech_like(3.0, seed=2))
    cut_left_a_fraction = 0
    for n in range(5, 40):
        for since in (0.2, 0.5, 0.8):
            q = JitterQueue()
            q.pop()
            for k in range(n):
                q.push(fr[k], since_pop=since, ts=float(k))
                assert q.pop().shape == (FRAME,)
            cut_left_a_fraction += q.trimmed > 0 and 0 < q.depth < 1
            out = [q.pop() for _ in range(20)]  # the speaker paused: the tail plays out
            assert all(o.shape == (FRAME,) for o in out)
            holes = q.underruns
            # The next spurt, 40 ticks later in media time, plays without a hole.
            out = []
            for k in range(n, n + 60):
                q.push(fr[k], since_pop=since, ts=float(k + 40))
                out.append(q.pop())
            y = np.concatenate(out[5:])
            assert np.abs(y).max() > 0.01 and q.underruns == holes
            assert np.abs(np.diff(y)).max() < 0.5
    # the case of the issue was met (a cut ended the spurt with part of a frame left)
    assert cut_left_a_fraction > 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 40), st.integers(1, 30)), min_size=1, max_size=8),
       st.floats(0, 0.95), st.integers(0, 3))
def test_issue29_14_any_talk_spurts_and_pauses_never_fail_a_pop(spurts, since, seed):
    """Issue 29 item 14, as a property: steady timed talk spurts of speech (n frames,
    then a pause of m ticks, the media time running on), whatever their lengths and
    arrival phase: every pop gives a whole frame and the queue stays bounded."""
    x = speech_like(12.0, seed=seed)
    q = JitterQueue()
    k = ts = 0
    for n, m in spurts:
        for _ in range(n):
            q.push(x[k * FRAME : (k + 1) * FRAME], since_pop=since, ts=float(ts))
            assert q.pop().shape == (FRAME,) and q.depth <= 5
            k, ts = k + 1, ts + 1
        for _ in range(m):
            assert q.pop().shape == (FRAME,)
        ts += m


def test_a_small_excess_is_cut_in_a_pause_not_in_a_syllable():
    """Issue 36: the first frames' cushion (under a frame) waits for a pause to be cut
    in, rather than taking 20 ms out of a word 0.12 s in (one such cut cost a sentence
    0.1-0.6 PESQ-WB)."""
    on, off = 30, 3  # 600 ms syllables, 60 ms pauses
    unit = np.concatenate([tone(300, on * 0.02, -6.0), np.zeros(off * FRAME, np.float32)])
    x = np.tile(unit, 6)
    ticks = x.size // FRAME
    q = JitterQueue()
    out = []
    for t in range(1, ticks + 1):
        k = t - 1
        q.push(x[k * FRAME:(k + 1) * FRAME], since_pop=0.2, ts=k)
        out.append(q.pop())
    assert q.trimmed >= 1
    y = np.concatenate(out)
    loud = (np.convolve(np.abs(y), np.ones(160) / 160, mode="same") > 0.2).astype(np.int8)
    rises, falls = np.flatnonzero(np.diff(loud) == 1), np.flatnonzero(np.diff(loud) == -1)
    runs = [int(f - r) for r in rises for f in falls[falls > r][:1]]
    # every syllable whole: a cut inside one would take 10-20 ms (480-960 samples) off it
    assert len(runs) >= 5 and min(runs) >= max(runs) - 240


def test_frames_too_late_to_play_give_the_next_spurt_a_frame_more_of_cushion():
    """Issue 36: a packet that came too late (its frame concealed) or the FEC that came too
    late to rebuild a lost one (`note`) is a hole as an underrun is: two within 5 s and
    the next talk spurt starts a frame later, so the next late packet or FEC is in time."""
    x = tone(300, 3.0, -6.0)

    def first_sound_after_pause(late_notes: int) -> int:
        q = JitterQueue()
        for k in range(60):
            q.push(x[k * FRAME:(k + 1) * FRAME], since_pop=0.2, ts=k)
            q.pop()
        for i in range(late_notes):
            q.note(0.5, 58 + i)  # frames 58, 59 came a tick and a half late
        for _ in range(10):  # a pause: nothing sent
            q.pop()
        for t in range(12):
            k = 70 + t
            q.push(x[k * FRAME:(k + 1) * FRAME], since_pop=0.2, ts=k + 0.0)
            if np.any(q.pop()):
                return t
        raise AssertionError("the spurt never played")

    assert first_sound_after_pause(2) == first_sound_after_pause(0) + 1
    assert first_sound_after_pause(1) == first_sound_after_pause(0)  # one is no pattern


def test_a_talk_spurt_whose_next_frames_are_late_still_starts_on_its_due_tick():
    """Issue 36: a spurt's first frame came on time and the next ones late (the jitter the
    queue waits for): three ticks without a frame looked like the end of a short spurt,
    the queue started it at once without timing, and the whole spurt then played too
    early for its late frames (holes). It waits for its due tick instead."""
    rng = np.random.default_rng(7)
    spurt, pause, spurts = 100, 40, 6
    frames = spurts * (spurt + pause)
    ramp = _ramp((frames + 20) * FRAME)
    jitter = rng.uniform(0.0, 4.0, frames)
    k = np.arange(frames)
    first = k % (spurt + pause) == 0
    jitter[first] = 0.0  # each spurt's first frame comes at once...
    after = (k % (spurt + pause) >= 1) & (k % (spurt + pause) <= 3)
    jitter[after] = 3.9  # ... and the next three late
    talking = k % (spurt + pause) < spurt
    arrivals = np.where(talking, k + 1.1 + jitter, np.inf)
    signal = ramp.copy()
    for s in range(spurts):  # the pauses are silence (nothing is sent then)
        a = (s * (spurt + pause) + spurt) * FRAME
        signal[a : a + pause * FRAME] = 0.0
    q = JitterQueue()
    out, _ = _run(q, signal, arrivals, frames + 20)
    lag = _lags(out, ramp)
    # Every spurt after the first (the jitter is known by then) plays whole: no silent
    # tick inside it.
    for s in range(1, spurts):
        start = s * (spurt + pause)
        played = lag[start : start + spurt + 8]
        played = played[np.argmax(played >= 0):]
        assert (played[: spurt - 1] >= 0).all(), f"a hole in spurt {s}"
