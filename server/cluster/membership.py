"""The cluster's registry of live nodes: this node's entry, and what it reads of the others.

Each node publishes its load in `node:{id}` (a hash that expires after the ttl,
its id in the set `nodes`) on every beat; a node that leaves deletes it and
marks itself gone, so a late beat cannot bring it back. Everyone reads the
entries to place rooms (server/cluster/placement.py) and to tell clients
where the other nodes are. Keys are server/storage/redis_keys.py's.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import time
from collections.abc import Callable
from typing import Any

from server.cluster.placement import NodeLoad
from server.storage.redis_keys import Keys

# One more room on a node, if its registry entry is alive (never resurrect an expired one).
COUNT_ROOM = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'rooms', 1) end
return 1
"""

# This node's registry entry. KEYS: its hash, the set of nodes, its "left" mark; ARGV:
# ttl_ms, the node's id, then the hash's field/value pairs. Nothing is written once the
# node has left (leave() sets the mark in the same step as it deletes the entry), so a
# beat's write that Redis runs after the leave, whatever the order its connections were
# served in, cannot bring the entry back.
PUBLISH = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
return 1
"""


class CpuMeter:
    """CPU seconds of this process (all threads) per wall second, smoothed."""

    def __init__(self, alpha: float = 0.5) -> None:
        self.alpha = alpha
        self.value = 0.0
        self._cpu = time.process_time()
        self._wall = time.monotonic()

    def sample(self) -> float:
        cpu, wall = time.process_time(), time.monotonic()
        if wall - self._wall > 0.05:
            now = (cpu - self._cpu) / (wall - self._wall)
            self.value = now if self.value == 0.0 else \
                self.alpha * now + (1 - self.alpha) * self.value
            self._cpu, self._wall = cpu, wall
        return self.value


def new_node_id(port: int) -> str:
    """A fresh id per process start: a restarted node is a new node, never its old claims."""
    host = socket.gethostname().split(".")[0][:24] or "node"
    return f"{host}-{port}-{secrets.token_hex(3)}"


class Membership:
    """This node in the registry: its published entry and the live nodes it last read."""

    def __init__(self, redis: Any, keys: Keys, *, node_id: str, url: str, ttl: float,
                 clock: Callable[[], float]) -> None:
        self.r = redis
        self.keys = keys
        self.id = node_id
        self.url = url
        self.ttl = ttl
        self.clock = clock
        self.started = clock()
        self.cpu = CpuMeter()
        # Called with the live nodes' URLs when they change (the rooms tell their clients).
        self.on_change: Callable[[list[str]], None] | None = None
        self._urls: list[str] = [url]

    async def publish(self, rooms: int, peers: int, draining: bool) -> None:
        """Write this node's entry (its load) for another ttl; nothing once it has left."""
        fields = {"url": self.url, "cpu": f"{self.cpu.sample():.4f}", "rooms": rooms,
                  "peers": peers, "started": repr(self.started),
                  "draining": int(draining), "cores": os.cpu_count() or 1,
                  "pid": os.getpid(), "beat": repr(self.clock())}
        pairs = [str(x) for kv in fields.items() for x in kv]
        await self.r.eval(PUBLISH, 3, self.keys.node(self.id), self.keys.nodes(),
                          self.keys.left(self.id), int(self.ttl * 1000), self.id, *pairs)

    async def leave(self) -> None:
        """Delete this node's entry and mark it gone for twice the ttl, in one step."""
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.set(self.keys.left(self.id), 1, px=int(self.ttl * 2000))
            pipe.delete(self.keys.node(self.id))
            pipe.srem(self.keys.nodes(), self.id)
            await pipe.execute()

    async def nodes(self) -> list[NodeLoad]:
        """Every live node (its registry entry has not expired), by id."""
        nodes = [n for n, _ in await self.rows()]
        urls = [n.url for n in nodes if not n.draining] or [self.url]
        if urls != self._urls:
            self._urls = urls
            if self.on_change is not None:
                self.on_change(list(urls))
        return nodes

    def known_urls(self) -> list[str]:
        """The public URLs of the live nodes at the last look (this one at least)."""
        return list(self._urls)

    async def rows(self) -> list[tuple[NodeLoad, dict[str, str]]]:
        """Live nodes with their raw registry fields (pid, beat) for `cluster status`."""
        return await read_registry(self.r, self.keys)

    async def url_of(self, node_id: str | None) -> str | None:
        """A live node's public URL, or None."""
        if not node_id:
            return None
        if node_id == self.id:
            return self.url
        return await self.r.hget(self.keys.node(node_id), "url")

    async def count_room(self, node_id: str) -> None:
        """One more room on a node's entry at once, so that rooms created before its next
        beat see it (the beat then sets the truth); a lost count is no harm."""
        with contextlib.suppress(Exception):
            await self.r.eval(COUNT_ROOM, 1, self.keys.node(node_id))


async def read_registry(r: Any, keys: Keys) -> list[tuple[NodeLoad, dict[str, str]]]:
    """Every live node of the registry with its raw fields; dead ids are pruned."""
    ids = sorted(await r.smembers(keys.nodes()))
    if not ids:
        return []
    async with r.pipeline(transaction=False) as pipe:
        for node_id in ids:
            pipe.hgetall(keys.node(node_id))
        rows = await pipe.execute()
    out, dead = [], []
    for node_id, h in zip(ids, rows, strict=True):
        if not h or "url" not in h:
            dead.append(node_id)
            continue
        out.append((NodeLoad(node_id, h["url"], float(h.get("cpu", 0)), int(h.get("rooms", 0)),
                             int(h.get("peers", 0)), float(h.get("started", 0)),
                             h.get("draining") == "1", int(h.get("cores", 1))), h))
    if dead:
        with contextlib.suppress(Exception):
            await r.srem(keys.nodes(), *dead)
    return out
