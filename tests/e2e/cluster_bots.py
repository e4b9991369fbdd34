"""Bots in a cluster for the e2e tests: rooms created through any node, a driver that
remembers every action each bot sent and whether the server refused it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections.abc import Callable

import numpy as np

from client.autoplay import autoplay
from client.bot import Bot
from client.rtc_peer import Source

_refs = itertools.count(1)

FAST = {"powers": [], "fantasmi": 0,
        "timers": {"clue": 5, "debate": 1800, "vote": 5, "guess": 5, "pick": 5}}


async def cluster_room(url: str, sources: list[Source], options: dict | None = None) -> list[Bot]:
    """A room created through node `url` (placement puts it anywhere); every bot follows it."""
    bots = [await Bot.create(url, "Bot0", sources[0], preset="intruso", follow=True)]
    for i, src in enumerate(sources[1:], start=1):
        bots.append(await Bot.join(url, bots[0].client.code, f"Bot{i}", src, follow=True))
    mark = bots[0].client.mark()
    await bots[0].client.send("settings", options=options or FAST)
    await bots[0].client.wait_for(lambda m: m["type"] == "room", since=mark)
    assert not bots[0].client.errors, bots[0].client.errors
    return bots


class Ledger:
    """Every action each bot sent (with a ref), to be compared with the room's log."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, str], list[tuple[str, dict]]] = {}  # (room, player) -> ...

    async def act(self, bot: Bot, action: dict) -> None:
        ref = f"L{next(_refs)}"
        self.sent.setdefault((bot.client.code, bot.pid), []).append((ref, action))
        await bot.client.send("action", action=action, ref=ref)

    def accepted(self, bot: Bot) -> list[dict]:
        """The actions of `bot` the server did not refuse, in the order sent."""
        refused = {e.get("ref") for e in bot.client.errors}
        return [a for ref, a in self.sent.get((bot.client.code, bot.pid), [])
                if ref not in refused]


async def drive(rooms: list[list[Bot]], ledger: Ledger, until: Callable[[dict], bool],
                skip: tuple[str, ...] = (), timeout: float = 90.0, seed: int = 1) -> None:
    """Answer every bot's views with `autoplay` (never the `skip` actions), through the
    ledger, until `until(view)` holds for every bot of every room."""
    rng = random.Random(seed)
    tried: set[str] = set()
    bots = [b for room in rooms for b in room]
    end = time.monotonic() + timeout
    while True:
        views = [b.client.view for b in bots]
        if all(v is not None and until(v) for v in views):
            return
        if time.monotonic() > end:
            raise TimeoutError(f"phases now {[v and v.get('phase') for v in views]}")
        for b, v in zip(bots, views, strict=True):
            if v is None or b.client.closed:
                continue
            action = autoplay(v, rng)
            if action is None or action["type"] in skip:
                continue
            key = json.dumps([b.client.code, b.pid, v.get("phase"), v.get("round"),
                              v.get("turn"), len(v.get("clues") or []), action["type"]])
            if key not in tried:
                tried.add(key)
                await ledger.act(b, action)
        await asyncio.sleep(0.05)


async def settle(rooms: list[list[Bot]], quiet: float = 0.5, timeout: float = 10.0) -> None:
    """Wait until no bot has received a view for `quiet` seconds (no action in flight)."""
    bots = [b for room in rooms for b in room]
    end = time.monotonic() + timeout
    counts = [len(b.client.messages) for b in bots]
    last = time.monotonic()
    while time.monotonic() < end:
        await asyncio.sleep(0.1)
        now = [sum(1 for m in b.client.messages[c:] if m["type"] == "view")
               for b, c in zip(bots, counts, strict=True)]
        if any(now):
            counts = [len(b.client.messages) for b in bots]
            last = time.monotonic()
        elif time.monotonic() - last >= quiet:
            return


def silence_around(bot: Bot, t0: float, rms: float = 0.01) -> float | None:
    """The longest silence the bot heard after monotonic time `t0` (a node lost then): from
    the last audible frame of the old voice to the first of the new one, in seconds; None
    if nothing was heard after `t0` (the voice never came back)."""
    rec = bot.recorder
    start = max(0, int(np.searchsorted(rec.arrivals, t0 - 1.0)))
    audible = [rec.arrivals[i] for i in range(start, len(rec.frames))
               if float(np.sqrt(np.mean(np.square(rec.frames[i])))) > rms]
    if not audible or audible[-1] <= t0:
        return None
    return max(b - a for a, b in zip(audible, audible[1:], strict=False))


async def wait_reconnected(bots: list[Bot], before: dict[str, int], timeout: float = 30.0
                           ) -> None:
    """Until every bot has reconnected (socket and voice) since `before` (pid -> reconnects)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        # The follower awaits the reconnection hooks: done means the voice is back too.
        if all(b.client.reconnects > before[b.pid] and not b.client.closed
               and (b.client._follower is None or b.client._follower.done())
               for b in bots):
            return
        await asyncio.sleep(0.1)
    raise TimeoutError("bots did not reconnect: " + ", ".join(
        f"{b.pid}:{b.client.reconnects}/{b.client.closed}" for b in bots))
