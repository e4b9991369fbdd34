"""A room's actor: one task that runs its commands one at a time, and its one timer.

Everything that changes a room runs here, in order, so the room needs no lock.
The actor knows nothing of rooms: the room tells it what a failed command
means (`failed`), what late callers are told once it stopped (`gone`), what
to do after each command (`after_turn`), and when the timer is due
(`wake_at`, then `on_wake` is posted).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)


class Actor:
    """A mailbox (`call`, `post`) run by one task, and one timer (`schedule`)."""

    def __init__(self, code: str, clock: Callable[[], float],
                 wake_at: Callable[[], float | None], on_wake: Callable[[], Any],
                 gone: Callable[[], Exception], refusing: Callable[[], bool],
                 failed: Callable[[Exception], Exception | None],
                 after_turn: Callable[[], None],
                 before: Callable[[], Awaitable[None] | None] | None = None) -> None:
        """`refusing()`: commands are refused with `gone()` (the room moved away);
        `before()`: awaited (when it returns an awaitable) before each command, which
        fails with what it raises (cluster mode: is the room still ours?);
        `failed(exc)`: the error a caller gets for `exc`, or None for an unexpected one
        (the caller gets it as is; a posted command's is logged)."""
        self.code = code
        self._clock = clock
        self._wake_at = wake_at
        self._on_wake = on_wake
        self._gone = gone
        self._refusing = refusing
        self._failed = failed
        self._after_turn = after_turn
        self._before = before
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.Task[None] | None = None
        self._timer_at: float | None = None

    # The mailbox ------------------------------------------------------------

    def start(self) -> None:
        """Start the task (from the event loop) and arm the timer."""
        self._task = asyncio.create_task(self._run(), name=f"room-{self.code}")
        self.schedule()

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run `fn(*args)` inside the actor (awaiting it if async) and return its result."""
        if self._task is None or self._task.done():
            raise self._gone()
        fut = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((fn, args, fut))
        return await fut

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue `fn(*args)` for the actor without waiting."""
        self._queue.put_nowait((fn, args, None))

    async def _run(self) -> None:
        while True:
            fn, args, fut = await self._queue.get()
            if fn is None:
                if fut is not None and not fut.done():
                    fut.set_result(None)
                return
            if self._refusing():  # stopped here (another node has it): refuse, change nothing
                if fut is not None and not fut.done():
                    fut.set_exception(self._gone())
                continue
            try:
                pending = self._before() if self._before is not None else None
                if pending is not None:
                    await pending
                result = fn(*args)
                if isinstance(result, Awaitable):
                    result = await result
            except Exception as exc:  # one bad command must not kill the room
                if fn == self._on_wake and not self._refusing():
                    self._retry_wake()  # the deadline stays due: try again shortly
                told = self._failed(exc)
                if told is None and fut is None:
                    log.exception("room %s: command %s failed", self.code, fn.__name__)
                elif fut is not None and not fut.done():
                    fut.set_exception(exc if told is None else told)
            else:
                if fut is not None and not fut.done():
                    fut.set_result(result)
            self._after_turn()

    async def stop(self) -> None:
        """Stop the task after the commands queued before this; later ones get `gone()`."""
        if self._task and not self._task.done():
            fut = asyncio.get_running_loop().create_future()
            self._queue.put_nowait((None, (), fut))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(fut, timeout=5)
        # Whoever still waits on a command gets an answer instead of hanging.
        while not self._queue.empty():
            _, _, pending = self._queue.get_nowait()
            if pending is not None and not pending.done():
                pending.set_exception(self._gone())

    # The timer --------------------------------------------------------------

    def schedule(self) -> None:
        """(Re)arm the one timer at the next deadline `wake_at()` gives."""
        at = self._wake_at()
        if at == self._timer_at and self._timer is not None and not self._timer.done():
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = at
        self._timer = None if at is None else asyncio.create_task(self._sleep_until(at))

    def _retry_wake(self, delay: float = 1.0) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = None
        self._timer = asyncio.create_task(self._sleep_until(self._clock() + delay))

    def cancel_timer(self) -> None:
        if self._timer:
            self._timer.cancel()

    async def _sleep_until(self, at: float) -> None:
        # Sleep in short slices: wall-clock time may jump, and deadlines are wall-clock.
        while True:
            delay = at - self._clock()
            if delay <= 0:
                break
            await asyncio.sleep(min(delay, 5.0))
        self._timer_at = None
        self.post(self._on_wake)
