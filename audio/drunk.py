"""The drunk voice: what the Ubriacone's victims sound like, streamed per speaker.

Chain: pitch wobble (modulated fractional delay) -> gentle low-pass ->
slap-back echo -> light tremolo -> soft clip.

Everything is a function of the absolute sample index plus state carried
across calls, so feeding a signal in frames of any size gives the same output
as feeding it whole: no click at a frame edge, no drift. The slow random
wander of the wobble comes from a counter-based hash of (seed, knot index),
so it needs no random-generator state and does not depend on frame sizes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from audio.iir import butter_lowpass
from audio.iir import lfilter as _lfilter

__all__ = ["DrunkParams", "DrunkVoice", "process_frames"]


@dataclass(frozen=True)
class DrunkParams:
    """Every knob of the drunk voice, with why it has that value."""

    # Wobble rate: 3-6 Hz reads as "swaying" rather than singer's vibrato (5-7 Hz
    # but shallow) or a slow pitch drift; the centre sits in the middle of it.
    lfo_rate_hz: float = 4.5
    # +/- 1 Hz of wander keeps the rate inside 3.5-5.5 Hz, so never mechanical.
    lfo_rate_wander_hz: float = 1.0
    # Peak pitch swing: 100 cents (a semitone) is obviously tipsy yet keeps words clear.
    depth_cents: float = 100.0
    # +/- 35 cents of wander: swings between 65 and 135 cents, inside the 50-150 target.
    depth_wander_cents: float = 35.0
    # New random targets for rate and depth every 0.4 s: slow enough to be a
    # wander of the wobble (10 LFO cycles per minute of change), not noise on it.
    wander_interval_s: float = 0.4
    # Low-pass near 3 kHz muffles consonants a little ("slurred") while the
    # vowels that carry intelligibility (below ~2.5 kHz) pass.
    lowpass_hz: float = 3000.0
    # 2nd-order Butterworth: 12 dB/octave is gentle, no ringing, no resonance.
    lowpass_order: int = 2
    # Slap-back echo delay, chosen per seed in this range so two drunk players
    # differ; 60-90 ms is heard as a room slap, not as a second word.
    echo_min_ms: float = 60.0
    echo_max_ms: float = 90.0
    # Low feedback: the first repeat is 10 dB down and the tail dies in ~4 repeats.
    echo_feedback: float = 0.3
    # Tremolo slower than the wobble and unrelated to it, so the two never lock.
    tremolo_hz: float = 2.3
    # 12 % gain dip: felt as unsteadiness, never as chopping.
    tremolo_depth: float = 0.12
    # Soft clip ceiling: tanh saturates to this, so the echo build-up and the
    # tremolo can never push a sample to full scale (|y| < 1 even on 0 dBFS input).
    clip_ceiling: float = 0.95

    def __post_init__(self) -> None:
        if self.lfo_rate_hz - self.lfo_rate_wander_hz <= 0 or self.lfo_rate_wander_hz < 0:
            raise ValueError("the wobble rate must stay above 0 Hz")
        if self.depth_cents < 0 or self.depth_wander_cents < 0:
            raise ValueError("depths are magnitudes (>= 0)")
        if self.wander_interval_s <= 0:
            raise ValueError("wander_interval_s must be > 0")
        if not 0 <= self.echo_feedback < 1:
            raise ValueError("echo_feedback must be in [0, 1) or the echo never dies")
        if not 0 < self.echo_min_ms <= self.echo_max_ms:
            raise ValueError("need 0 < echo_min_ms <= echo_max_ms")
        if not 0 <= self.tremolo_depth <= 1 or self.tremolo_hz <= 0:
            raise ValueError("tremolo_depth in [0, 1] and tremolo_hz > 0")
        if not 0 < self.clip_ceiling <= 1:
            raise ValueError("clip_ceiling must be in (0, 1]")


_DEFAULT = DrunkParams()  # (one object: voices with the default params batch at a glance)
_U64 = np.uint64
_MASK53 = float(1 << 53)


def _hash_uniform(seed: int, stream: int, index: np.ndarray) -> np.ndarray:
    """Counter-based uniform values in [-1, 1) for integer knot indices (splitmix64)."""
    # Seed and stream live in separate bit ranges so no two (seed, stream) pairs
    # share knots; 2**20 knots of 0.4 s is over 100 hours of speech.
    key = (((seed & 0xFFFFFFFF) << 20) | ((stream & 0xFF) << 56)) & 0xFFFFFFFFFFFFFFFF
    z = index.astype(_U64) + _U64(key)
    z = z * _U64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    z = z ^ (z >> _U64(31))
    return (z >> _U64(11)).astype(np.float64) / _MASK53 * 2.0 - 1.0


# Rows: the coefficients c1, c2, c3 of the 4-point Lagrange interpolator through
# x[i-1], x[i], x[i+1], x[i+2] (columns), in Farrow form: the value at i + f is
# x[i] + f*(c1 + f*(c2 + f*c3)), the same cubic as the textbook Lagrange weights.
_FARROW = np.array(
    [
        [-1.0 / 3.0, -0.5, 1.0, -1.0 / 6.0],
        [0.5, -1.0, 0.5, 0.0],
        [-1.0 / 6.0, 0.5, -0.5, 1.0 / 6.0],
    ]
)
_TAPS = np.arange(-1, 3, dtype=np.intp)[:, None]  # the 4 neighbours, as a column
# Longest chunk handled in one go; longer input is cut into chunks of this size,
# which gives the same output since the effect streams.
_CHUNK = 4096
# Rows 1, k, k^2, k^3, k^4 for k = 0.._CHUNK-1 (exact in float64): a polynomial
# in k over a chunk is one small matrix product with this.
_POWERS = np.vander(np.arange(_CHUNK, dtype=np.float64), 5, increasing=True).T.copy()
_TWO_PI = 2.0 * math.pi
_LN2 = math.log(2.0)
_KNOT_BLOCK = 64  # wander knots hashed at a time (64 x 0.4 s)
# A chunk's swing from its values at _NODES Chebyshev nodes (`_swing`) when the chunk
# spans at most _NODE_SPAN of a wander interval and _NODE_PHASE rad of the LFO: the
# interpolation error is then below 1e-8 samples (degree 7 over <= 1.5 rad of a sine).
_NODES = 8
_NODE_SPAN = 0.06
_NODE_PHASE = 1.5


@functools.lru_cache(maxsize=16)
def _rotation_rows(period: float) -> np.ndarray:
    """Rows 1, cos(w*k), sin(w*k) for w = 2*pi/period and k = 0.._CHUNK-1 (read-only, shared)."""
    wk = (2.0 * math.pi / period) * np.arange(_CHUNK, dtype=np.float64)
    rows = np.stack([np.ones(_CHUNK), np.cos(wk), np.sin(wk)])
    rows.flags.writeable = False
    return rows


class DrunkVoice:
    """Streaming drunk-voice effect for one speaker (48 kHz mono float32).

    Cost (about 45 us per 20 ms frame, a third of the direct formulas; a frame
    costs mostly its numpy calls, so the mixer runs all the drunk voices of a
    tick as one batch, `process_frames`): the wobble's controls (LFO phase,
    depth and rate) are low-order polynomials of the sample index between two
    wander knots; inside one wander interval the delay swing is taken at 8
    Chebyshev nodes and interpolated (one small matrix product), across a knot
    it is the formula at every sample; the tremolo is a rotation of a
    precomputed sinusoid; the echo reads and writes a ring in place; the
    history is a linear buffer, not a concatenation per frame. The output
    stays within 1e-6 of the direct per-sample formulas on speech-level input
    (tests/audio/test_drunk.py keeps them as a reference).
    """

    def __init__(self, seed: int = 0, params: DrunkParams | None = None, sample_rate: int = 48000):
        """Set up one speaker's effect; `seed` picks its wander and echo delay."""
        self.seed = int(seed)
        self.params = params or _DEFAULT
        self.sample_rate = int(sample_rate)
        p, sr = self.params, self.sample_rate
        if not 0 < p.lowpass_hz < sr / 2:
            raise ValueError("lowpass_hz must be below the Nyquist frequency")

        # Largest delay swing the wander can ask for (deepest cents at slowest rate).
        rate_min = max(p.lfo_rate_hz - p.lfo_rate_wander_hz, 0.5)
        ratio_max = 2.0 ** ((p.depth_cents + p.depth_wander_cents) / 1200.0) - 1.0
        self._amp_max = ratio_max * sr / (2.0 * math.pi * rate_min)
        # The clamp to _amp_max can only bite when the slowest rate is below 0.5 Hz.
        self._clamp = p.lfo_rate_hz - p.lfo_rate_wander_hz < 0.5
        # The read point must stay 2 samples behind the write point for the
        # 4-point interpolator, so the base delay is the swing plus a margin.
        self._base_delay = math.ceil(self._amp_max) + 4.0
        self._history_len = int(self._base_delay + math.ceil(self._amp_max)) + 4
        self._wander_interval = p.wander_interval_s * sr
        # Longest chunk whose swing may come from its values at a few nodes (`_swing`):
        # a small part of a wander interval, and at most 1.5 rad of LFO phase.
        fastest = 2.0 * math.pi * (p.lfo_rate_hz + p.lfo_rate_wander_hz) / sr
        self._node_span = 0 if self._clamp else int(min(_NODE_SPAN * self._wander_interval,
                                                        _NODE_PHASE / fastest))

        u = float(_hash_uniform(self.seed, 3, np.zeros(1, dtype=np.int64))[0])
        echo_ms = p.echo_min_ms + (u + 1.0) / 2.0 * (p.echo_max_ms - p.echo_min_ms)
        self._echo_delay = max(1, int(round(echo_ms * sr / 1000.0)))

        # Transfer-function form: at this low order it is well conditioned, and
        # lfilter costs far less per 20 ms call than sosfilt's wrapper.
        self._lp_b, self._lp_a = butter_lowpass(p.lowpass_order, p.lowpass_hz, sr)
        self._tremolo_phase0 = (
            float(_hash_uniform(self.seed, 4, np.zeros(1, np.int64))[0]) + 1.0
        ) * math.pi

        # Tremolo by rotation: sin(a + w*k) = sin(a)*cos(w*k) + cos(a)*sin(w*k),
        # with rows 1, cos(w*k), sin(w*k) precomputed for one chunk.
        self._trem_period = sr / p.tremolo_hz
        self._trem_rows = _rotation_rows(self._trem_period)
        # Gain 1 - depth/2*(1 + sin), with the soft clip's 1/ceiling folded in.
        c = p.clip_ceiling
        self._trem_a = (1.0 - 0.5 * p.tremolo_depth) / c
        self._trem_b = 0.5 * p.tremolo_depth / c
        self._ceiling = np.float32(c)
        # Wobble controls: step (rad/sample) = s0 + s1*rate_u; ln(pitch ratio) = e0 + e1*depth_u.
        self._step0 = 2.0 * math.pi * p.lfo_rate_hz / sr
        self._step1 = 2.0 * math.pi * p.lfo_rate_wander_hz / sr
        self._exp0 = _LN2 * p.depth_cents / 1200.0
        self._exp1 = _LN2 * p.depth_wander_cents / 1200.0
        self._knot_lo = -1  # first knot index of the cached block (-1: none yet)
        self._knots: tuple[list[float], list[float]] = ([], [])
        self.reset()

    def reset(self) -> None:
        """Forget all state, as if the speaker had just started."""
        self._n = 0  # absolute index of the next input sample
        # Input history: a linear buffer written at _w, slid back to the start when full.
        self._buf = np.zeros(self._history_len + 4 * _CHUNK)
        self._w = self._history_len
        self._lfo_phase = (
            float(_hash_uniform(self.seed, 2, np.zeros(1, np.int64))[0]) + 1.0
        ) * math.pi
        self._lp_zi = np.zeros(max(len(self._lp_a), len(self._lp_b)) - 1)
        self._echo_ring = np.zeros(self._echo_delay)  # g*y[m - D] lives at m % D

    def process(self, frame: np.ndarray) -> np.ndarray:
        """Run one chunk (any length) through the effect; same length, float32."""
        x = np.asarray(frame).reshape(-1)
        if x.dtype not in (np.float32, np.float64):
            x = x.astype(np.float64)
        count = x.size
        if count == 0:
            return np.zeros(0, dtype=np.float32)
        if not math.isfinite(np.add.reduce(x)):
            # A NaN would live forever in the filter and echo state: drop it here.
            # (A sum of finite samples that overflows lands here too, harmlessly.)
            x = np.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)
        if count <= _CHUNK:
            return _batch([self], x)
        return np.concatenate([_batch([self], x[i : i + _CHUNK]) for i in range(0, count, _CHUNK)])

    def _write(self, x: np.ndarray) -> np.ndarray:
        """Append `x` to the input history; the history then `x`, as a view (`x[0]` at
        index `_history_len`)."""
        buf, w, hist = self._buf, self._w, self._history_len
        count = x.size
        if w + count > buf.size:
            buf[:hist] = buf[w - hist : w]
            w = hist
        buf[w : w + count] = x
        self._w = w + count
        return buf[w - hist : w + count]

    def _finish(self, y: np.ndarray, lp_zi: np.ndarray) -> list[float]:
        """The echo on `y` (this voice's low-passed chunk, in place; `lp_zi` the low-pass
        state after it); the chunk's tremolo mix over the rotation rows 1, cos, sin; the
        voice moves past the chunk."""
        self._lp_zi = lp_zi
        count = y.size
        n0 = self._n
        # Echo: feedback comb y[n] += g*y[n-D], in place, through a ring of the last D outputs (times g).
        ring, d, g = self._echo_ring, self._echo_delay, self.params.echo_feedback
        r, done = n0 % d, 0
        while done < count:
            m = min(count - done, d - r)
            seg, old = y[done : done + m], ring[r : r + m]
            seg += old
            np.multiply(seg, g, out=old)
            done += m
            r = 0
        self._n = n0 + count
        # Tremolo gain from the absolute sample index, reduced modulo one period
        # first so the phase stays precise for hours.
        period, b = self._trem_period, self._trem_b
        a = _TWO_PI * math.fmod(n0, period) / period + self._tremolo_phase0
        return [self._trem_a, -b * math.sin(a), -b * math.cos(a)]

    def _control_runs(self, count: int) -> list[tuple[int, int, list[float]]]:
        """The next `count` samples' control rows as runs (start, stop, the 3x5
        coefficients, flat): rows LFO phase, ln(peak pitch ratio) and LFO step
        (rad/sample), each `coefficients @ _POWERS[:, :stop - start]`.

        The phase row is offset by a whole number of half turns so that it stays
        near 0 (within about +-2 rad for a 20 ms frame): float32 then places it
        finely enough for sin. When the offset is odd, sin of the row is minus
        the sin of the phase: the step row is then negated, so that ln-ratio
        over step times sin of the row is the signed swing either way.

        The wander joins random knots every `interval` samples by a smoothstep
        s(t) = 3t^2 - 2t^3, so each curve is continuous with a continuous slope.
        Between two knots the step and ln-ratio are cubics in the sample index
        and the phase (the running sum of the steps) a quartic, so each run of
        samples between knots is one product of a 3x5 coefficient matrix with
        the powers of the index.
        """
        interval = self._wander_interval
        h = 1.0 / interval
        n0 = self._n
        lo = math.floor(n0 / interval)
        hi = math.floor((n0 + count - 1) / interval)
        klo = self._knot_lo
        if klo < 0 or lo < klo or hi + 1 >= klo + _KNOT_BLOCK:
            klo = self._knot_lo = lo
            ids = np.arange(lo, lo + max(_KNOT_BLOCK, hi - lo + 2), dtype=np.int64)
            self._knots = (
                _hash_uniform(self.seed, 0, ids).tolist(),
                _hash_uniform(self.seed, 1, ids).tolist(),
            )
        rate_k, depth_k = self._knots
        s0, s1, e0, e1 = self._step0, self._step1, self._exp0, self._exp1
        half_turns = round((self._lfo_phase + 0.5 * count * s0) / math.pi)
        sign = -1.0 if half_turns % 2 else 1.0
        phase = self._lfo_phase - half_turns * math.pi
        runs = []
        start = 0
        for k in range(lo, hi + 1):
            # This run: the samples of knot interval k (sample n is in interval floor(n / interval)).
            stop = count
            if k < hi:
                stop = min(count, max(start, math.ceil((k + 1) * interval) - n0))
                while stop > start and math.floor((n0 + stop - 1) / interval) > k:
                    stop -= 1
                while stop < count and math.floor((n0 + stop) / interval) <= k:
                    stop += 1
                if stop == start:
                    continue  # an interval shorter than a sample holds none
            m = stop - start
            # Smoothstep at t = t0 + h*j, j = 0..m-1, as a cubic in j.
            t0 = (n0 + start) / interval - k
            a0 = t0 * t0 * (3.0 - 2.0 * t0)
            a1 = 6.0 * h * t0 * (1.0 - t0)
            a2 = 3.0 * h * h * (1.0 - 2.0 * t0)
            a3 = -2.0 * h * h * h
            j = k - klo
            ra, da = rate_k[j], depth_k[j]
            beta, delta = s1 * (rate_k[j + 1] - ra), e1 * (depth_k[j + 1] - da)
            q0, q1, q2, q3 = s0 + s1 * ra + beta * a0, beta * a1, beta * a2, beta * a3
            # Phase at j = phase + sum of the steps before j (sums of powers, Faulhaber).
            p1 = q0 - q1 / 2.0 + q2 / 6.0
            p2 = q1 / 2.0 - q2 / 2.0 + q3 / 4.0
            p3 = q2 / 3.0 - q3 / 2.0
            p4 = q3 / 4.0
            runs.append((start, stop, [
                phase, p1, p2, p3, p4,
                e0 + e1 * da + delta * a0, delta * a1, delta * a2, delta * a3, 0.0,
                sign * q0, sign * q1, sign * q2, sign * q3, 0.0,
            ]))
            phase += m * (p1 + m * (p2 + m * (p3 + m * p4)))
            start = stop
        self._lfo_phase = (phase + half_turns * math.pi) % _TWO_PI
        return runs


