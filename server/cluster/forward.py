"""Node-to-node HTTP in cluster mode: any node answers any request by asking the right one.

A create goes to the node placement chose; a join or a room lookup to the
room's owner. The forwarded request carries the cluster's shared secret
(kept in Redis, so only nodes of the cluster know it): the receiving node
then serves it itself (no second hop) and skips the per-IP throttles the
first node already applied.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import Response

log = logging.getLogger(__name__)

HEADER = "x-sussurro-node"
CLIENT = "x-sussurro-client"  # the address the forwarding node counted the request for
DEVICE = "x-sussurro-device"  # the hash of the client's device cookie (bans cover devices)


class Forwarder:
    """One shared HTTP client for the requests this node hands to others."""

    def __init__(self, secret: Callable[[], str], timeout: float = 5.0) -> None:
        import httpx

        self._secret = secret
        self._http = httpx.AsyncClient(timeout=timeout)
        self._errors = (httpx.HTTPError,)
        self.count = 0
        self.failures = 0

    def internal(self, request: Request) -> bool:
        """Did another node of the cluster send this request?"""
        given = request.headers.get(HEADER, "")
        secret = self._secret()
        return bool(given and secret) and hmac.compare_digest(given, secret)

    def client(self, request: Request) -> str | None:
        """The client address a forwarding node named (only on an internal request)."""
        raw = request.headers.get(CLIENT, "")
        if not raw or not self.internal(request):
            return None
        try:
            return str(ipaddress.ip_address(raw))
        except ValueError:
            return None

    async def send(self, url: str, method: str, path: str,
                   body: dict[str, Any] | None = None, client: str | None = None,
                   device: str = "") -> Response | None:
        """The other node's answer as our response, or None if it could not be reached.

        `client`: the address of the client the request is made for, so that the
        node that acts on it counts it against that client's caps; `device`: the hash
        of its device cookie, so that a ban of that device holds on the room's node."""
        headers = {HEADER: self._secret()}
        if client:
            headers[CLIENT] = client
        if device:
            headers[DEVICE] = device
        try:
            r = await self._http.request(method, url.rstrip("/") + path, json=body,
                                         headers=headers)
        except self._errors as exc:
            self.failures += 1
            log.warning("cluster: forwarding %s %s to %s failed: %s", method, path, url, exc)
            return None
        self.count += 1
        headers = {k: v for k, v in r.headers.items()
                   if k.lower() in ("retry-after", "cache-control", "etag")}
        return Response(r.content, status_code=r.status_code, headers=headers,
                        media_type=r.headers.get("content-type"))

    async def refused(self, url: str) -> bool:
        """Does the node at `url` refuse connections (its process is gone)? A node that
        is merely slow or frozen does not count: its claim lapses by itself."""
        import httpx

        try:
            await self._http.get(url.rstrip("/") + "/healthz", timeout=1.0)
        except httpx.ConnectError:
            return True
        except self._errors:
            return False
        return False

    async def close(self) -> None:
        await self._http.aclose()
