"""The speakers' effects in force: one streaming effect per speaker the routing gives one.

"drunk" is one `DrunkVoice` per speaker, kept while the effect lasts so that
its state streams across frames; a later spell starts fresh. After
`EFFECT_REST_FRAMES` (1 s) of digital silence in a row the effect is bypassed
(its echo tail is then ~115 dB down) until sound comes back: a drunk player
who is not talking costs nothing.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Mapping

import numpy as np

__all__ = ["EFFECT_REST_FRAMES", "SpeakerEffects"]

EFFECT_REST_FRAMES = 50


class SpeakerEffects:
    """Each speaker's effect instance, and how long each has been resting."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.active: dict[str, object] = {}  # speaker -> effect instance
        self._quiet: dict[str, int] = {}  # speaker with an effect -> silent frames in a row

    def sync(self, effects: Mapping[str, str], players: Collection[str]) -> None:
        """Follow the routing's `effects` (speaker -> name) for these players."""
        wanted = {p for p, e in effects.items() if e == "drunk" and p in players}
        for pid in list(self.active):
            if pid not in wanted:
                del self.active[pid]  # a later drunk spell starts fresh
                self._quiet.pop(pid, None)
        for pid in wanted - set(self.active):
            from audio.drunk import DrunkVoice  # imported late: optional at import time

            self.active[pid] = DrunkVoice(seed=(self.seed * 1_000_003 + zlib.crc32(pid.encode())) % 2**31)
            self._quiet[pid] = 0

    def forget(self, pid: str) -> None:
        """A player left: their effect goes."""
        self.active.pop(pid, None)
        self._quiet.pop(pid, None)

    def process(self, frames: dict[str, np.ndarray], energies: dict[str, float]) -> dict[str, np.ndarray]:
        """Each speaker's frame (`frames`: speaker with an effect -> this tick's frame, all
        of one length; `energies`: its sum of squares) through their effect, all in one
        batch; the frame itself (the very object) for a speaker whose effect rests."""
        out = dict(frames)
        busy, rows = [], []
        for pid, frame in frames.items():
            if energies[pid] != 0.0 or frame.any():
                self._quiet[pid] = 0
            elif self._quiet[pid] >= EFFECT_REST_FRAMES:
                continue  # resting: its tail has died away
            else:
                self._quiet[pid] += 1
            busy.append(pid)
            rows.append(frame)
        if busy:
            from audio.drunk import process_frames  # (loaded with the first DrunkVoice)

            done = process_frames([self.active[p] for p in busy], np.array(rows))
            out.update(zip(busy, done, strict=True))
        return out
