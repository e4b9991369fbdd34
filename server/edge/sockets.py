"""The WebSocket (/ws): who may open one, the token's seat, and the read loop that hands
each valid frame to the room actor in order.

Throttles come before any work: the sockets open per address, then the address's
connects (no lookup), then the seat's. In cluster mode a socket belongs on the room's
node: one that reaches another node gets `moved` and close 4010.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

from server.config import Settings
from server.edge.device import device_of
from server.rooms.codes import hash_token
from server.rooms.registry import Room, RoomError
from server.storage.seam import StoreUnavailable
from server.throttle import TokenBucket
from server.wire import protocol as P
from server.wire.connection import Connection

if TYPE_CHECKING:
    from server.edge.context import Edge

log = logging.getLogger(__name__)


def add_socket_route(app: FastAPI, edge: Edge) -> None:
    """Add /ws."""
    sockets = Sockets(edge)

    @app.websocket("/ws")
    async def websocket(ws: WebSocket, token: str = ""):
        await sockets.serve(ws, token)


async def refuse(ws: WebSocket, code: str, message: str, close: int,
                 retry_after: float | None = None) -> None:
    """Send the error `code` and close the socket with `close`."""
    error = P.error(code, message)
    if retry_after is not None:
        error["retry_after"] = round(retry_after, 1)
    with contextlib.suppress(Exception):
        await ws.send_json(error)
        await ws.close(close)


class Sockets:
    """One app's sockets: the count open per client address, and each socket's life."""

    def __init__(self, edge: Edge) -> None:
        self.edge = edge
        self.open: dict[str, int] = {}

    async def serve(self, ws: WebSocket, token: str) -> None:
        """A socket from accept to close, counted against its client address."""
        address = self.edge.client_ip(ws)
        await ws.accept()
        if self.open.get(address, 0) >= self.edge.settings.max_sockets_per_address:
            await refuse(ws, P.TOO_MANY_CONNECTIONS, "too many sockets open from this address",
                         P.CLOSE_SLOW)
            return
        self.open[address] = self.open.get(address, 0) + 1
        try:
            await self._socket(ws, address, token)
        finally:
            self.open[address] -= 1
            if not self.open[address]:
                del self.open[address]

    async def _socket(self, ws: WebSocket, address: str, token: str) -> None:
        edge = self.edge
        # Throttles before any work: the address first (no lookup), then the seat.
        bucket = edge.throttles.address_connects.bucket(address)
        if not bucket.take():
            await refuse(ws, P.RATE_LIMITED, "too many connections from this address; slow down",
                         P.CLOSE_SLOW, bucket.retry_after())
            return
        try:
            found = await edge.rooms.resolve(token)
            if not isinstance(found, str) and isinstance(found[0], str):
                found = await self._cluster_socket(ws, *found)
        except StoreUnavailable:
            found = None
        if found is None:  # told where to go, or the store is unreachable: come back
            with contextlib.suppress(Exception):
                await ws.close(1013 if edge.cluster is None else P.CLOSE_MOVED)
            return
        if isinstance(found, str):
            # Guessing tokens costs the same as guessing codes.
            edge.throttles.misses.take(address)
            message, close = {
                P.BAD_TOKEN: ("unknown or expired token", P.CLOSE_BAD_TOKEN),
                P.KICKED: ("the host removed you from this room", P.CLOSE_KICKED),
                P.LEFT: ("you left this room", P.CLOSE_LEFT),
            }[found]
            await refuse(ws, found, message, close)
            return
        room, pid = found
        bucket = edge.throttles.seat_connects.bucket(f"{room.code}/{pid}")
        if not bucket.take():
            await refuse(ws, P.RATE_LIMITED, "this seat reconnects too often; slow down",
                         P.CLOSE_SLOW, bucket.retry_after())
            return
        conn = Connection(ws, edge.settings.send_queue, token_hash=hash_token(token),
                          device=device_of(edge, ws)[0])
        conn.start()
        try:
            if not await room.call(room.cmd_attach, pid, conn):
                return
            await read_loop(ws, room, pid, conn, edge.settings)
        except RoomError as exc:
            if exc.code == P.ROOM_MOVED:  # handed over or taken over: say where to
                url = await self._new_home(room.code, conn)
                if not conn.closed:  # (the room's own eviction may have said it first)
                    conn.send({"type": "moved", "room": room.code, "node": url})
                    conn.close(P.CLOSE_MOVED, "moved")
            else:  # the room closed under this socket
                conn.send(P.error("room_closed", "this room is closed"))
                conn.close(P.CLOSE_ROOM_CLOSED, "room closed")
        finally:
            with contextlib.suppress(Exception):
                room.post(room.cmd_detach, pid, conn)
            await conn.stop()

    async def _new_home(self, code: str, conn: Connection, wait: float = 3.0) -> str | None:
        """The URL of the node that serves a room moving away from here, once it has
        claimed it (a hand-over, a takeover): so the client goes there at once instead of
        looking the room up. None if nobody claims it within `wait` seconds."""
        cluster = self.edge.cluster
        if cluster is None:
            return None
        end = asyncio.get_running_loop().time() + wait
        while not conn.closed:
            with contextlib.suppress(StoreUnavailable):
                where = await cluster.where(code)
                if where.state == "there" and where.url:
                    return where.url
            if asyncio.get_running_loop().time() >= end:
                return None
            await asyncio.sleep(0.05)
        return None

    async def _cluster_socket(self, ws: WebSocket, code: str,
                              pid: str) -> tuple[Room, str] | None:
        """A seat of a room not loaded here: adopt it if nobody holds it, else say where."""
        cluster = self.edge.cluster
        where = await cluster.where(code)
        if where.state in ("orphan", "here") and await cluster.adopt(code):
            room = self.edge.rooms.get(code)
            if room is not None:
                return room, pid
        url = where.url if where.state == "there" else None
        with contextlib.suppress(Exception):
            await ws.send_json({"type": "moved", "room": code, "node": url})
        return None


async def read_loop(ws: WebSocket, room: Any, pid: str, conn: Connection,
                    settings: Settings) -> None:
    """Validate every frame, rate-limit it, hand it to the room actor in order."""
    rate = TokenBucket(settings.ws_rate, settings.ws_burst)
    # Rejections allowed before the socket is closed; refills slowly.
    abuse = TokenBucket(settings.ws_rate / 4, float(settings.ws_abuse_close))
    while not conn.closed:
        try:
            frame = await ws.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if frame["type"] == "websocket.disconnect":
            return
        data = frame.get("text")
        if data is None:
            data = frame.get("bytes") or b""
        if not rate.take():
            if not abuse.take():
                conn.send(P.error(P.RATE_LIMITED, "far too many messages; disconnected"))
                conn.close(P.CLOSE_ABUSE, "flood")
                return
            conn.send(P.error(P.RATE_LIMITED, "too many messages; this one was dropped"))
            continue
        try:
            msg = P.parse(data, settings.max_frame)
        except P.ProtocolError as exc:
            conn.send(P.error(exc.code, exc.message, exc.ref))
            continue
        try:
            await room.call(room.cmd_message, pid, conn, msg)
        except RoomError as exc:
            if exc.code == P.ROOM_MOVED:
                # The room moved before this message was taken: say which one, so the
                # player can do it again on the room's new node.
                conn.send(P.error(exc.code, "the room moved before this was taken; "
                                  "send it again", msg.ref))
            if exc.code != P.STORE_UNAVAILABLE:
                raise
            conn.send(P.error(exc.code, exc.message, msg.ref))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: message %s from %s failed", room.code, msg.type, pid)
            conn.send(P.error(P.INTERNAL, "the server failed on that message", msg.ref))
