"""Each player's voice link as everyone sees it on their avatar: good, poor or gone.

The state is read from what the server already knows, with no new round trip:

- the listener's RTCP receiver reports about the server's stream to them
  (`protect.LinkReport`, one every ~5 s from a browser): poor when the last one
  says `POOR_LOSS` or more of the packets were lost since the report before, or
  an interarrival jitter of `POOR_JITTER_MS` or more;
- the peer connection's state (aiortc's `RTCPeerConnection.connectionState`:
  new, connecting, connected, failed, closed; aiortc has no "disconnected"):
  gone when failed or closed, and gone when no report came for `SILENT_AFTER`
  seconds while connected (the path died under a connection that does not know
  it yet); a peer the other end lost stays gone until a new one connects.

Secrecy: the server's stream to a player flows whether they talk or not, and so do
their reports about it; the state never reads the player's own mic packets, which
would tell, at night, who talks in a private channel.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["GONE", "GOOD", "POOR", "LinkWatch", "link_state"]

GOOD, POOR, GONE = "good", "poor", "gone"
POOR_LOSS = 0.03  # fraction lost in the last report from which the link is poor
POOR_JITTER_MS = 40.0  # the listener's interarrival jitter from which it is poor
SILENT_AFTER = 12.0  # seconds connected without a report before the link counts as gone


def link_state(connection: str, link: Any, quiet_for: float) -> str | None:
    """The state of one peer: `connection` its connectionState, `link` its LinkReport,
    `quiet_for` seconds since its last report (or since it connected); None while the
    connection is still being set up (the caller keeps the state it had)."""
    if connection in ("failed", "closed"):
        return GONE
    if connection != "connected":
        return None
    if quiet_for >= SILENT_AFTER:
        return GONE
    if link.reports and (link.fraction_lost >= POOR_LOSS or link.jitter_ms >= POOR_JITTER_MS):
        return POOR
    return GOOD


class LinkWatch:
    """The link state of every player with voice, sampled from their peers."""

    def __init__(self) -> None:
        self.states: dict[str, str] = {}
        self.lost: set[str] = set()  # peers the other end lost, not replaced yet
        self._heard: dict[str, tuple[tuple, float]] = {}  # (peer, reports, state), since

    def lose(self, pid: str) -> None:
        """`pid`'s peer failed or was closed from their side: gone until a new one."""
        self.lost.add(pid)

    def forget(self, pid: str) -> None:
        """`pid` has no voice any more (dropped on purpose): no state at all."""
        self.lost.discard(pid)

    def sample(self, peers: Mapping[str, Any], now: float,
               skip: Collection[str] = ()) -> dict[str, str | None]:
        """Every state now, from `peers` (pid -> rtc.Peer; `skip`: listen-only peers,
        who have no avatar); returns what changed since the last sample (None: that
        player has no state any more)."""
        states: dict[str, str] = {}
        heard: dict[str, tuple[tuple, float]] = {}
        for pid, peer in peers.items():
            if pid in skip:
                continue
            connection = peer.pc.connectionState
            key = (id(peer), peer.track.link.reports, connection)  # quiet since it changed
            seen = self._heard.get(pid)
            since = now if seen is None or seen[0] != key else seen[1]
            heard[pid] = (key, since)
            # (reports that cannot be read at all, where aiortc changed, never say gone)
            quiet = now - since if getattr(peer.track, "link_watched", True) else 0.0
            state = link_state(connection, peer.track.link, quiet)
            if state is None:  # still connecting: as it was (a lost link stays gone)
                state = GONE if pid in self.lost else self.states.get(pid)
            elif state != GONE:
                self.lost.discard(pid)
            if state is not None:
                states[pid] = state
        for pid in self.lost:
            if pid not in peers:
                states[pid] = GONE
        changes = {pid: states.get(pid) for pid in self.states.keys() | states.keys()
                   if self.states.get(pid) != states.get(pid)}
        self.states, self._heard = states, heard
        return changes
