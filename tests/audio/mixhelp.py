"""Helpers for the audio tests: drive a RoomMixer with whole signals, measure tones."""

from __future__ import annotations

import numpy as np
from scipy.signal import get_window

from audio import FRAME, SAMPLE_RATE, RoomMixer


def run(mixer: RoomMixer, signals: dict[str, np.ndarray], ticks: int, on_tick=None):
    """Push one frame of each signal per tick and tick; return (mixes, mouths, results).

    mixes: listener -> concatenated output; mouths: speaker -> array of levels.
    Signals shorter than needed are padded with silence (frames still pushed).
    """
    outs: dict[str, list[np.ndarray]] = {p: [] for p in mixer.players}
    mouths: dict[str, list[float]] = {p: [] for p in mixer.players}
    results = []
    for t in range(ticks):
        for pid, sig in signals.items():
            frame = np.zeros(FRAME, dtype=np.float32)
            chunk = sig[t * FRAME : (t + 1) * FRAME]
            frame[: chunk.size] = chunk
            mixer.push(pid, frame)
        if on_tick is not None:
            on_tick(t, mixer)
        res = mixer.tick()
        results.append(res)
        for pid in outs:
            outs[pid].append(res.mixes[pid])
            mouths[pid].append(res.mouths[pid])
    return (
        {p: np.concatenate(v) for p, v in outs.items()},
        {p: np.array(v) for p, v in mouths.items()},
        results,
    )


def tone_levels(x: np.ndarray, freqs, seconds: float = 1.0) -> dict[float, float]:
    """dBFS (peak-amplitude scale) of each exact-bin tone over the last `seconds` of x.

    Periodic Hann window; a tone on an exact bin leaks into its two neighbours
    only, so the bin itself reads the tone's amplitude.
    """
    n = int(seconds * SAMPLE_RATE)
    seg = x[-n:].astype(np.float64)
    win = get_window("hann", n)
    spec = np.abs(np.fft.rfft(seg * win)) * 2.0 / win.sum()
    res = SAMPLE_RATE / n
    return {f: 20 * np.log10(spec[int(round(f / res))] + 1e-15) for f in freqs}