def process_frames(voices: Sequence[DrunkVoice], frames: np.ndarray) -> np.ndarray:
    """Each voice's next chunk through it, all in one go: `frames` holds one row per
    voice (voices x samples, distinct voices); returns voices x samples, float32,
    row i what `voices[i].process(frames[i])` gives (to float rounding).

    The numpy calls are made once for all the voices (the same params), not once per
    voice: a 20 ms frame costs mostly its calls, not its arithmetic."""
    x = np.asarray(frames)
    if x.ndim != 2 or x.shape[0] != len(voices):
        raise ValueError(f"need one row per voice, got {x.shape} for {len(voices)} voices")
    if x.dtype not in (np.float32, np.float64):
        x = x.astype(np.float64)
    k, count = x.shape
    if k == 0 or count == 0:
        return np.zeros((k, count), dtype=np.float32)
    first = voices[0]
    if count > _CHUNK or any(v.sample_rate != first.sample_rate or (
            v.params is not first.params and v.params != first.params) for v in voices):
        return np.stack([v.process(row) for v, row in zip(voices, x, strict=True)])
    if not math.isfinite(np.add.reduce(x, axis=None)):
        x = np.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)  # as `process` does
    return _batch(voices, x) if k > 1 else _batch(voices, x[0])[None]


def _controls(voices: Sequence[DrunkVoice], runs: list, count: int) -> np.ndarray:
    """Each voice's rows LFO phase, ln(peak pitch ratio) and signed step over the next
    `count` samples, from its `runs` (`DrunkVoice._control_runs`): 3 x count for one
    voice, 3 x voices x count for several."""
    k = len(voices)
    out = np.empty((3 * k, count))
    for j, voice_runs in enumerate(runs):
        for start, stop, coef in voice_runs:
            np.matmul(np.reshape(coef, (3, 5)), _POWERS[:, : stop - start],
                      out=out[3 * j : 3 * j + 3, start:stop])
    return out if k == 1 else out.reshape(k, 3, count).transpose(1, 0, 2)


