"""What each listener hears, and how loud and where: their gain rows for the mixer's plan.

Each listener's row is the routing's 0/1 row (who hears whom, whispers and
channels included: audio/routing.py) times that listener's own gains
(`set_volumes`: 0 mutes, up to 1.5), then the cues routed to them. With seats
on (`set_layout`), a listener who takes stereo (`set_stereo`) gets two rows,
left and right, each speaker's gain times its constant-power pan from that
listener's seat (audio/spatial.py; cues centred). A listener may choose mono
for themself (`set_mono`: one earbud): seats or not, they get the room's mono
rows, as a client without stereo does.

Every setter says whether anything changed (the mixer then recompiles its
plan); a change of one's own volumes is also remembered until the next
compile, which cross-fades it (audio/ramp.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from audio.routing import Routing, gain_matrix
from audio.spatial import CENTRE, MAX_GAIN, pan_matrix, volume_matrix

__all__ = ["ListenerGains"]


class ListenerGains:
    """The listeners' own choices (volumes, seats, stereo or mono) and their gain rows."""

    def __init__(self) -> None:
        self._volumes: dict[str, dict[str, float]] = {}  # listener -> speaker -> gain
        self._layout: tuple[str, ...] | None = None  # the circle of seats, when spatial
        self._stereo: set[str] = set()  # listeners who take a stereo mix
        self._mono: set[str] = set()  # listeners who chose mono for themselves
        self._pans: tuple[tuple, np.ndarray] | None = None  # (players, layout) -> pan matrix
        self._ramping: set[str] = set()  # listeners whose own gains changed since the last compile

    def forget(self, pid: str) -> None:
        """A player left: their own choices go (their seat stays in the layout)."""
        self._volumes.pop(pid, None)
        self._stereo.discard(pid)
        self._mono.discard(pid)

    def set_volumes(self, listener: str, gains: dict[str, float]) -> bool:
        """`listener`'s own gain for each speaker named (0 mutes, 1 as is, at most 1.5),
        replacing any set before; speakers not named are heard at 1. Raises ValueError
        for a gain out of bounds. True if their gains changed."""
        clean: dict[str, float] = {}
        for speaker, gain in gains.items():
            g = float(gain)
            if not 0.0 <= g <= MAX_GAIN:  # NaN fails too
                raise ValueError(f"gain {gain!r} for {speaker!r} is not within 0..{MAX_GAIN}")
            if g != 1.0 and speaker != listener:
                clean[speaker] = g
        if clean == self._volumes.get(listener, {}):
            return False
        if clean:
            self._volumes[listener] = clean
        else:
            self._volumes.pop(listener, None)
        self._ramping.add(listener)
        return True

    def volumes(self, listener: str) -> dict[str, float]:
        """The gains `listener` set (speakers at 1 left out)."""
        return dict(self._volumes.get(listener, {}))

    def set_layout(self, order: Iterable[str] | None) -> bool:
        """Seat the voices around a circle in this (seat) order; None: no seats. True if
        the seats changed."""
        layout = None if order is None else tuple(order)
        if layout == self._layout:
            return False
        self._layout = layout
        return True

    @property
    def layout(self) -> tuple[str, ...] | None:
        """The circle of seats in force, or None when voices are not placed."""
        return self._layout

    def set_stereo(self, listener: str, stereo: bool) -> bool:
        """Whether `listener`'s client takes a stereo mix. True if that changed."""
        return _toggle(self._stereo, listener, stereo)

    def set_mono(self, listener: str, mono: bool) -> bool:
        """Whether `listener` chose mono for themself. True if that changed."""
        return _toggle(self._mono, listener, mono)

    def mono(self, listener: str) -> bool:
        """True if `listener` chose mono (`set_mono`)."""
        return listener in self._mono

    def take_changed(self) -> set[str]:
        """The listeners whose own gains changed since the last call (to be ramped)."""
        changed, self._ramping = self._ramping, set()
        return changed

    def rows(self, players: Sequence[str], routing: Routing,
             cues: Sequence[frozenset[str]]) -> list[np.ndarray]:
        """Each player's gain rows over the sources (the players, then the `cues`
        playing, given by their listeners): one row, or two (left, right) for a
        listener who hears the seats."""
        speakers = gain_matrix(players, routing)
        if self._volumes:
            speakers = speakers * volume_matrix(players, self._volumes)
        cue_cols = np.zeros((len(players), len(cues)), dtype=np.float32)
        for j, listeners in enumerate(cues):
            for i, pid in enumerate(players):
                if pid in listeners:
                    cue_cols[i, j] = 1.0
        pans = None
        placed = self._stereo - self._mono  # listeners who hear the seats
        if self._layout is not None and placed & set(players):
            # Cached: a cue starting or ending recompiles the plan, the seats stay put.
            key = (tuple(players), self._layout)
            if self._pans is None or self._pans[0] != key:
                self._pans = (key, pan_matrix(players, self._layout))
            pans = self._pans[1]
        player_rows = []
        for i, pid in enumerate(players):
            if pans is not None and pid in placed:
                rows = np.stack([np.concatenate([speakers[i] * pans[i, :, 0], cue_cols[i] * CENTRE]),
                                 np.concatenate([speakers[i] * pans[i, :, 1], cue_cols[i] * CENTRE])])
            else:
                rows = np.concatenate([speakers[i], cue_cols[i]])[None, :]
            player_rows.append(np.asarray(rows, dtype=np.float32))
        return player_rows


def _toggle(members: set[str], pid: str, on: bool) -> bool:
    """Put `pid` in or out of `members`; True if that changed anything."""
    if on == (pid in members):
        return False
    if on:
        members.add(pid)
    else:
        members.discard(pid)
    return True
