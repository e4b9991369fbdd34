"""Click-free splices in one speaker's stream, for the jitter queue (audio/jitter.py).

- Running dry: the last frame is continued (mirrored around its last sample:
  continuous in value and in slope magnitude) and faded out over `FADE`.
- Any other break in continuity (a dropped frame, playback starting again):
  the new audio fades in over `FADE` against that continuation.
- A partial frame left when the sender paused: played, then faded out the
  same way, then silence.
- Cutting excess latency out of the queued audio (`cut`): the quietest
  stretch goes, ends where what follows best matches its start (a
  pitch-aligned time compression for voiced sound) and is cross-faded over
  `FADE` from the removed audio's start, the true continuation of what
  precedes the cut, into what follows it.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from audio.format import FRAME

__all__ = ["FADE", "ALIGN", "SILENT_POWER", "continuation", "conceal", "crossfade", "flush", "cut"]

FADE = 240  # 5 ms: long enough to be click-free, short enough to be unnoticed
ALIGN = 240  # a cut may end up to 5 ms later, to match a pitch period of 200 Hz or more
SILENT_POWER = 1e-5  # mean square of a pause (-50 dBFS): cut there without a sound lost
FADE_OUT = (0.5 * (1.0 + np.cos(np.pi * np.arange(FADE) / FADE))).astype(np.float32)
FADE_IN = (1.0 - FADE_OUT).astype(np.float32)


def continuation(last: np.ndarray) -> np.ndarray:
    """What would follow `last` (FADE samples): it mirrored around its last sample,
    continuous in value and with the same local slope magnitude, so fading it is
    click-free."""
    return last[-2 : -2 - FADE : -1]


def conceal(last: np.ndarray) -> np.ndarray:
    """The frame played when the queue runs dry after `last`: its continuation faded out."""
    out = np.zeros(FRAME, dtype=np.float32)
    out[:FADE] = continuation(last) * FADE_OUT
    return out


def crossfade(frame: np.ndarray, last: np.ndarray) -> np.ndarray:
    """`frame` (a copy) fading in over `last`'s continuation fading out."""
    out = frame.copy()
    out[:FADE] = frame[:FADE] * FADE_IN + continuation(last) * FADE_OUT
    return out


def flush(partial: np.ndarray, before: np.ndarray | None) -> np.ndarray:
    """A whole frame from a `partial` one the sender paused in: what there is, then a
    mirrored continuation of it fading out, then silence. `before`: the frame
    played before it, which it continues (None after a break: a fade-in is pending)."""
    n = partial.size
    out = np.zeros(FRAME, dtype=np.float32)
    out[:n] = partial
    played = partial if before is None else np.concatenate([before, partial])
    mirrored = np.pad(played, (0, FADE), mode="reflect")[played.size :]
    out[n : n + FADE] = (mirrored * FADE_OUT)[: FRAME - n]
    return out


def cut(frames: Iterable[np.ndarray], partial: np.ndarray, want: int, keep: int,
        silent_only: bool = False) -> tuple[np.ndarray | None, int] | None:
    """Remove about `want` samples (within +-ALIGN/2) of the queued audio (`frames`,
    then `partial`), quietest first, click-free, leaving at least `keep` samples
    after the cut: (the audio left, joined; the number removed). (None, 0) when the
    audio is too short for a clean cut; None if `silent_only` and no pause is queued."""
    frames = list(frames)
    base = max(want - ALIGN // 2, 1)
    # (checked before joining the frames: a queue too short to cut may be empty)
    align = min(ALIGN, len(frames) * FRAME + partial.size - keep - base)
    if align < 0:
        return None, 0
    flat = np.concatenate([*frames, partial] if partial.size else frames)
    # The quietest `base`-long window, on a 5 ms grid (the earliest on ties).
    power = np.concatenate([[0.0], np.cumsum(flat.astype(np.float64) ** 2)])
    starts = np.arange(0, flat.size - base - align - FADE + 1, FADE)
    window = power[starts + base] - power[starts]
    s = int(starts[np.argmin(window)])
    if silent_only and window.min() > SILENT_POWER * base:
        return None
    head = flat[s : s + FADE]
    # End the cut where what follows looks most like the removed audio's start
    # (normalised cross-correlation), so a voiced sound keeps its phase.
    lag = 0
    if align and np.dot(head, head) > 1e-8:
        seg = flat[s + base : s + base + align + FADE - 1].astype(np.float64)
        corr = np.correlate(seg, head.astype(np.float64), mode="valid")
        energy = np.convolve(seg**2, np.ones(FADE), mode="valid")
        lag = int(np.argmax(corr / np.sqrt(energy + 1e-12)))
    tail = flat[s + base + lag :].copy()
    tail[:FADE] = tail[:FADE] * FADE_IN + head * FADE_OUT
    return np.concatenate([flat[:s], tail]), base + lag
