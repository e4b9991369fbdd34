"""Rooms moved on purpose: a draining node hands each of its rooms to another.

The giving side (`drain`, `hand_over`): stop the room here, release its claim,
publish `adopt CODE` on the chosen node's inbox channel, wait for that node's
claim, and send the room's clients there. The taking side (`listen`): this
node's inbox, where each `adopt CODE` is adopted at once. A room whose taker
does not claim it in time is left unclaimed: the next sweep of any node
adopts it (server/cluster/node.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from server.cluster.membership import Membership
from server.cluster.placement import NodeLoad
from server.storage.redis_store import RedisStore

if TYPE_CHECKING:
    from server.cluster.host import RoomHost

log = logging.getLogger(__name__)


class Handovers:
    """This node's side of the hand-overs: its inbox, and the rooms it gives away."""

    def __init__(self, redis: Any, store: RedisStore, membership: Membership, *,
                 wait: float, poll: float) -> None:
        """`wait`: how long a taker has to claim a room; `poll`: the inbox's longest
        wait for a message (and its pause before resubscribing)."""
        self.r = redis
        self.store = store
        self.membership = membership
        self.keys = store.keys
        self.wait = wait
        self.poll = poll

    async def listen(self, stopping: asyncio.Event,
                     adopt: Callable[[str], Awaitable[bool]]) -> None:
        """`adopt CODE` messages from draining nodes until `stopping`; resubscribes if
        Redis drops us."""
        while not stopping.is_set():
            pubsub = self.r.pubsub()
            try:
                await pubsub.subscribe(self.keys.inbox(self.membership.id))
                while not stopping.is_set():
                    msg = await pubsub.get_message(ignore_subscribe_messages=True,
                                                   timeout=min(1.0, self.poll))
                    if msg is None:
                        continue
                    verb, _, code = str(msg.get("data", "")).partition(" ")
                    if verb == "adopt" and code:
                        asyncio.create_task(adopt(code))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("cluster: inbox lost (%s); resubscribing", exc)
                await asyncio.sleep(self.poll)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def drain(self, host: RoomHost, hand_over: Callable[[str], Awaitable[bool]],
                    timeout: float) -> int:
        """Hand every room of `host` on (eight at a time) within `timeout`; how many moved."""
        codes = list(host.loaded())
        log.info("cluster: draining %d room(s)", len(codes))
        gate = asyncio.Semaphore(8)
        moved = 0

        async def one(code: str) -> None:
            nonlocal moved
            async with gate:
                if await hand_over(code):
                    moved += 1

        try:
            await asyncio.wait_for(asyncio.gather(*(one(c) for c in codes)), timeout)
        except TimeoutError:
            log.warning("cluster: drain timed out; %d of %d room(s) moved", moved, len(codes))
        return moved

    async def hand_over(self, host: RoomHost, code: str, target: NodeLoad | None) -> bool:
        """Stop one room, release it, have `target` adopt it, send the clients there (None:
        anywhere); True if `target` took it."""
        await host.freeze(code)       # no more writes from here
        await self.store.release(code)
        owner = None
        if target is not None:
            await self.r.publish(self.keys.inbox(target.id), f"adopt {code}")
            end = time.monotonic() + self.wait
            while time.monotonic() < end:
                found = await self.store.owner(code)
                if found is not None:
                    owner = found[0]
                    break
                await asyncio.sleep(0.02)
        url = await self.membership.url_of(owner)
        await host.evict(code, url)
        return owner is not None
