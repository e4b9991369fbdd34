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

The frames' energies are one array operation over all speakers; the rest
is a short loop over plain floats, the floor kept as the ring turns. Each numpy call costs a few
microseconds with cold caches (the voice tick runs every 20 ms between other
work), far more than the arithmetic of 16 speakers (bench/ROOM.md).
"""

from __future__ import annotations

import math

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
        # Per speaker: the last FLOOR_FRAMES levels (a ring) and their minimum, kept
        # up to date as the ring turns (a scan only when the minimum leaves it).
        self._history = [[SILENT_DB] * FLOOR_FRAMES for _ in range(speakers)]
        self._floor = [SILENT_DB] * speakers
        self._pos = 0
        self._hold = [0.0] * speakers
        self._hang = [0] * speakers
        # silent frames (energy 0) in a row: from FLOOR_FRAMES on the ring holds
        # SILENT_DB only and the mouth is shut, so such a frame changes nothing
        self._silent_run = [FLOOR_FRAMES] * speakers

    def add(self) -> None:
        """Append a fresh speaker (as if silent until now)."""
        self._history.append([SILENT_DB] * FLOOR_FRAMES)
        self._floor.append(SILENT_DB)
        self._hold.append(0.0)
        self._hang.append(0)
        self._silent_run.append(FLOOR_FRAMES)

    def remove(self, row: int) -> None:
        """Forget speaker `row`; later rows move up by one."""
        for state in (self._history, self._floor, self._hold, self._hang, self._silent_run):
            del state[row]

    def update(self, frames: np.ndarray) -> list[float]:
        """Mouth openings, one per speaker, for one frame per speaker (speakers x samples)."""
        return self.update_energies(np.einsum("ij,ij->i", frames, frames).tolist(), frames.shape[1])

    def update_energies(self, energies: list[float], n: int) -> list[float]:
        """`update` from each speaker's frame energy (its sum of squares over `n` samples)."""
        pos = self._pos
        self._pos = (pos + 1) % FLOOR_FRAMES
        history, floors, hold, hang = self._history, self._floor, self._hold, self._hang
        silent_run = self._silent_run
        out = []
        for i, energy in enumerate(energies):
            if energy == 0.0:
                if silent_run[i] >= FLOOR_FRAMES:
                    out.append(0.0)  # a long silence goes on: nothing to update
                    continue
                silent_run[i] += 1
            else:
                silent_run[i] = 0
            level = 10.0 * math.log10(energy / n + 1e-10)
            floor = floors[i]  # the minimum over the previous FLOOR_FRAMES frames
            ring = history[i]
            leaving, ring[pos] = ring[pos], level
            if level <= floor:
                floors[i] = level
            elif leaving <= floor and floor not in ring:
                # (the floor stays while another frame of the ring holds it: a ring still
                # full of its first -100 dB is not rescanned each tick)
                floors[i] = min(ring)
            opening = min((level - floor - MARGIN_DB) * (1.0 / RANGE_DB), 1.0)
            if opening > 0.0 and level >= GATE_DB:
                hold[i] = opening
                hang[i] = HANG
                out.append(opening)
            else:
                if hang[i] > 0:
                    hang[i] -= 1
                out.append(hold[i] * (hang[i] * (1.0 / HANG)))
        return out
