"""What a seat received over its socket, in order, and the waits on it.

`Received` keeps the history (`messages`), the latest `view`, `room` and
`welcome`, every `error`, and wakes whoever waits (`wait_for`, `wait_view`)
at each message. The socket that feeds it is the protocol client's
(client/protocol_client.py); this module opens nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any


class Received:
    """The messages of one seat, and waits for the one a test or a bot expects."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.room: dict[str, Any] | None = None
        self.welcome: dict[str, Any] | None = None
        self._changed = asyncio.Event()

    def _record(self, msg: dict[str, Any]) -> None:
        self.messages.append(msg)
        kind = msg.get("type")
        if kind == "view":
            self.view = msg["view"]
        elif kind == "room":
            self.room = msg
        elif kind == "welcome":
            self.welcome = msg
        elif kind == "error":
            self.errors.append(msg)
        self._noted(msg)
        self._wake()

    def _noted(self, msg: dict[str, Any]) -> None:
        """Each message as it is recorded, before the waiters wake (the socket's side
        takes the nodes a welcome, `nodes` or `moved` names)."""

    def _check_socket(self, opening: bool) -> None:
        """Raise ConnectionError if no message can come any more (the socket's side)."""

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def mark(self) -> int:
        """The index of the next message to arrive (for `wait_for(..., since=mark)`)."""
        return len(self.messages)

    async def wait_for(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0,
                       since: int | None = None, _opening: bool = False) -> dict[str, Any]:
        """The first message from index `since` on for which `pred` holds.

        A closed socket ends the wait (ConnectionError), unless the client is
        following the room (`follow`): then it waits through the reconnection."""
        i = since or 0
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            while i < len(self.messages):
                msg = self.messages[i]
                i += 1
                if pred(msg):
                    return msg
            self._check_socket(_opening)
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError("no matching message")
            changed = self._changed
            # asyncio.timeout, not asyncio.wait_for: on Python 3.11, wait_for returns the
            # result when a cancellation comes as the message does, so a cancelled waiter
            # would loop on as if nothing had happened (and whoever awaits it hangs).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await changed.wait()

    async def wait_view(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0
                        ) -> dict[str, Any]:
        """The current view if `pred(view)`, else the next view that satisfies it."""
        if self.view is not None and pred(self.view):
            return self.view
        msg = await self.wait_for(lambda m: m["type"] == "view" and pred(m["view"]), timeout,
                                  since=self.mark())
        return msg["view"]
