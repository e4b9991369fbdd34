"""The rooms API (docs/protocol.md): create a room, join it, watch it, look it up, its QR
code; and the rules' catalog and the base of the room links.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Annotated

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from game import catalog
from server.edge.device import device_of, with_device
from server.edge.lookup import find_room
from server.edge.qr import room_qr_reply
from server.edge.replies import error, read_body, throttled
from server.rooms.registry import RoomError
from server.throttle import KeyedBuckets

if TYPE_CHECKING:
    from server.edge.context import Edge


class CreateRoom(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: Annotated[str, Field(max_length=100)]
    color: str | None = None
    preset: str | None = None
    lang: str | None = None


class JoinRoom(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: Annotated[str, Field(max_length=100)]
    color: str | None = None


def _limit(edge: Edge, request: Request, buckets: KeyedBuckets, what: str) -> Response | None:
    """The 429 for a client past its rate, else None; a request another node forwarded
    was counted there."""
    if edge.internal(request):
        return None
    return throttled(buckets, edge.client_ip(request), what)


async def _admit(edge: Edge, request: Request, buckets: KeyedBuckets, what: str,
                 model: type[BaseModel]) -> BaseModel | Response:
    """The request's body as `model`, or the response to send instead: the throttle comes
    first, so a refused request is never read."""
    limited = _limit(edge, request, buckets, what)
    return limited if limited is not None else await read_body(request, model)


def add_api_routes(app: FastAPI, edge: Edge) -> None:
    """Add /api/rooms, /api/rooms/{code}[/join|/watch|/qr.svg], /api/catalog, /api/links."""
    cluster, forward = edge.cluster, edge.forward

    @app.post("/api/rooms")
    async def create_room(request: Request):
        body = await _admit(edge, request, edge.throttles.creates, "rooms created", CreateRoom)
        if isinstance(body, Response):
            return body
        inside = edge.internal(request)
        device, new = device_of(edge, request)
        if cluster is not None:
            if not inside:
                # The least-loaded live node creates it (maybe this one).
                target = await cluster.target_for_new_room()
                if target is not None and target.id != cluster.id:
                    answer = await forward.send(target.url, "POST", "/api/rooms",
                                                body.model_dump(exclude_none=True),
                                                client=edge.client_ip(request), device=device)
                    if answer is not None and answer.status_code < 500:
                        return with_device(edge, answer, request, new)
            if cluster.draining:
                return error(503, "draining", "this server is shutting down; try again",
                             retry_after=1)
        try:
            # A forwarded create counts against the client the forwarding node named: each
            # node caps the live rooms it holds per address.
            address = forward.client(request) if inside else edge.client_ip(request)
            room, pid, token = await edge.rooms.create(body.name, body.color, body.preset,
                                                       body.lang, address=address, device=device)
        except RoomError as exc:
            return error(exc.status, exc.code, exc.message)
        return with_device(edge, JSONResponse({"code": room.code, "player": pid, "token": token,
                                               **edge.node_fields(room.code)}), request, new)

    # Cluster mode: a page served by one node may ask another where its room went.
    cors = {"Access-Control-Allow-Origin": "*"} if cluster is not None else {}

    @app.get("/api/rooms/{code}")
    async def room_info(code: str, request: Request):
        room = await find_room(edge, request, code, "GET", f"/api/rooms/{code}")
        if isinstance(room, Response):
            room.headers.update(cors)
            return room
        return JSONResponse({**room.public_info(), **edge.node_fields(room.code)}, headers=cors)

    @app.post("/api/rooms/{code}/join")
    async def join_room(code: str, request: Request):
        body = await _admit(edge, request, edge.throttles.joins, "joins", JoinRoom)
        if isinstance(body, Response):
            return body
        device, new = device_of(edge, request)
        room = await find_room(edge, request, code, "POST", f"/api/rooms/{code}/join",
                               body.model_dump(exclude_none=True), device)
        if isinstance(room, Response):
            return with_device(edge, room, request, new)
        try:
            pid, token = await room.call(room.cmd_add_member, body.name, body.color, device)
        except RoomError as exc:
            return with_device(edge, error(exc.status, exc.code, exc.message), request, new)
        return with_device(edge, JSONResponse({"player": pid, "token": token, "code": room.code,
                                               **edge.node_fields(room.code)}), request, new)

    @app.post("/api/rooms/{code}/watch")
    async def watch_room(code: str, request: Request):
        """A spectator pass: a token for a shared screen (no seat, no name)."""
        limited = _limit(edge, request, edge.throttles.joins, "joins")
        if limited is not None:
            return limited
        device, new = device_of(edge, request)
        room = await find_room(edge, request, code, "POST", f"/api/rooms/{code}/watch", {},
                               device)
        if isinstance(room, Response):
            return with_device(edge, room, request, new)
        try:
            sid, token = await room.call(room.cmd_add_spectator, device)
        except RoomError as exc:
            return with_device(edge, error(exc.status, exc.code, exc.message), request, new)
        return with_device(edge, JSONResponse({"spectator": sid, "token": token,
                                               "code": room.code,
                                               **edge.node_fields(room.code)}), request, new)

    @app.get("/api/rooms/{code}/qr.svg")
    async def room_qr(code: str, request: Request):
        return await room_qr_reply(edge, request, code, "qr.svg")

    # The rules' catalog (presets, powers, categories, timers) never changes while the
    # server runs: serialised once, served with an ETag.
    catalog_body = json.dumps(catalog(), ensure_ascii=False, separators=(",", ":")).encode()
    catalog_etag = '"' + hashlib.sha256(catalog_body).hexdigest()[:32] + '"'

    @app.get("/api/catalog")
    async def game_catalog(request: Request):
        headers = {"Cache-Control": "public, max-age=300", "ETag": catalog_etag}
        if catalog_etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(catalog_body, media_type="application/json", headers=headers)

    @app.get("/api/links")
    async def links(request: Request):
        # The base of the room links and QR codes, so the lobby shows the same address
        # as its QR (with --lan: the https LAN address, even on https://localhost).
        # `reachable: false`: the machine has no LAN address (server/reach/https.py); the
        # lobby says so in words instead of a link no phone can open.
        return JSONResponse({"base": edge.base_url(request),
                             "reachable": not edge.settings.no_lan_address},
                            headers={"Cache-Control": "no-cache"})
