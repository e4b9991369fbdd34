"""Every key name of cluster mode in Redis, and how values are written there.

Keys (all under `prefix`, "sussurro:" by default):

    rooms                    sorted set: live room codes by creation time
    room:{code}              hash: created, settings (JSON), host, status, updated
    room:{code}:players      hash: pid -> {id, name, color, seat, joined} (JSON)
    room:{code}:kicked       hash: pid -> 0 in the room, 1 kicked, 2 left
    room:{code}:tokens       hash: pid -> sha256(token)
    token:{sha256}           "code pid" (the token itself is never stored), or
                             "code sid" for a spectator's pass
    room:{code}:spectators   hash: sid -> {joined, token_hash} (JSON)
    room:{code}:bans         hash: banned name -> since
    room:{code}:ban_devices  hash: banned device (sha256 of its cookie) -> banned name
    room:{code}:devices      hash: pid or sid -> the device (sha256) that took it
    room:{code}:games        hash: n -> {preset, options, seed, players, started_at, pair}
    room:{code}:ended        hash: n -> {ended_at, result} (the result holds the points)
    room:{code}:log:{n}      list: game n's accepted actions {seq, t, player, action},
                             append-only (a write must name the next index)
    room:{code}:claim        "<node> <token>": who owns the room (server/storage/redis_fencing.py)
    room:{code}:fence        <token>: the owner's fencing token
    node:{id}, nodes, left:{id}, inbox:{id}, secret: the cluster's own (server/cluster/)
"""

from __future__ import annotations

import json
from typing import Any

DEFAULT_PREFIX = "sussurro:"


def dumps(value: Any) -> str:
    """A value as the store writes it: compact, sorted JSON."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


class Keys:
    """Every key name of the cluster, in one place."""

    def __init__(self, prefix: str = DEFAULT_PREFIX) -> None:
        self.prefix = prefix

    def rooms(self) -> str:
        return f"{self.prefix}rooms"

    def room(self, code: str) -> str:
        return f"{self.prefix}room:{code}"

    def claim(self, code: str) -> str:
        return f"{self.prefix}room:{code}:claim"

    def fence(self, code: str) -> str:
        return f"{self.prefix}room:{code}:fence"

    def players(self, code: str) -> str:
        return f"{self.prefix}room:{code}:players"

    def kicked(self, code: str) -> str:
        return f"{self.prefix}room:{code}:kicked"

    def tokens(self, code: str) -> str:
        return f"{self.prefix}room:{code}:tokens"

    def token(self, token_hash: str) -> str:
        return f"{self.prefix}token:{token_hash}"

    def spectators(self, code: str) -> str:
        return f"{self.prefix}room:{code}:spectators"

    def bans(self, code: str) -> str:
        return f"{self.prefix}room:{code}:bans"

    def ban_devices(self, code: str) -> str:
        return f"{self.prefix}room:{code}:ban_devices"

    def devices(self, code: str) -> str:
        return f"{self.prefix}room:{code}:devices"

    def games(self, code: str) -> str:
        return f"{self.prefix}room:{code}:games"

    def ended(self, code: str) -> str:
        return f"{self.prefix}room:{code}:ended"

    def log(self, code: str, n: int) -> str:
        return f"{self.prefix}room:{code}:log:{n}"

    def node(self, node_id: str) -> str:
        return f"{self.prefix}node:{node_id}"

    def left(self, node_id: str) -> str:
        """A node that has left the cluster: its registry entry is not written again."""
        return f"{self.prefix}left:{node_id}"

    def nodes(self) -> str:
        return f"{self.prefix}nodes"

    def inbox(self, node_id: str) -> str:
        return f"{self.prefix}inbox:{node_id}"

    def secret(self) -> str:
        return f"{self.prefix}secret"
