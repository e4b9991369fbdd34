"""Each browser's device id: a random HttpOnly cookie, of which only the SHA-256 is kept.

A ban names the devices of the kicked seat, so that browser takes no pass and no seat
under another name. A browser that clears its cookies looks new: the host sees every
pass (`passes` in `room`) and removes it.
"""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING

from fastapi import Request, WebSocket
from fastapi.responses import Response

from server.rooms.codes import hash_token

if TYPE_CHECKING:
    from server.edge.context import Edge

DEVICE_COOKIE = "sussurro_device"
DEVICE_RE = re.compile(r"\A[A-Za-z0-9_-]{22,64}\Z")
DEVICE_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie


def device_of(edge: Edge, request: Request | WebSocket) -> tuple[str, str | None]:
    """(the hash of this browser's device id, a new id to set as its cookie or None).
    A request another node forwarded names the device (hashed) in a header."""
    if isinstance(request, Request) and edge.internal(request):
        # Only in cluster mode: the embedded default imports nothing of the cluster.
        from server.cluster.forward import DEVICE

        return request.headers.get(DEVICE, ""), None
    raw = request.cookies.get(DEVICE_COOKIE, "")
    if DEVICE_RE.fullmatch(raw):
        return hash_token(raw), None
    if isinstance(request, WebSocket):
        return "", None
    new = secrets.token_urlsafe(24)
    return hash_token(new), new


def with_device(edge: Edge, response: Response, request: Request, new: str | None) -> Response:
    """`response`, setting the cookie of a `new` device id when there is one."""
    if new is not None:
        response.set_cookie(DEVICE_COOKIE, new, max_age=DEVICE_AGE, path="/", httponly=True,
                            samesite="lax", secure=edge.scheme(request) == "https")
    return response
