"""Synthesise the game's sound cues into audio/cues/*.wav (or the folder given).

Usage: python scripts/make_cues.py [outdir]

Every cue is plain additive synthesis with numpy, deterministic (no random
numbers), faded in and out so it starts and ends on silence, normalised to a
peak of -6 dBFS (whisper_tick much softer) and written as 16-bit PCM mono
48 kHz. The committed files are this script's output; a test regenerates
them and compares.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile as sf

SAMPLE_RATE = 48000
PEAK = 0.5  # -6 dBFS: cues sit under voices, and the limiter has headroom.
TICK_PEAK = 0.12  # whisper_tick: about -18 dBFS, a soft tick under a whisper.
FADE_IN_S = 0.004  # short enough to keep attacks crisp, long enough for no click
FADE_OUT_S = 0.03

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "audio" / "cues"


def _time(duration: float) -> np.ndarray:
    return np.arange(int(round(duration * SAMPLE_RATE))) / SAMPLE_RATE


def _note(hz: float, duration: float, decay: float, partials=((1.0, 1.0),)) -> np.ndarray:
    """A struck note: sum of (ratio, gain) partials under an exponential decay."""
    t = _time(duration)
    tone = sum(g * np.sin(2 * np.pi * hz * r * t) for r, g in partials)
    return tone * np.exp(-t / decay)


def _place(total: float, parts: list[tuple[float, np.ndarray]]) -> np.ndarray:
    """Mix (start time, signal) parts into one buffer `total` seconds long."""
    out = np.zeros(int(round(total * SAMPLE_RATE)))
    for start, sig in parts:
        i = int(round(start * SAMPLE_RATE))
        n = min(sig.size, out.size - i)
        out[i : i + n] += sig[:n]
    return out


def _glide(f_start: float, f_end: float, duration: float) -> np.ndarray:
    """Phase of an exponential pitch glide (integrated, so no phase jumps)."""
    t = _time(duration)
    freq = f_start * (f_end / f_start) ** (t / duration)
    return 2 * np.pi * np.cumsum(freq) / SAMPLE_RATE


BELL = ((1.0, 1.0), (2.0, 0.35), (3.0, 0.12))  # bright but not harsh
SOFT = ((1.0, 1.0), (2.0, 0.15))


def your_turn() -> np.ndarray:
    """A bright two-note chime, rising a fourth (E6 -> A6)."""
    return _place(0.42, [(0.0, _note(1318.5, 0.42, 0.09, BELL)), (0.11, _note(1760.0, 0.31, 0.1, BELL))])


def vote_open() -> np.ndarray:
    """Three quick even notes (G5 G5 C6): a call to decide."""
    n = lambda hz: _note(hz, 0.3, 0.07, BELL)  # noqa: E731
    return _place(0.5, [(0.0, n(784.0)), (0.1, n(784.0)), (0.2, n(1046.5))])


def elimination() -> np.ndarray:
    """A low tone gliding down an octave and a fifth, fading away."""
    t = _time(0.75)
    ph = _glide(330.0, 110.0, 0.75)
    env = np.minimum(t / 0.03, 1.0) * np.exp(-t / 0.35)
    return (np.sin(ph) + 0.3 * np.sin(2 * ph)) * env


def victory() -> np.ndarray:
    """A C major arpeggio up to the octave, the top note held."""
    notes = [(0.0, 523.25), (0.09, 659.25), (0.18, 783.99), (0.27, 1046.5)]
    parts = [(s, _note(hz, 0.8 - s, 0.25 if hz > 1000 else 0.12, BELL)) for s, hz in notes]
    return _place(0.8, parts)


def defeat() -> np.ndarray:
    """A C minor triad falling (G4 Eb4 C4), slow and soft."""
    notes = [(0.0, 392.0), (0.18, 311.13), (0.36, 261.63)]
    parts = [(s, _note(hz, 0.8 - s, 0.2 if s > 0.3 else 0.12, SOFT)) for s, hz in notes]
    return _place(0.8, parts)


def night() -> np.ndarray:
    """A low soft swell on an open fifth (A2 + E3)."""
    t = _time(0.8)
    env = np.sin(np.pi * t / 0.8) ** 2
    tone = np.sin(2 * np.pi * 110.0 * t) + 0.6 * np.sin(2 * np.pi * 164.81 * t) + 0.15 * np.sin(2 * np.pi * 220.0 * t)
    return tone * env


def day() -> np.ndarray:
    """A bright swell rising a fifth, upper partials growing as it rises."""
    t = _time(0.8)
    ph = _glide(523.25, 783.99, 0.8)
    bright = t / 0.8
    # Swell up to 0.35 s, then let it ring out.
    env = np.where(t < 0.35, np.sin(np.pi * t / 0.7) ** 2, np.exp(-(t - 0.35) / 0.15))
    tone = np.sin(ph) + 0.4 * bright * np.sin(2 * ph) + 0.2 * bright * np.sin(3 * ph)
    return tone * env


def whisper_tick() -> np.ndarray:
    """A very soft 30 ms tick: a Hann-windowed 2.5 kHz burst."""
    t = _time(0.03)
    return np.sin(2 * np.pi * 2500.0 * t) * np.hanning(t.size)


CUES: dict[str, Callable[[], np.ndarray]] = {
    "your_turn": your_turn,
    "vote_open": vote_open,
    "elimination": elimination,
    "victory": victory,
    "defeat": defeat,
    "night": night,
    "day": day,
    "whisper_tick": whisper_tick,
}


def finish(sig: np.ndarray, peak: float) -> np.ndarray:
    """Fade both ends to exactly zero and normalise to `peak`."""
    sig = np.asarray(sig, dtype=np.float64).copy()
    n_in = min(int(FADE_IN_S * SAMPLE_RATE), sig.size // 4)
    n_out = min(int(FADE_OUT_S * SAMPLE_RATE), sig.size // 4)
    sig[:n_in] *= 0.5 - 0.5 * np.cos(np.pi * np.arange(n_in) / n_in)
    sig[sig.size - n_out :] *= 0.5 + 0.5 * np.cos(np.pi * (np.arange(n_out) + 1) / n_out)
    return sig * (peak / np.max(np.abs(sig)))


def render(name: str) -> np.ndarray:
    """The finished cue as int16 samples, exactly what goes into the file."""
    peak = TICK_PEAK if name == "whisper_tick" else PEAK
    sig = finish(CUES[name](), peak)
    return np.round(sig * 32767).astype(np.int16)


def write_all(outdir: str | Path = DEFAULT_OUT) -> list[Path]:
    """Write every cue as outdir/<name>.wav; returns the paths written."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in CUES:
        path = out / f"{name}.wav"
        sf.write(path, render(name), SAMPLE_RATE, subtype="PCM_16", format="WAV")
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    """CLI entry: `python scripts/make_cues.py [outdir]`."""
    args = sys.argv[1:] if argv is None else argv
    for path in write_all(args[0] if args else DEFAULT_OUT):
        print(f"{path} {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
