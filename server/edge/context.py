"""What every route of one app shares: its settings, rooms, store, throttles, proxies and
cluster, in one object (`Edge`) that `create_app` builds and hands to each route module.

One `Edge` per app, no module-level state, so tests can run several apps side by side.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fastapi import Request, WebSocket

from server.config import Settings
from server.edge.forwarded import TrustedProxies
from server.rooms.registry import Rooms
from server.throttle import KeyedBuckets

if TYPE_CHECKING:
    from server.cluster.forward import Forwarder
    from server.cluster.node import Cluster


@dataclass(frozen=True)
class Throttles:
    """The per-key token buckets of the edge (keyed by client address, or by seat)."""

    joins: KeyedBuckets  # joins and spectator passes, per address
    misses: KeyedBuckets  # unknown room codes and bad tokens, per address
    creates: KeyedBuckets  # rooms created, per address
    # WebSocket connects, per seat and per client address.
    seat_connects: KeyedBuckets
    address_connects: KeyedBuckets

    @classmethod
    def from_settings(cls, settings: Settings) -> Throttles:
        """The buckets at the rates and bursts `settings` names."""
        return cls(
            joins=KeyedBuckets(settings.join_rate, settings.join_burst),
            misses=KeyedBuckets(settings.lookup_rate, settings.lookup_burst),
            creates=KeyedBuckets(settings.create_rate, settings.create_burst),
            seat_connects=KeyedBuckets(settings.ws_connect_rate, settings.ws_connect_burst),
            address_connects=KeyedBuckets(settings.ws_address_connect_rate,
                                          settings.ws_address_connect_burst),
        )


@dataclass(eq=False)
class Edge:
    """One app's shared context; `cluster` and `forward` are None unless in cluster mode."""

    settings: Settings
    rooms: Rooms
    store: Any  # server.storage.sqlite.Store, or the cluster's RedisStore
    proxies: TrustedProxies
    throttles: Throttles
    cluster: Cluster | None = None
    forward: Forwarder | None = None
    started: float = field(default_factory=time.time)

    def client_ip(self, request: Request | WebSocket) -> str:
        """The address every per-client throttle and cap is keyed by: the peer's own,
        or what a trusted proxy says in X-Forwarded-For (server/edge/forwarded.py)."""
        peer = request.client.host if request.client else None
        return self.proxies.client(peer, request.headers)

    def scheme(self, request: Request | WebSocket) -> str:
        """"http" or "https" as the player reached us (through a trusted proxy or not)."""
        peer = request.client.host if request.client else None
        return self.proxies.scheme(peer, request.headers, request.url.scheme)

    def base_url(self, request: Request) -> str:
        """The address players are given: `public_url`, else the one this request used."""
        if self.cluster is not None:  # this node's own URL ({port} filled in)
            return self.cluster.url
        if self.settings.public_url:
            return self.settings.public_url.rstrip("/")
        host = request.headers.get("host") or request.url.netloc
        return f"{self.scheme(request)}://{host}"

    def internal(self, request: Request) -> bool:
        """A request another node of the cluster forwarded (already throttled there)."""
        return self.forward is not None and self.forward.internal(request)

    def node_fields(self, code: str) -> dict[str, Any]:
        """Cluster mode: the URL of the node serving the room (sockets go there)."""
        return {"node": self.cluster.url} if self.cluster is not None else {}
