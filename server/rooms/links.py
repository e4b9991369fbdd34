"""Everyone sees the connection: each player's voice link on their avatar, as `links`.

The voice computes each player's state (server/media/linkstate.py: good, poor or
gone, from the listener's RTCP reports about the server's stream and the peer's
connection state, never from their mic); the room samples it every
`SAMPLE_EVERY` seconds and when a peer is lost or dropped, and sends
every socket (players and spectator passes) a `links` message only when a state
changed. The message holds every state (a player without voice is not listed), so
a slow reader may skip one: the newest replaces it, and a new socket gets the
same message after its welcome.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

SAMPLE_EVERY = 2.0  # seconds between two samples of the voice's link states


class LinkBoard:
    """The link states the room has told its sockets."""

    def __init__(self, send_all: Callable[[str], None]) -> None:
        """`send_all(text)`: a latest-only text to every socket."""
        self.states: dict[str, str] = {}
        self._send_all = send_all

    def update(self, changes: dict[str, str | None]) -> None:
        """Apply the voice's changes (None: no state any more); tell every socket."""
        if not changes:
            return
        for pid, state in changes.items():
            if state is None:
                self.states.pop(pid, None)
            else:
                self.states[pid] = state
        self._send_all(json.dumps(self.message(), separators=(",", ":")))

    def clear(self) -> None:
        """The voice stopped (the room stops or moves to another node, whose sockets get
        their own `links` after their welcome): forget every state, telling nobody."""
        self.states.clear()

    def message(self) -> dict[str, Any]:
        """The `links` message: every current state."""
        return {"type": "links", "links": dict(sorted(self.states.items()))}
