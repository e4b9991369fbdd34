"""A socket's outgoing queue: states coalesce, and the order of what was sent holds.

A reader that lags receives each "state now" kind (view, room, mouths) once, its newest,
and never a newer state ahead of a message that was sent before it: a cue sent before a
view arrives before it, whether or not an older view was still waiting when both were
sent (the order a player sees must not depend on how loaded the server is).
"""

from __future__ import annotations

import asyncio
import json

from server.wire.connection import Connection
from server.wire.protocol import CLOSE_SLOW


class HeldSocket:
    """A WebSocket whose reader is held until `release`: what is sent meanwhile waits."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.gate = asyncio.Event()

    async def send_text(self, text: str) -> None:
        await self.gate.wait()
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)


def view(n: int) -> str:
    return json.dumps({"type": "view", "n": n})


async def drained(ws: HeldSocket, conn: Connection, count: int) -> list[str]:
    ws.gate.set()
    for _ in range(200):
        if len(ws.sent) >= count:
            break
        await asyncio.sleep(0.005)
    await conn.stop()
    return ws.sent


async def test_a_cue_sent_before_a_newer_view_arrives_before_it_while_an_older_view_waits():
    ws = HeldSocket()
    conn = Connection(ws)  # type: ignore[arg-type]
    conn.start()
    conn.send_latest("view", view(1))  # the lynch's view: taken by the held writer
    await asyncio.sleep(0.01)
    conn.send_latest("view", view(2))  # waits behind it
    conn.send({"type": "cue", "name": "night"})
    conn.send_latest("view", view(3))  # nightfall: replaces view 2, after the cue
    sent = await drained(ws, conn, 3)
    assert sent == [view(1), '{"type":"cue","name":"night"}', view(3)]


async def test_kinds_coalesce_apart_and_keep_the_order_they_were_last_sent_in():
    ws = HeldSocket()
    conn = Connection(ws)  # type: ignore[arg-type]
    conn.start()
    conn.send_text("first")
    await asyncio.sleep(0.01)  # the writer holds "first"
    conn.send_latest("room", "room-1")
    conn.send_latest("view", view(1))
    conn.send_latest("mouths", "m-1")
    conn.send_latest("room", "room-2")  # the room moves after view 1 and mouths 1
    conn.send_latest("view", view(2))
    sent = await drained(ws, conn, 4)
    assert sent == ["first", "m-1", "room-2", view(2)]


async def test_a_lagging_reader_of_many_states_keeps_one_slot_per_kind_and_is_not_closed():
    ws = HeldSocket()
    conn = Connection(ws, max_queue=8)  # type: ignore[arg-type]
    conn.start()
    conn.send_text("first")
    await asyncio.sleep(0.01)
    for n in range(1000):
        conn.send_latest("view", view(n))
        conn.send_latest("mouths", f"m-{n}")
    assert not conn.closed
    sent = await drained(ws, conn, 3)
    assert sent == ["first", view(999), "m-999"]
    assert ws.closed is None


async def test_a_reader_that_lets_plain_messages_pile_up_is_closed_as_too_slow():
    ws = HeldSocket()
    conn = Connection(ws, max_queue=8)  # type: ignore[arg-type]
    conn.start()
    conn.send_text("first")
    await asyncio.sleep(0.01)
    conn.send_latest("view", view(0))
    for n in range(8):
        conn.send({"type": "cue", "n": n})
    assert conn.closed
    ws.gate.set()
    for _ in range(200):
        if ws.closed is not None:
            break
        await asyncio.sleep(0.005)
    assert ws.closed == (CLOSE_SLOW, "too slow")
    # What fitted was sent before the close, oldest dropped to make room for it; the
    # view dropped with it left no stale slot behind.
    assert ws.sent[0] == "first" and view(0) not in ws.sent
    conn.send_latest("view", view(1))  # closed: nothing more is queued
    assert view(1) not in ws.sent
