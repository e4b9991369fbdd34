"""Helpers for the server tests: rooms of connected clients on a real server."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from typing import Any

from client.autoplay import play
from client.protocol_client import Client

NAMES = ["Ada", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
# The shortest timers the game accepts: a stalled test ends quickly.
FAST = {"timers": {"powers": 5, "clue": 5, "debate": 5, "vote": 5, "guess": 5, "pick": 5}}
# Long timers: nothing times out while a test looks at a phase.
SLOW = {"timers": {"powers": 600, "clue": 600, "debate": 600, "vote": 600, "guess": 600,
                   "pick": 600}}


async def seated(srv, n: int, preset: str | None = None, connect: bool = True
                 ) -> list[Client]:
    """A room with `n` players (the first is the host), all connected."""
    host = await Client.create(srv.base_url, NAMES[0], preset=preset)
    clients = [host] + [await Client.join(srv.base_url, host.code, name)
                        for name in NAMES[1:n]]
    if connect:
        for c in clients:
            await c.connect()
    return clients


async def started(srv, n: int, options: dict[str, Any] | None = None,
                  preset: str | None = None) -> list[Client]:
    """A room of `n` connected players with a game started (no powers unless given)."""
    clients = await seated(srv, n, preset)
    host = clients[0]
    mark = host.mark()
    await host.send("settings", options={"powers": [], **SLOW, **(options or {})})
    await host.wait_for(lambda m: m["type"] in ("room", "error"), since=mark)
    assert not host.errors, host.errors
    await host.send("start")
    for c in clients:
        await c.wait_view(lambda v: v["phase"] != "over")
    return clients


async def play_all(clients: list[Client], seed: int = 0, timeout: float = 90.0
                   ) -> list[dict[str, Any]]:
    """Every client plays random legal moves until the game is over; the final views."""
    return list(await asyncio.gather(
        *(play(c, random.Random(seed * 100 + i), timeout) for i, c in enumerate(clients))))


async def close_all(clients: list[Client]) -> None:
    for c in clients:
        await c.close()


def by_id(clients: list[Client]) -> dict[str, Client]:
    return {c.player: c for c in clients}


async def request(client: Client, type_: str, ref: Any, **fields: Any) -> dict[str, Any]:
    """Send a message with `ref` and wait for the error that echoes it (or fail)."""
    mark = client.mark()
    await client.send(type_, ref=ref, **fields)
    return await client.wait_for(lambda m: m["type"] == "error" and m.get("ref") == ref,
                                 since=mark)


async def fresh_picture(client: Client) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """Ask for everything again (hello); the (view, room) the server sends back."""
    mark = client.mark()
    await client.send("hello")
    room = await client.wait_for(lambda m: m["type"] == "room", since=mark)
    view = None
    if client.view is not None:
        view = (await client.wait_for(lambda m: m["type"] == "view", since=mark))["view"]
    return view, _stable_room(room)


def _stable_room(room: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in room.items() if k != "type"}


def db_rows(path: str, sql: str, *args: Any) -> list[tuple]:
    """Read the server's SQLite file from outside (what is committed is visible)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


async def next_clue(clients: list[Client], text: str = "zorp") -> dict[str, Any]:
    """The player whose turn it is gives `text`; the first client's next view."""
    view = clients[0].view
    count = len(view["clues"])
    await by_id(clients)[view["turn"]].act({"type": "clue", "text": text})
    return await clients[0].wait_view(lambda v: len(v["clues"]) > count)
