"""One client's WebSocket seen from a room: a bounded outgoing queue and its writer.

The room actor never awaits a socket: `send` only enqueues, a writer task per
connection drains the queue. A client too slow to keep up (its queue full) is
disconnected rather than allowed to hold the room or grow memory.

Messages that only say "the state now" (the roster, a player's view, the mouths) take one slot
each in the queue (`send_latest`): a newer one replaces the one still
waiting, so a reader that lags while the room changes fast (a reconnect
flood, a room of talkers) receives the latest state once instead of every
step, and is not disconnected for it. The newer one takes the place where it was
sent, at the end: what a reader receives is always what was sent, in the order it
was sent, less the states that a newer one replaced. (Were it to keep the older
one's place, a view could overtake a cue sent before it, and the order a player
sees would depend on how loaded the server was.)

A message sent while the queue is empty and the writer idle has nothing ahead of
it: where the socket allows (server/wire/wsdirect.py), its frame is written at once,
without waking the writer. A socket that has not drained what it was given, or
any other kind of socket, takes the queue as above.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
from typing import Any

from starlette.websockets import WebSocket

from server.wire.protocol import CLOSE_SLOW
from server.wire.wsdirect import DirectFrames, frame_of

log = logging.getLogger(__name__)

_CLOSE = object()

# Messages written since start, all sockets: straight to the socket, or by the writer
# task (/metrics: sussurro_ws_messages_direct_total and _writer_total).
MESSAGES = {"direct": 0, "writer": 0}


class _Latest:
    """The queue's place-holder of a `send_latest` kind: the text is read when written."""

    __slots__ = ("kind",)

    def __repr__(self) -> str:
        return f"_Latest({self.kind!r})"

    def __init__(self, kind: str) -> None:
        self.kind = kind


class Connection:
    """An attached WebSocket. `send` is synchronous and never blocks."""

    def __init__(self, ws: WebSocket, max_queue: int = 512, token_hash: str = "",
                 device: str = "") -> None:
        self.ws = ws
        # The hash of the token this socket opened with (its seat's TURN id derives from
        # it) and the hash of its browser's device cookie ("" when none was sent).
        self.token_hash, self.device = token_hash, device
        self.closed = False
        self._max = max_queue
        self._queue: collections.deque[Any] = collections.deque()
        self._ready = asyncio.Event()  # set while the queue holds something
        self._writer: asyncio.Task[None] | None = None
        # kind -> (its slot in the queue, the newest text), while the slot waits
        self._latest: dict[str, tuple[_Latest, str]] = {}
        self._room = ""  # the last `room` text handed to this socket
        # The frames' way past the writer, where this socket has one (else None).
        self.direct = DirectFrames.of(ws)
        self._sending = False  # the writer is inside a send

    def start(self) -> None:
        """Start the writer task (call once, from the event loop)."""
        self._writer = asyncio.create_task(self._write_loop())

    def send(self, message: dict[str, Any]) -> None:
        """Send one JSON message (written at once or queued); a full queue closes the slow
        connection."""
        self.send_text(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    def send_text(self, text: str) -> None:
        """Send already-serialised JSON (shared by many connections): written at once when
        nothing waits before it, else queued."""
        if self.closed or self._written(text):
            return
        self._put(text)

    def send_latest(self, kind: str, text: str) -> None:
        """Queue `text` as the newest message of `kind`; one still waiting is dropped.

        The new one goes at the end of the queue, where it was sent: a message queued
        after the dropped one (a cue before a view) still arrives before it.
        """
        if self.closed or self._written(text):
            return  # (an empty queue holds no older one of `kind`)
        old = self._latest.pop(kind, None)
        if old is not None:
            self._queue.remove(old[0])  # at most max_queue items: a bounded scan
        slot = _Latest(kind)
        self._latest[kind] = (slot, text)
        self._put(slot)

    def send_room(self, text: str, again: bool = False) -> None:
        """Queue a `room` message unless this socket already has exactly this one
        (`again`: send it anyway, the client asked)."""
        if again or text != self._room:
            self._room = text
            self.send_latest("room", text)

    def _written(self, text: str) -> bool:
        """Write `text` now if nothing waits before it and the socket takes it."""
        if self.direct is None or self._queue or self._sending:
            return False
        try:
            frame = frame_of(text)
        except UnicodeEncodeError:  # the writer's send fails it the same way
            return False
        if not self.direct.write(frame):
            return False
        MESSAGES["direct"] += 1
        return True

    def _put(self, item: Any) -> None:
        if len(self._queue) >= self._max:
            log.warning("closing a connection that does not read its messages")
            self.close(CLOSE_SLOW, "too slow")
            return
        self._queue.append(item)
        self._ready.set()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Flush what is queued, then close the socket with `code`."""
        if self.closed:
            return
        self.closed = True
        # Make room for the close marker even when the queue is full.
        while len(self._queue) >= self._max:
            self._forget(self._queue.popleft())
        self._queue.append((_CLOSE, code, reason))
        self._ready.set()

    def _forget(self, item: Any) -> None:
        if isinstance(item, _Latest):
            del self._latest[item.kind]

    async def stop(self) -> None:
        """Wait briefly for the writer to flush, then cancel it."""
        if self._writer is None:
            return
        if not self.closed:
            self.closed = True
            self._queue.append((_CLOSE, None, ""))  # a marker: it may pass the bound
            self._ready.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._writer), timeout=1.0)
        except Exception:  # timed out or the writer failed
            self._writer.cancel()

    async def _write_loop(self) -> None:
        try:
            while True:
                await self._ready.wait()
                item = self._queue.popleft()
                if not self._queue:
                    self._ready.clear()
                if isinstance(item, tuple) and item and item[0] is _CLOSE:
                    _, code, reason = item
                    if code is not None:
                        with contextlib.suppress(Exception):
                            await self.ws.close(code=code, reason=reason)
                    return
                if isinstance(item, _Latest):
                    item = self._latest.pop(item.kind)[1]
                self._sending = True
                await self.ws.send_text(item)
                self._sending = False
                MESSAGES["writer"] += 1
        except Exception:  # the peer went away; the reader side notices too
            self.closed = True
