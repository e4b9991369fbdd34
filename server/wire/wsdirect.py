"""A text frame written straight to the socket when nothing waits before it.

Every message a room sends takes the socket's writer task (server/wire/connection.py):
queued, the task woken, then starlette's `send_text`, uvicorn's `asgi_send` and
websockets' protocol, which frames it and writes it to the transport. For the
`mouths` broadcast (16.7 messages a second to every socket while anyone talks)
that is ~55 us of the server's CPU a message, ~40 written straight to the socket
(bench/ws_broadcast.py; bench/ROOM.md, "The broadcast written straight to the
socket").

When the socket's queue is empty and its writer idle, nothing can be ahead of a
new message, so `Connection` may write its frame at once, here, in the caller's
turn of the event loop. The frame is the one websockets would have written (a
server's frames are unmasked, and no extension is negotiated: the server turns
per-message deflate off), and the same text sent to many sockets is framed once.

It relies on uvicorn's sans-I/O `websockets` protocol (uvicorn.protocols.
websockets.websockets_sansio_impl, the one its "auto" picks), reached through
the ASGI `send` that `RawSend` keeps in the scope. `DirectFrames.of` checks, once
per socket, that the send is that protocol's own and that the protocol has what
`write` reads; anything else (another ws protocol, an extension negotiated, a
test socket, `SUSSURRO_DIRECT_WS=0`) gives None, and every message then takes
the writer as before. `write` writes only where uvicorn's own `send` would
write at once (the connection open, the transport not paused by a full
buffer), and declines otherwise: the caller then queues, and the writer waits
for the socket to drain as before, and closes a reader that never does.
"""

from __future__ import annotations

import logging
import os
import struct
from typing import Any

log = logging.getLogger(__name__)

SCOPE_KEY = "sussurro.raw_send"

try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.protocol import State
except ImportError:  # pragma: no cover - uvicorn[standard] brings both
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]
    State = None  # type: ignore[assignment,misc]


class RawSend:
    """ASGI middleware: a WebSocket's scope keeps the server's own `send`.

    Starlette wraps `send` on its way to the endpoint; `DirectFrames.of` needs the
    one uvicorn gave, to reach its protocol. Plain HTTP passes untouched.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            scope[SCOPE_KEY] = send
        await self.app(scope, receive, send)


def text_frame(text: str) -> bytes:
    """`text` as one unmasked, final WebSocket text frame (RFC 6455, section 5.2)."""
    data = text.encode("utf-8")
    n = len(data)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 65536:
        head = struct.pack("!BBH", 0x81, 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 127, n)
    return head + data


_last: tuple[str, bytes] | None = None  # the text framed last and its frame


def frame_of(text: str) -> bytes:
    """`text_frame(text)`, framed once for the same text object sent to many sockets."""
    global _last
    last = _last
    if last is not None and last[0] is text:
        return last[1]
    frame = text_frame(text)
    _last = (text, frame)
    return frame


def enabled() -> bool:
    return os.environ.get("SUSSURRO_DIRECT_WS", "1") != "0"


class DirectFrames:
    """One socket's way past its writer: `write(frame)` now, or False to queue it."""

    __slots__ = ("_proto", "_conn", "_transport")

    def __init__(self, proto: Any) -> None:
        self._proto = proto
        self._conn = proto.conn  # websockets' ServerProtocol: the frames' state
        self._transport = proto.transport

    @classmethod
    def of(cls, ws: Any) -> DirectFrames | None:
        """The direct path for an accepted starlette WebSocket, or None where it does
        not apply (the writer task then sends everything)."""
        if WebSocketsSansIOProtocol is None or not enabled():
            return None
        send = getattr(ws, "scope", {}).get(SCOPE_KEY)
        proto = getattr(send, "__self__", None)
        if (not isinstance(proto, WebSocketsSansIOProtocol)
                or getattr(send, "__func__", None) is not WebSocketsSansIOProtocol.send):
            return None
        try:
            # Unmasked frames with no extension, on an accepted socket: `text_frame`'s.
            if not (proto.conn.side.name == "SERVER" and proto.conn.extensions == []
                    and proto.handshake_complete is True):
                return None
            direct = cls(proto)
            direct.open()  # reads every attribute `write` reads
        except AttributeError:  # another uvicorn or websockets: the writer it is
            log.info("WebSocket frames take the writer task: uvicorn's protocol changed")
            return None
        return direct

    def open(self) -> bool:
        """Whether uvicorn's `send` would write a text frame now, without waiting."""
        p, conn = self._proto, self._conn
        return (p.writable.is_set() and not p.disconnected and not p.close_sent
                and p.initial_response is None and conn.state is State.OPEN
                and not conn.expect_continuation_frame and not conn.writes
                and not self._transport.is_closing())

    def write(self, frame: bytes) -> bool:
        """Write `frame` now where uvicorn's `send` would; else False (queue it)."""
        if not self.open():
            return False
        self._transport.write(frame)
        return True
