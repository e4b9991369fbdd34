"""Synthetic test signals: exact-bin tones and speech-like voices (for tests, bench, bots).

`speech_like` is a crude source-filter voice: a glottal pulse train with a
wandering pitch, shaped by three formant resonators whose vowel changes every
syllable, cut into syllables (120-260 ms) separated by short pauses (40-140 ms).
Not intelligible, but it has what the mixer cares about: harmonics, vowel
spectra, syllabic energy modulation and real pauses.
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from audio.format import SAMPLE_RATE

__all__ = ["tone", "speech_like", "db_to_amp"]

# (F1, F2, F3) Hz of a few vowels: a, e, i, o, u
_VOWELS = ((730, 1090, 2440), (530, 1840, 2480), (270, 2290, 3010), (570, 840, 2410), (300, 870, 2240))
_EDGE = 0.010  # s, attack/release of a syllable


def db_to_amp(db: float) -> float:
    """dBFS -> linear amplitude."""
    return float(10.0 ** (db / 20.0))


def tone(freq: float, seconds: float, level_db: float = -20.0, phase: float = 0.0) -> np.ndarray:
    """A sine of peak level `level_db` dBFS (float32)."""
    t = np.arange(int(round(seconds * SAMPLE_RATE))) / SAMPLE_RATE
    return (db_to_amp(level_db) * np.sin(2 * np.pi * freq * t + phase)).astype(np.float32)


def speech_like(
    seconds: float,
    seed: int = 0,
    f0: float = 120.0,
    level_db: float = -20.0,
    start: float = 0.0,
    stop: float | None = None,
) -> np.ndarray:
    """A speech-like voice, silent outside [start, stop); RMS of the syllables ~ `level_db`.

    The first syllable starts exactly at `start`; the last one ends exactly at `stop`.
    """
    rng = np.random.default_rng(seed)
    n = int(round(seconds * SAMPLE_RATE))
    stop = seconds if stop is None else stop
    out = np.zeros(n)
    t = start
    while t < stop - 0.05:
        dur = min(rng.uniform(0.12, 0.26), stop - t)
        a, b = int(round(t * SAMPLE_RATE)), int(round((t + dur) * SAMPLE_RATE))
        out[a:b] = _syllable(b - a, rng, f0)
        t += dur + rng.uniform(0.04, 0.14)
    voiced = np.abs(out) > 0
    if voiced.any():
        out *= db_to_amp(level_db) / np.sqrt(np.mean(out[voiced] ** 2))
    return out.astype(np.float32)


def _syllable(n: int, rng: np.random.Generator, f0: float) -> np.ndarray:
    t = np.arange(n) / SAMPLE_RATE
    pitch = f0 * (1.0 + 0.08 * np.sin(2 * np.pi * rng.uniform(2, 5) * t + rng.uniform(0, 6)))
    phase = np.cumsum(pitch) / SAMPLE_RATE
    pulses = np.diff(np.floor(phase), prepend=0.0)  # one impulse per glottal period
    source = signal.lfilter([1.0], [1.0, -0.95], pulses)  # glottal roll-off
    source += 0.02 * rng.standard_normal(n)  # breath
    voice = np.zeros(n)
    for k, formant in enumerate(_VOWELS[rng.integers(len(_VOWELS))]):
        bw = 80.0 + 40.0 * k
        r = np.exp(-np.pi * bw / SAMPLE_RATE)
        w = 2 * np.pi * formant / SAMPLE_RATE
        voice += signal.lfilter([1.0 - r], [1.0, -2 * r * np.cos(w), r * r], source) / (k + 1)
    edge = min(int(_EDGE * SAMPLE_RATE), n // 2)
    env = np.ones(n)
    env[:edge] = np.linspace(0.0, 1.0, edge)
    env[n - edge :] = np.linspace(1.0, 0.0, edge)
    return voice * env
