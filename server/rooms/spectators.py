"""A room's spectators: passes without a seat, for a shared screen (a TV, a laptop).

A spectator is no player: it has no name, no seat, is never in `players`,
and cannot act. Its socket gets the room's roster, the spectator view
(`game.view(state, None)`: public information only), the mouths a seated
player outside every private channel sees, and the cues the whole table
hears. Its voice peer is receive-only: it hears the public bus and nothing
routed to one player or one channel, since the routing never names it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from server.wire.connection import Connection

# What a spectator's socket may send; anything else is refused with `spectator`.
SPECTATOR_MESSAGES = frozenset({"hello", "ping", "rtc_offer", "rtc_ice", "ice", "leave"})


@dataclass
class Spectator:
    """One spectator pass of a room (its id is s1, s2, ...: never a player id)."""

    id: str
    joined: float
    conn: Connection | None = None
    # When its screen went away (None while one is connected, or before the first), and
    # whether one ever connected: a pass nobody watches is dropped after a while.
    offline_since: float | None = None
    seen: bool = False
    device: str = ""  # the hash of the device cookie that took it ("" when none)

    @property
    def online(self) -> bool:
        return self.conn is not None

    def expires_at(self, idle_ttl: float, claim_ttl: float) -> float | None:
        """When this pass is dropped if no screen connects first (None while one is):
        `idle_ttl` after its screen went away, `claim_ttl` after it was taken if no
        screen ever connected (a pass grabbed to hold a place expires sooner)."""
        if self.conn is not None:
            return None
        if self.seen:
            return (self.offline_since if self.offline_since is not None else self.joined) \
                + idle_ttl
        return self.joined + claim_ttl


def pass_number(sid: str) -> int:
    """The n of pass id "sN" (passes are listed in the order they were taken)."""
    return int(sid[1:])


def spectator_id(n: int) -> str:
    """The id of a room's n-th spectator pass."""
    return f"s{n}"


def is_public_cue(listeners: Iterable[str], table: Iterable[str]) -> bool:
    """True when a cue goes to the whole table (every player of the game): a
    spectator hears it too. A cue for some players only (your turn, victory for the
    winners) says something about them, so it stays theirs."""
    everyone = set(table)
    return bool(everyone) and everyone <= set(listeners)
