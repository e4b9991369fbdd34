"""Voices placed around the table: constant-power panning by seat, and per-listener volumes.

The table is a circle; seats follow the room's seat order clockwise seen from
above, so the next seat is on your left (as play passing "to the left") and
the previous one on your right. For a listener at seat `l` of `n`, a speaker
at seat `s` sits at the angle theta = 2*pi*((s - l) mod n)/n, 0 being the
listener's own place and pi the seat opposite. Only the left-right component
is rendered (headphones have no front and back):

    p = -SPREAD * sin(theta)                  (-1 full left .. +1 full right)
    left = cos((p + 1) * pi/4), right = sin((p + 1) * pi/4)

left**2 + right**2 == 1 whatever the seat (constant power: a voice keeps its
loudness as it moves), and a voice straight across the table, or anything
centred (the game's cues), gets 1/sqrt(2) in each ear. SPREAD < 1 keeps every
voice a little in both ears: at full width the neighbour on your left would
vanish from a right earbud.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["SPREAD", "CENTRE", "MAX_GAIN", "pan", "seat_pan", "pan_matrix", "volume_matrix"]

SPREAD = 0.8
CENTRE = math.sqrt(0.5)  # each ear's gain for a centred source
MAX_GAIN = 1.5  # a listener may raise a voice to 150 %


def pan(p: float) -> tuple[float, float]:
    """(left, right) gains of the constant-power law for position p in [-1 left, +1 right]."""
    p = min(1.0, max(-1.0, p))
    a = (p + 1.0) * math.pi / 4.0
    return math.cos(a), math.sin(a)


def seat_pan(listener: int, speaker: int, seats: int) -> tuple[float, float]:
    """(left, right) gains of the speaker at seat `speaker` heard from seat `listener`.

    The next seat clockwise (`listener + 1`) is on the listener's left.
    """
    if seats <= 0:
        return CENTRE, CENTRE
    theta = 2.0 * math.pi * ((speaker - listener) % seats) / seats
    return pan(-SPREAD * math.sin(theta))


def pan_matrix(players: Sequence[str], order: Sequence[str]) -> np.ndarray:
    """(listeners x speakers x 2) float32 left/right gains, both axes in `players` order.

    `order` is the circle (seat order); a player not in it is heard centred and
    hears everyone centred.
    """
    seat = {pid: i for i, pid in enumerate(order)}
    n = len(players)
    out = np.full((n, n, 2), CENTRE, dtype=np.float32)
    for i, listener in enumerate(players):
        if listener not in seat:
            continue
        for j, speaker in enumerate(players):
            if speaker in seat and speaker != listener:
                out[i, j] = seat_pan(seat[listener], seat[speaker], len(order))
    return out


def volume_matrix(players: Sequence[str], volumes: Mapping[str, Mapping[str, float]]
                  ) -> np.ndarray:
    """(listeners x speakers) float32 personal gains (1.0 where the listener set none)."""
    index = {pid: i for i, pid in enumerate(players)}
    out = np.ones((len(players), len(players)), dtype=np.float32)
    for listener, gains in volumes.items():
        i = index.get(listener)
        if i is None:
            continue
        for speaker, gain in gains.items():
            j = index.get(speaker)
            if j is not None:
                out[i, j] = gain
    return out
