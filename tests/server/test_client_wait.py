"""The protocol client's waits (client/protocol_client.py) end when their task is cancelled, even
when the cancellation comes in the same turn of the loop as the message they wake for.

Python 3.11's asyncio.wait_for returns the inner result in that case and drops the
cancellation; a loop around it (the bots' policy loop in the browser tests, the bot CLI)
then never ends, and whoever awaits the cancelled task hangs."""

from __future__ import annotations

import asyncio

from client.protocol_client import Client


def _client() -> Client:
    return Client("http://127.0.0.1:9", "ABCDE", "p1", "token")


def test_a_wait_cancelled_as_a_message_arrives_ends_cancelled():
    async def main() -> tuple[bool, int]:
        c = _client()
        never = asyncio.ensure_future(c.wait_for(lambda m: False, timeout=30))
        await asyncio.sleep(0.05)  # it waits for the next message
        c._record({"type": "room"})  # a message wakes it ...
        never.cancel()  # ... and, in the same turn, the task is cancelled
        done, _ = await asyncio.wait({never}, timeout=2)
        return bool(done) and never.cancelled(), len(c.messages)

    cancelled, received = asyncio.run(main())
    assert received == 1
    assert cancelled, "the cancelled wait went on waiting"


def test_a_wait_still_times_out_and_still_returns_a_match():
    async def main() -> tuple[str, dict]:
        c = _client()
        try:
            await c.wait_for(lambda m: False, timeout=0.1)
            timed = "returned"
        except TimeoutError:
            timed = "timed out"
        waiter = asyncio.ensure_future(c.wait_for(lambda m: m["type"] == "view", timeout=5))
        await asyncio.sleep(0.05)
        c._record({"type": "room"})
        c._record({"type": "view", "view": {"phase": "day"}})
        return timed, await waiter

    timed, msg = asyncio.run(main())
    assert timed == "timed out"
    assert msg["view"] == {"phase": "day"}
