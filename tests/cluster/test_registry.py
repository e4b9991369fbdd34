"""The node registry on a real Redis: leaving it is final.

A node's heartbeat writes its entry (`node:{id}`, in the set `nodes`) every ttl/5.
When the node stops, a beat cut off mid-write could still reach Redis after the
leave (another connection, served in any order) and bring the entry back for a
ttl: the SIGTERM test in test_nodes.py saw that once. Now the beat finishes
instead of being cut off, and a write that lands after the leave changes nothing.
"""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from server.cluster.node import Cluster
from server.storage.redis_store import RedisStore


class _Host:
    def loaded(self) -> list[str]:
        return []

    def figures(self) -> tuple[int, int]:
        return 0, 0


async def test_a_node_that_left_is_not_written_back_by_a_late_beat(redis_proc, prefix):
    client = Redis.from_url(redis_proc.url, decode_responses=True)
    try:
        store = RedisStore(client, "n1", prefix=prefix, claim_ttl=2.0)
        node = Cluster(client, store, node_id="n1", url="http://127.0.0.1:1", ttl=2.0)
        await node.start(_Host())
        key = store.keys.node("n1")
        assert (await client.hgetall(key))["url"] == "http://127.0.0.1:1"
        assert await client.sismember(store.keys.nodes(), "n1")
        assert 0 < await client.pttl(key) <= 2000
        await node.stop()
        assert not await client.exists(key)
        # a beat's write that Redis runs after the leave (cut off on its way, or
        # served after it on another connection) writes nothing
        await node._publish()
        await asyncio.gather(*(node._publish() for _ in range(5)))
        assert not await client.exists(key)
        assert not await client.sismember(store.keys.nodes(), "n1")
        assert [n.id for n, _ in await node.registry()] == []
    finally:
        await client.aclose()


async def test_stopping_lets_the_beat_under_way_finish(redis_proc, prefix):
    """stop() while beats come every 10 ms: the beat task ends by itself (never
    cancelled mid-write) and the entry is gone for good."""
    client = Redis.from_url(redis_proc.url, decode_responses=True)
    try:
        store = RedisStore(client, "n2", prefix=prefix, claim_ttl=2.0)
        node = Cluster(client, store, node_id="n2", url="http://127.0.0.1:2", ttl=0.05)
        await node.start(_Host())
        # beats every 10 ms; a loaded machine may run them late, so wait for three
        # (up to 5 s) rather than expecting them in a fixed time
        for _ in range(250):
            if node.counts["beats"] >= 3:
                break
            await asyncio.sleep(0.02)
        beats = node.counts["beats"]
        assert beats >= 3
        beat = node._tasks[0]
        await node.stop()
        assert beat.done() and not beat.cancelled()
        await asyncio.sleep(0.15)  # past the ttl: an expiring entry would be gone anyway
        assert node.counts["beats"] <= beats + 2
        assert not await client.exists(store.keys.node("n2"))
    finally:
        await client.aclose()