@functools.lru_cache(maxsize=16)
def _read_row(offset: float, count: int) -> np.ndarray:
    """offset + j for j = 0..count-1 (read-only, shared)."""
    row = np.arange(count, dtype=np.float64) + offset
    row.flags.writeable = False
    return row


@functools.lru_cache(maxsize=16)
def _nodes(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The Chebyshev nodes over sample indices 0..count-1: their powers 0..4 (5 x
    _NODES), and the Lagrange basis through them at every index (_NODES x count:
    values at the nodes @ basis = the interpolating polynomial at each sample)."""
    half = (count - 1) / 2.0
    x = np.cos((2 * np.arange(_NODES) + 1) * math.pi / (2 * _NODES))  # in (-1, 1)
    powers = np.vander(half * (x + 1.0), 5, increasing=True).T.copy()
    at = np.arange(count) / half - 1.0
    basis = np.ones((_NODES, count))
    for i in range(_NODES):
        for m in range(_NODES):
            if m != i:
                basis[i] *= (at - x[m]) / (x[i] - x[m])
    powers.flags.writeable = basis.flags.writeable = False
    return powers, basis


def _swing(voices: Sequence[DrunkVoice], count: int) -> np.ndarray:
    """Each voice's delay swing (samples, signed: the read point is the base delay plus
    it) over the next `count` samples: count, or voices x count.

    swing = expm1(ln ratio) / step * sin(phase). Inside one wander interval this is a
    smooth function of the sample index (a chunk of at most `_node_span` samples sees
    a small part of the wander and at most 1.5 rad of the LFO), so it is taken at
    _NODES Chebyshev nodes and interpolated (within ~1e-8 samples of the formula at
    every sample: tests/audio/test_drunk.py), instead of the formula at every sample.
    """
    k = len(voices)
    first = voices[0]
    runs = [voice._control_runs(count) for voice in voices]
    if _NODES * 4 <= count <= first._node_span and all(len(r) == 1 for r in runs):
        coef = np.array([c for r in runs for c in r[0][2]]).reshape(3 * k, 5)
        powers, basis = _nodes(count)
        phase, lnratio, step = (coef @ powers).reshape(k, 3, _NODES).transpose(1, 0, 2)
        at = np.expm1(lnratio)
        at /= step  # (the step's sign is the sign of sin(phase) / sin(row))
        at *= np.sin(phase)
        out = at @ basis
        return out[0] if k == 1 else out
    # The formula at every sample.
    phase, lnratio, step = _controls(voices, runs, count)
    swing = np.expm1(lnratio)
    swing /= step
    if first._clamp:
        np.clip(swing, -first._amp_max, first._amp_max, out=swing)
    swing *= np.sin(phase)
    return swing


def _batch(voices: Sequence[DrunkVoice], x: np.ndarray) -> np.ndarray:
    """Wobble -> low-pass -> echo -> tremolo -> soft clip for one chunk per voice:
    `x` is one voice's chunk (1-d), or voices x samples (2-d); finite samples, at most
    _CHUNK of them, the voices sharing their params. Every array below is one row per
    voice, 1-d for one voice (the `...` indexing serves both)."""
    count = x.shape[-1]
    first = voices[0]
    # Vibrato by a modulated delay: pitch ratio = 1 - d(delay)/dt, average exactly 1.
    # Peak pitch ratio r = 2*pi*f*A/sr  <=>  A = r*sr/(2*pi*f) = r/step.
    swing = _swing(voices, count)
    # Read point of input sample j of the chunk: history + j - delay, in the history
    # then the chunk (`_write`), delay = base delay + swing.
    pos = np.subtract(_read_row(first._history_len - first._base_delay, count), swing, out=swing)
    i = pos.astype(np.intp)  # positions are >= 1, so truncation is floor
    f = pos - i
    taps = i[..., None, :] + _TAPS  # the 4 neighbours of each read point: 4 x count a voice
    if x.ndim == 1:
        near = first._write(x).take(taps)
    else:
        near = np.empty(taps.shape)
        for j, (voice, row) in enumerate(zip(voices, x, strict=True)):
            # (every index is inside the history by construction: "clip" clips nothing, and
            # unlike "raise" it writes to `out` directly instead of through a copy)
            voice._write(row).take(taps[j], out=near[j], mode="clip")
    # The 4-point Lagrange interpolator, Farrow form: x[i] + f*(c1 + f*(c2 + f*c3)).
    c = _FARROW @ near
    y = np.multiply(c[..., 2, :], f, out=c[..., 2, :])
    y += c[..., 1, :]
    y *= f
    y += c[..., 0, :]
    y *= f
    y += near[..., 1, :]
    if x.ndim == 1:
        y, zf = _lfilter(first._lp_b, first._lp_a, y, first._lp_zi)
        mix = first._finish(y, zf)
    else:
        y, zf = _lfilter(first._lp_b, first._lp_a, y, np.array([v._lp_zi for v in voices]))
        mix = [voice._finish(row, z) for voice, row, z in zip(voices, y, zf, strict=True)]
    # Tremolo by rotation, then the soft clip (1/ceiling folded into the tremolo).
    y *= np.array(mix) @ first._trem_rows[:, :count]
    out = np.tanh(y, out=np.empty(y.shape, dtype=np.float32), dtype=np.float32,
                  casting="same_kind")
    out *= first._ceiling
    return out
