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

import math
from dataclasses import dataclass

import numpy as np
from scipy import signal

__all__ = ["DrunkParams", "DrunkVoice"]


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


def _wander(seed: int, streams: tuple[int, ...], n: np.ndarray, interval: float) -> list[np.ndarray]:
    """Smooth random wanders in [-1, 1] at absolute sample indices n, one per stream.

    Random values sit on knots every `interval` samples and are joined by a
    smoothstep, so each curve is continuous with a continuous slope.
    """
    pos = n / interval
    k = np.floor(pos)
    t = pos - k
    s = t * t * (3.0 - 2.0 * t)
    k0 = k.astype(np.int64)
    lo = int(k0[0])
    idx = k0 - lo
    knot_ids = np.arange(lo, int(k0[-1]) + 2, dtype=np.int64)
    out = []
    for stream in streams:
        knots = _hash_uniform(seed, stream, knot_ids)
        a = knots[idx]
        out.append(a + (knots[idx + 1] - a) * s)
    return out


def _lagrange4(buf: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Cubic (4-point Lagrange) interpolation of buf at fractional positions."""
    i = np.floor(pos).astype(np.int64)
    f = pos - i
    xm1, x0, x1, x2 = buf[i - 1], buf[i], buf[i + 1], buf[i + 2]
    fm1, fp1, fm2 = f - 1.0, f + 1.0, f - 2.0
    return (
        -f * fm1 * fm2 / 6.0 * xm1
        + fp1 * fm1 * fm2 / 2.0 * x0
        - fp1 * f * fm2 / 2.0 * x1
        + fp1 * f * fm1 / 6.0 * x2
    )


class DrunkVoice:
    """Streaming drunk-voice effect for one speaker (48 kHz mono float32)."""

    def __init__(self, seed: int = 0, params: DrunkParams | None = None, sample_rate: int = 48000):
        """Set up one speaker's effect; `seed` picks its wander and echo delay."""
        self.seed = int(seed)
        self.params = params or DrunkParams()
        self.sample_rate = int(sample_rate)
        p, sr = self.params, self.sample_rate
        if not 0 < p.lowpass_hz < sr / 2:
            raise ValueError("lowpass_hz must be below the Nyquist frequency")

        # Largest delay swing the wander can ask for (deepest cents at slowest rate).
        rate_min = max(p.lfo_rate_hz - p.lfo_rate_wander_hz, 0.5)
        ratio_max = 2.0 ** ((p.depth_cents + p.depth_wander_cents) / 1200.0) - 1.0
        self._amp_max = ratio_max * sr / (2.0 * math.pi * rate_min)
        # The read point must stay 2 samples behind the write point for the
        # 4-point interpolator, so the base delay is the swing plus a margin.
        self._base_delay = math.ceil(self._amp_max) + 4.0
        self._history_len = int(self._base_delay + math.ceil(self._amp_max)) + 4
        self._wander_interval = p.wander_interval_s * sr

        u = float(_hash_uniform(self.seed, 3, np.zeros(1, dtype=np.int64))[0])
        echo_ms = p.echo_min_ms + (u + 1.0) / 2.0 * (p.echo_max_ms - p.echo_min_ms)
        self._echo_delay = max(1, int(round(echo_ms * sr / 1000.0)))

        # Transfer-function form: at this low order it is well conditioned, and
        # lfilter costs far less per 20 ms call than sosfilt's wrapper.
        self._lp_b, self._lp_a = signal.butter(p.lowpass_order, p.lowpass_hz, fs=sr)
        self._tremolo_phase0 = (float(_hash_uniform(self.seed, 4, np.zeros(1, np.int64))[0]) + 1.0) * math.pi
        self.reset()

    def reset(self) -> None:
        """Forget all state, as if the speaker had just started."""
        self._n = 0  # absolute index of the next input sample
        self._history = np.zeros(self._history_len)
        self._lfo_phase = (float(_hash_uniform(self.seed, 2, np.zeros(1, np.int64))[0]) + 1.0) * math.pi
        self._lp_zi = np.zeros(max(len(self._lp_a), len(self._lp_b)) - 1)
        self._echo_tail = np.zeros(self._echo_delay)

    def process(self, frame: np.ndarray) -> np.ndarray:
        """Run one chunk (any length) through the effect; same length, float32."""
        x = np.asarray(frame, dtype=np.float64).reshape(-1)
        count = x.size
        if count == 0:
            return np.zeros(0, dtype=np.float32)
        if not np.isfinite(x).all():
            # A NaN would live forever in the filter and echo state: drop it here.
            x = np.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)
        n = np.arange(self._n, self._n + count, dtype=np.float64)
        y = self._wobble(x, n)
        y, self._lp_zi = signal.lfilter(self._lp_b, self._lp_a, y, zi=self._lp_zi)
        y = self._echo(y)
        y = y * self._tremolo(n)
        c = self.params.clip_ceiling
        y = c * np.tanh(y / c)
        self._n += count
        return y.astype(np.float32)

    def _wobble(self, x: np.ndarray, n: np.ndarray) -> np.ndarray:
        """Vibrato by a modulated delay: pitch ratio = 1 - d(delay)/dt, average exactly 1."""
        p, sr = self.params, self.sample_rate
        rate_u, depth_u = _wander(self.seed, (0, 1), n, self._wander_interval)
        rate = p.lfo_rate_hz + p.lfo_rate_wander_hz * rate_u
        cents = p.depth_cents + p.depth_wander_cents * depth_u
        # Phase integrates the wandering rate, so it stays continuous when the rate moves.
        step = 2.0 * math.pi * rate / sr
        end = np.cumsum(step)
        phase = self._lfo_phase + (end - step)  # sample k uses the phase before its own step
        self._lfo_phase = float((self._lfo_phase + end[-1]) % (2.0 * math.pi))
        # Peak pitch ratio r = 2*pi*f*A/sr  <=>  A = r*sr/(2*pi*f).
        amp = (2.0 ** (cents / 1200.0) - 1.0) * sr / (2.0 * math.pi * rate)
        amp = np.minimum(amp, self._amp_max)
        delay = self._base_delay + amp * np.sin(phase)

        buf = np.concatenate((self._history, x))
        # Buffer index of absolute sample m is m - (self._n - history_len).
        pos = (n - self._n) + self._history_len - delay
        out = _lagrange4(buf, pos)
        self._history = buf[-self._history_len :]
        return out

    def _echo(self, x: np.ndarray) -> np.ndarray:
        """Feedback comb y[n] = x[n] + g*y[n-D], in chunks of D (one chunk per 20 ms frame)."""
        d, g = self._echo_delay, self.params.echo_feedback
        y = np.concatenate((self._echo_tail, x))
        for start in range(d, y.size, d):
            stop = min(start + d, y.size)
            y[start:stop] += g * y[start - d : stop - d]
        self._echo_tail = y[-d:].copy()
        return y[d:]

    def _tremolo(self, n: np.ndarray) -> np.ndarray:
        """Gain between 1 - depth and 1, from the absolute sample index."""
        p = self.params
        # Reduce the index modulo one period first so the phase stays precise for hours.
        period = self.sample_rate / p.tremolo_hz
        phase = 2.0 * math.pi * np.mod(n, period) / period + self._tremolo_phase0
        return 1.0 - p.tremolo_depth * 0.5 * (1.0 + np.sin(phase))
