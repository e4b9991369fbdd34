"""The QR codes of a room's links (its seat page and its TV page), as SVG."""

from __future__ import annotations

import functools
import io
from typing import TYPE_CHECKING

import segno
from fastapi import Request
from fastapi.responses import Response

from server.edge.lookup import find_room

if TYPE_CHECKING:
    from server.edge.context import Edge


# Drawing a QR code costs milliseconds: once per link, not once per request. The drawing
# depends on its arguments alone, so one cache serves every app in the process.
@functools.lru_cache(maxsize=256)
def qr_svg(link: str, code: str) -> bytes:
    """The QR code of `link` as SVG, titled with the room's code."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=8, border=2, dark="#111",
                                     light="#fff", title=f"Sussurro {code}")
    return out.getvalue()


async def room_qr_reply(edge: Edge, request: Request, code: str, name: str,
                        page: str = "") -> Response:
    """GET /api/rooms/{code}/`name`: the QR of the room's page (`/r/{code}` + `page`)."""
    room = await find_room(edge, request, code, "GET", f"/api/rooms/{code}/{name}")
    if isinstance(room, Response):
        return room
    return Response(qr_svg(f"{edge.base_url(request)}/r/{room.code}{page}", room.code),
                    media_type="image/svg+xml",
                    headers={"Cache-Control": "public, max-age=3600"})
