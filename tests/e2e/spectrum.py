"""Signal analysis for the voice tests: tone levels on exact FFT bins, pitch spread.

Tones are chosen on exact bins of the analysis length (e.g. multiples of
2 Hz for 0.5 s at 48 kHz), so with a Hann window a tone's energy stays in
its bin and its neighbours and a tone absent from a recording reads as the
coding noise floor, not as leakage from the others.
"""

from __future__ import annotations

import numpy as np

RATE = 48000


def tone_db(x: np.ndarray, hz: float, rate: int = RATE) -> float:
    """Level of the `hz` component in dB re a full-scale sine (Hann window, peak of 3 bins)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    w = np.hanning(n)
    spec = np.abs(np.fft.rfft(x * w)) * 2 / w.sum()
    k = int(round(hz * n / rate))
    peak = spec[max(k - 1, 0) : k + 2].max()
    return float(20 * np.log10(peak + 1e-12))


def tone_db_robust(x: np.ndarray, hz: float, window: float = 0.25, rate: int = RATE) -> float:
    """Median of `tone_db` over half-overlapping windows of `window` s (`hz` on their bins).

    A click (a frame lost or faded on a starved machine) spreads energy over
    the whole spectrum for a few milliseconds; it lifts one or two windows,
    not the median, so a tone absent from a mix still reads as absent.
    """
    n = int(window * rate)
    hop = n // 2
    values = [tone_db(x[i : i + n], hz, rate) for i in range(0, len(x) - n + 1, hop)]
    if not values:
        raise AssertionError("recording shorter than one analysis window")
    return float(np.median(values))


def steady(x: np.ndarray, seconds: float = 1.0, skip_end: float = 0.2, rate: int = RATE) -> np.ndarray:
    """The last `seconds` of a recording before its final `skip_end` seconds."""
    end = len(x) - int(skip_end * rate)
    start = end - int(seconds * rate)
    if start < 0:
        raise AssertionError(f"recording too short: {len(x) / rate:.2f} s")
    return x[start:end]


def band(x: np.ndarray, hz: float, width: float, rate: int = RATE) -> np.ndarray:
    """Band-pass around `hz` (+- width Hz) as the analytic signal, by FFT masking."""
    n = len(x)
    spec = np.fft.fft(x)
    freqs = np.fft.fftfreq(n, 1 / rate)
    mask = (freqs > hz - width) & (freqs < hz + width)
    return np.fft.ifft(spec * mask * 2)


def pitch_spread_cents(x: np.ndarray, hz: float, width: float | None = None, rate: int = RATE) -> float:
    """Standard deviation, in cents, of the instantaneous frequency of the tone near `hz`.

    The tone is isolated by a band-pass, +-10 % of `hz` unless `width` (Hz) is
    given: wider than the drunk voice's largest swing (135 cents, 8 %), narrow
    enough to leave out the other players' tones and most of the codec's
    noise around them. Its analytic phase is differentiated, and the
    frequency smoothed over 5 ms so that coding noise does not count as pitch.

    Samples where the tone's envelope is under half its median are left out,
    and the spread is a robust standard deviation (1.4826 x the median absolute
    deviation): on a machine whose cores are shared, a starved event loop
    makes the jitter queue fade a frame out and back in now and then, a rare
    spike of hundreds of cents that says nothing about pitch; a drunk wobble
    is everywhere and keeps its full spread.
    """
    a = band(x, hz, 0.1 * hz if width is None else width, rate)
    phase = np.unwrap(np.angle(a))
    inst = np.diff(phase) * rate / (2 * np.pi)
    k = int(0.005 * rate)
    kernel = np.ones(k) / k
    smooth = np.convolve(inst, kernel, mode="valid")
    # Only where the tone is there: a frame faded out and back in by a
    # starved jitter queue leaves a hole whose "frequency" is noise.
    env = np.convolve(np.abs(a[1:]), kernel, mode="valid")
    edge = int(0.02 * rate)
    smooth, env = smooth[edge:-edge], env[edge:-edge]
    keep = (env > 0.5 * np.median(env)) & (smooth > 0)
    cents = 1200 * np.log2(smooth[keep] / hz)
    return float(1.4826 * np.median(np.abs(cents - np.median(cents))))
