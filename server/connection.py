"""One client's WebSocket seen from a room: a bounded outgoing queue and its writer.

The room actor never awaits a socket: `send` only enqueues, a writer task per
connection drains the queue. A client too slow to keep up (its queue full) is
disconnected rather than allowed to hold the room or grow memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from starlette.websockets import WebSocket

from server.protocol import CLOSE_SLOW

log = logging.getLogger(__name__)

_CLOSE = object()


class Connection:
    """An attached WebSocket. `send` is synchronous and never blocks."""

    def __init__(self, ws: WebSocket, max_queue: int = 512) -> None:
        self.ws = ws
        self.closed = False
        self._queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=max_queue)
        self._writer: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the writer task (call once, from the event loop)."""
        self._writer = asyncio.create_task(self._write_loop())

    def send(self, message: dict[str, Any]) -> None:
        """Queue one JSON message; a full queue closes the slow connection."""
        self.send_text(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    def send_text(self, text: str) -> None:
        """Queue already-serialised JSON (shared by many connections)."""
        if self.closed:
            return
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("closing a connection that does not read its messages")
            self.close(CLOSE_SLOW, "too slow")

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Flush what is queued, then close the socket with `code`."""
        if self.closed:
            return
        self.closed = True
        # Make room for the close marker even when the queue is full.
        while self._queue.full():
            self._queue.get_nowait()
        self._queue.put_nowait((_CLOSE, code, reason))

    async def stop(self) -> None:
        """Wait briefly for the writer to flush, then cancel it."""
        if self._writer is None:
            return
        if not self.closed:
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self._queue.put_nowait((_CLOSE, None, ""))
        try:
            await asyncio.wait_for(asyncio.shield(self._writer), timeout=1.0)
        except Exception:  # timed out or the writer failed
            self._writer.cancel()

    async def _write_loop(self) -> None:
        try:
            while True:
                item = await self._queue.get()
                if isinstance(item, tuple) and item and item[0] is _CLOSE:
                    _, code, reason = item
                    if code is not None:
                        with contextlib.suppress(Exception):
                            await self.ws.close(code=code, reason=reason)
                    return
                await self.ws.send_text(item)
        except Exception:  # the peer went away; the reader side notices too
            self.closed = True
