"""A steady tone pushed into a server peer's mix track, one Opus frame per 20 ms tick."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import numpy as np

from server.media.opus import OpusEncoder


async def push_tone(peer, frames: int, hz: float = 880.0,
                    each: Callable[[int], None] | None = None,
                    enc: OpusEncoder | None = None) -> None:
    """Push `frames` frames of a 0.25 sine at `hz` into `peer.track` in real time, frame n
    at tick n, encoded by `enc` (a new encoder by default); `each(n)` runs right after
    frame n is pushed."""
    enc = enc or OpusEncoder()
    t0 = time.monotonic()
    for n in range(frames):
        x = (0.25 * np.sin(2 * np.pi * hz * (np.arange(960) + n * 960) / 48000)).astype(np.float32)
        peer.track.push(enc.encode(x), n)
        if each is not None:
            each(n)
        await asyncio.sleep(max(0.0, t0 + (n + 1) * 0.02 - time.monotonic()))
