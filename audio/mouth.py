"""Mouth levels: how open each speaker's mouth is drawn, 0..1 per 20 ms frame.

Computed on the speaker's own voice as it arrives (before routing and
effects), so a whisperer's mouth moves for everyone who is shown it.

- Level: frame energy in dBFS.
- Adaptive noise floor: the minimum level over the last 1.5 s. Speech has
  pauses between syllables, so the minimum finds the background; a steady
  fan or hiss becomes the floor within 1.5 s and stops moving the mouth.
- Opening: 0 up to `MARGIN_DB` above the floor, then linear to 1 at
  `MARGIN_DB + RANGE_DB`; nothing below `GATE_DB` (mic hiss) opens it.
  The first speech frame opens it (onset within 20-40 ms).
- Hangover: when the speech stops the mouth closes linearly over `HANG`
  frames (140 ms) instead of snapping shut between syllables.

All speakers are updated at once with array operations.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MouthMeter"]

FLOOR_FRAMES = 75  # 1.5 s of history for the noise floor
MARGIN_DB = 8.0  # a steady noise wobbles ~1 dB per 20 ms frame; speech is 20+ dB above it
RANGE_DB = 20.0
GATE_DB = -60.0
SILENT_DB = -100.0
HANG = 7  # frames


class MouthMeter:
    """Per-speaker mouth state; row i is speaker i of the mixer's player order."""

    def __init__(self, speakers: int = 0):
        # frames x speakers: the minimum over axis 0 is a fast element-wise reduction
        self._history = np.full((FLOOR_FRAMES, speakers), SILENT_DB)
        self._pos = 0
        self._hold = np.zeros(speakers)
        self._hang = np.zeros(speakers, dtype=np.int64)

    def add(self) -> None:
        """Append a fresh speaker (as if silent until now)."""
        self._history = np.hstack([self._history, np.full((FLOOR_FRAMES, 1), SILENT_DB)])
        self._hold = np.append(self._hold, 0.0)
        self._hang = np.append(self._hang, 0)

    def remove(self, row: int) -> None:
        """Forget speaker `row`; later rows move up by one."""
        self._history = np.delete(self._history, row, axis=1)
        self._hold = np.delete(self._hold, row)
        self._hang = np.delete(self._hang, row)

    def update(self, frames: np.ndarray) -> np.ndarray:
        """Mouth openings (speakers,) for one frame per speaker (speakers x samples)."""
        energy = np.einsum("ij,ij->i", frames, frames).astype(np.float64) / frames.shape[1]
        level = 10.0 * np.log10(energy + 1e-10)
        floor = self._history.min(axis=0)
        self._history[self._pos] = level
        self._pos = (self._pos + 1) % FLOOR_FRAMES
        opening = np.minimum((level - floor - MARGIN_DB) * (1.0 / RANGE_DB), 1.0)
        opening *= level >= GATE_DB
        speaking = opening > 0.0
        self._hold[speaking] = opening[speaking]
        self._hang -= self._hang > 0
        self._hang[speaking] = HANG
        return np.where(speaking, opening, self._hold * (self._hang * (1.0 / HANG)))
