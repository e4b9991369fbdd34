"""Cluster mode: this node in the Redis registry, its claims, failover and drain.

One `Cluster` per `sussurro serve --redis ...` process. It

- beats: every `ttl / 5` seconds it publishes the node's load (CPU of its
  process, rooms, voice peers) in `node:{id}`, a hash that expires after
  `ttl`, and renews the claims of its rooms (server/storage/redis_store.py). A claim
  it finds taken by another node means the room moved while this node was
  away (paused, cut off): the room is unloaded and its clients sent on.
- sweeps: on the same beat it lists the live rooms nobody claims (their node
  died, or stopped), spreads them over the live nodes with
  `placement.assign`, and adopts the ones that fall to it: claim (a new
  fencing token), rebuild by replaying the log, serve.
- answers hand-overs: a draining node publishes `adopt CODE` on the chosen
  node's inbox channel, and that node adopts the room at once.
- drains on SIGTERM: no new rooms, then each room is stopped, released,
  handed to another node, and its clients are sent there.

The rooms themselves stay in server/rooms/registry.py; this module reaches them
through the small `RoomHost` interface below. docs/cluster.md describes the
whole method and its failure model.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from server.cluster.placement import NodeLoad, assign, pick
from server.storage.redis_store import Keys, RedisStore
from server.storage.seam import StoreUnavailable

log = logging.getLogger(__name__)

# One more room on a node, if its registry entry is alive (never resurrect an expired one).
COUNT_ROOM = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'rooms', 1) end
return 1
"""

# This node's registry entry. KEYS: its hash, the set of nodes, its "left" mark; ARGV:
# ttl_ms, the node's id, then the hash's field/value pairs. Nothing is written once the
# node has left (stop() sets the mark in the same step as it deletes the entry), so a
# beat's write that Redis runs after the leave, whatever the order its connections were
# served in, cannot bring the entry back.
PUBLISH = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
return 1
"""

# An orphan room left unadopted this many sweeps is taken by whichever node sees it
# (placement disagreed, or its chosen node died too).
STRAY_SWEEPS = 3


class RoomHost(Protocol):
    """What the cluster needs of the node's rooms (server/rooms/registry.py implements it)."""

    def loaded(self) -> list[str]:
        """Codes of the rooms running here."""

    def figures(self) -> tuple[int, int]:
        """(rooms, voice peers) for the registry."""

    async def adopt(self, code: str) -> bool:
        """Load a room this node has just claimed (replay its log) and serve it."""

    async def freeze(self, code: str) -> None:
        """Stop a room's actor, timers and voice; its sockets stay open until `evict`."""

    async def evict(self, code: str, url: str | None) -> None:
        """Send a (frozen or running) room's clients to `url` (None: anywhere) and forget it."""

    def nodes_changed(self, urls: list[str]) -> None:
        """The live nodes changed: tell the clients where to look if their node goes."""


@dataclass
class Where:
    """Where a room lives now: `here`, `there` (at `url`), `orphan` (nobody), `gone`."""

    state: str
    url: str | None = None
    node: str | None = None


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


class Cluster:
    """This node's membership of the cluster (see the module docstring)."""

    def __init__(self, redis: Any, store: RedisStore, *, node_id: str, url: str,
                 ttl: float = 5.0, ramp: float = 60.0, handover_wait: float = 5.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.r = redis
        self.store = store
        self.keys: Keys = store.keys
        self.id = node_id
        self.url = url.rstrip("/")
        self.ttl = ttl
        self.beat = max(0.05, ttl / 5)
        self.ramp = ramp
        self.handover_wait = handover_wait
        self.clock = clock
        self.started = clock()
        self.draining = False
        self.secret = ""
        self.cpu = CpuMeter()
        self.host: RoomHost | None = None
        self.counts = {"adopted": 0, "lost": 0, "handed_over": 0, "beats": 0,
                       "beat_failures": 0}
        self._strays: dict[str, int] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = asyncio.Event()  # the beat's cue to end between two beats
        self._last_renewed = time.monotonic()
        self._adopting: set[str] = set()
        self._urls: list[str] = [self.url]

    # Life ---------------------------------------------------------------------

    async def start(self, host: RoomHost) -> None:
        """Join: the shared secret, the first beat, then the beat and inbox tasks."""
        self.host = host
        self._stopping = asyncio.Event()
        self.cpu = CpuMeter()  # from now: the start-up's imports are not load
        await self.r.set(self.keys.secret(), secrets.token_urlsafe(32), nx=True)
        self.secret = await self.r.get(self.keys.secret())
        await self._publish()
        self._tasks = [asyncio.create_task(self._beat_loop(), name="cluster-beat"),
                       asyncio.create_task(self._inbox_loop(), name="cluster-inbox")]
        log.info("cluster: node %s at %s joined (ttl %.1fs)", self.id, self.url, self.ttl)

    async def stop(self) -> None:
        """Leave: stop beating, give back any claim still held, leave the registry.

        The beat and the inbox end by themselves at their next look (the beat is let
        finish the beat under way rather than cancelled in the middle of its write; up
        to `ttl`, cancelled after that): a write cut off on its way may still reach
        Redis after the leave. The leave also marks the node as gone for twice the
        ttl, and PUBLISH writes nothing for a node so marked."""
        self._stopping.set()
        tasks, self._tasks = self._tasks, []
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=max(self.ttl, 2 * self.beat))
            for task in late:
                task.cancel()
            if late:  # (redis-py may take a cancel for its own time-out: not awaited for ever)
                await asyncio.wait(late, timeout=1.0)
        for code in list(self.store.held):
            try:
                await self.store.release(code)
            except Exception as exc:  # its claim expires after the ttl anyway
                log.warning("cluster: could not give back room %s: %s", code, exc)
        try:
            async with self.r.pipeline(transaction=True) as pipe:
                pipe.set(self.keys.left(self.id), 1, px=int(self.ttl * 2000))
                pipe.delete(self.keys.node(self.id))
                pipe.srem(self.keys.nodes(), self.id)
                await pipe.execute()
        except Exception as exc:  # the entry expires after the ttl anyway
            log.warning("cluster: could not leave the registry: %s", exc)

    # The registry -------------------------------------------------------------

    async def _publish(self) -> None:
        rooms, peers = self.host.figures() if self.host else (0, 0)
        fields = {"url": self.url, "cpu": f"{self.cpu.sample():.4f}", "rooms": rooms,
                  "peers": peers, "started": repr(self.started),
                  "draining": int(self.draining), "cores": os.cpu_count() or 1,
                  "pid": os.getpid(), "beat": repr(self.clock())}
        pairs = [str(x) for kv in fields.items() for x in kv]
        await self.r.eval(PUBLISH, 3, self.keys.node(self.id), self.keys.nodes(),
                          self.keys.left(self.id), int(self.ttl * 1000), self.id, *pairs)

    async def nodes(self) -> list[NodeLoad]:
        """Every live node (its registry entry has not expired), by id."""
        nodes = [n for n, _ in await self.registry()]
        urls = [n.url for n in nodes if not n.draining] or [self.url]
        if urls != self._urls:
            self._urls = urls
            if self.host is not None:
                self.host.nodes_changed(list(urls))
        return nodes

    def known_urls(self) -> list[str]:
        """The public URLs of the live nodes at the last look (this one at least)."""
        return list(self._urls)

    async def registry(self) -> list[tuple[NodeLoad, dict[str, str]]]:
        """Live nodes with their raw registry fields (pid, beat) for `cluster status`."""
        return await read_registry(self.r, self.keys)

    async def url_of(self, node_id: str | None) -> str | None:
        """A live node's public URL, or None."""
        if not node_id:
            return None
        if node_id == self.id:
            return self.url
        return await self.r.hget(self.keys.node(node_id), "url")

    # Where rooms are --------------------------------------------------------------

    async def where(self, code: str) -> Where:
        """Where room `code` is served now (this node counts its rooms loading too)."""
        if self.host is not None and code in self.host.loaded():
            return Where("here", self.url, self.id)
        owner = await self.store.owner(code)
        if owner is not None:
            node = owner[0]
            if node == self.id:
                return Where("here", self.url, self.id)
            return Where("there", await self.url_of(node), node)
        row = await self.store.room(code)
        if row is None or row.status == "closed":
            return Where("gone")
        return Where("orphan")

    async def target_for_new_room(self) -> NodeLoad | None:
        """The node a new room goes to (None: this one, when nothing else is live).

        The chosen node's published room count goes up at once, so that rooms
        created before its next heartbeat see it (the beat then sets the truth).
        """
        nodes = await self.nodes()
        me = [n for n in nodes if n.id == self.id]
        if self.draining:
            target = pick(nodes, self.clock(), self.ramp, exclude=[self.id])
        else:
            target = pick(nodes, self.clock(), self.ramp) or (me[0] if me else None)
        if target is not None:
            with contextlib.suppress(Exception):
                await self.r.eval(COUNT_ROOM, 1, self.keys.node(target.id))
        return target

    async def adopt(self, code: str) -> bool:
        """Claim an unclaimed room and serve it here: True if it runs here now."""
        if self.host is None or self.draining:
            return False
        if code in self.host.loaded():
            return True
        if code in self._adopting:
            # Another request is loading it: wait for that instead of claiming twice.
            end = time.monotonic() + 10
            while code in self._adopting and time.monotonic() < end:
                await asyncio.sleep(0.02)
            return code in self.host.loaded()
        self._adopting.add(code)
        try:
            token = await self.store.claim(code)
            if token is None:
                return False
            try:
                ok = await self.host.adopt(code)
            except Exception:
                log.exception("cluster: room %s could not be loaded", code)
                ok = False
            if not ok:
                with contextlib.suppress(Exception):
                    await self.store.release(code)
                return False
            self.counts["adopted"] += 1
            self._strays.pop(code, None)
            log.info("cluster: adopted room %s (token %d)", code, token)
            return True
        finally:
            self._adopting.discard(code)

    async def lost(self, code: str) -> None:
        """A room of ours was claimed elsewhere: unload it and send its clients there."""
        self.store.forget(code)
        url = None
        with contextlib.suppress(Exception):
            owner = await self.store.owner(code)
            url = await self.url_of(owner[0]) if owner else None
        if self.host is not None and code in self.host.loaded():
            self.counts["lost"] += 1
            log.warning("cluster: room %s is owned by another node now; unloading", code)
            await self.host.evict(code, url)

    # The beat --------------------------------------------------------------------

    async def _beat_loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.beat)
            if self._stopping.is_set():
                return
            try:
                await self.heartbeat()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.counts["beat_failures"] += 1
                log.warning("cluster: heartbeat failed: %s", exc)
                await self._cut_off()

    async def heartbeat(self) -> None:
        """One beat: publish our load, renew our claims, adopt our share of orphans."""
        await self._publish()
        await self.nodes()  # keeps known_urls fresh for the welcomes
        lost = await self.store.renew()
        self._last_renewed = time.monotonic()
        self.counts["beats"] += 1
        for code in lost:
            await self.lost(code)
        if not self.draining:
            await self.sweep()

    async def _cut_off(self) -> None:
        """Redis unreachable past our claims' expiry: others may own our rooms by now."""
        if time.monotonic() - self._last_renewed <= self.ttl or self.host is None:
            return
        for code in list(self.host.loaded()):
            self.store.forget(code)
            self.counts["lost"] += 1
            log.warning("cluster: no renewal for %.1fs; unloading room %s", self.ttl, code)
            await self.host.evict(code, None)

    async def sweep(self) -> list[str]:
        """Adopt this node's share of the rooms nobody claims; the codes adopted."""
        codes = await self.store.live_codes()
        owners = await self.store.owners(codes)
        loaded = set(self.host.loaded()) if self.host else set()
        orphans = [c for c in codes if owners.get(c) is None and c not in loaded]
        self._strays = {c: self._strays.get(c, 0) + 1 for c in orphans}
        if not orphans:
            return []
        plan = assign(orphans, await self.nodes(), self.clock(), self.ramp)
        mine = [c for c in orphans
                if plan.get(c) == self.id or self._strays[c] >= STRAY_SWEEPS]
        adopted = []
        for code in mine:
            if await self.adopt(code):
                adopted.append(code)
        return adopted

    # Hand-overs ----------------------------------------------------------------------

    async def _inbox_loop(self) -> None:
        """`adopt CODE` messages from draining nodes; resubscribes if Redis drops us."""
        while not self._stopping.is_set():
            pubsub = self.r.pubsub()
            try:
                await pubsub.subscribe(self.keys.inbox(self.id))
                while not self._stopping.is_set():
                    msg = await pubsub.get_message(ignore_subscribe_messages=True,
                                                   timeout=min(1.0, self.beat))
                    if msg is None:
                        continue
                    verb, _, code = str(msg.get("data", "")).partition(" ")
                    if verb == "adopt" and code:
                        asyncio.create_task(self.adopt(code))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("cluster: inbox lost (%s); resubscribing", exc)
                await asyncio.sleep(self.beat)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def drain(self, timeout: float = 30.0) -> int:
        """SIGTERM: take no new room, hand every room to another node; how many moved."""
        self.draining = True
        with contextlib.suppress(Exception):
            await self._publish()
        if self.host is None:
            return 0
        codes = list(self.host.loaded())
        log.info("cluster: draining %d room(s)", len(codes))
        gate = asyncio.Semaphore(8)
        moved = 0

        async def one(code: str) -> None:
            nonlocal moved
            async with gate:
                if await self.hand_over(code):
                    moved += 1

        try:
            await asyncio.wait_for(asyncio.gather(*(one(c) for c in codes)), timeout)
        except TimeoutError:
            log.warning("cluster: drain timed out; %d of %d room(s) moved", moved, len(codes))
        return moved

    async def hand_over(self, code: str) -> bool:
        """Stop one room, release it, have another node adopt it, send the clients there."""
        assert self.host is not None
        nodes = await self.nodes()
        target = pick(nodes, self.clock(), self.ramp, exclude=[self.id])
        await self.host.freeze(code)       # no more writes from here
        await self.store.release(code)
        owner = None
        if target is not None:
            await self.r.publish(self.keys.inbox(target.id), f"adopt {code}")
            end = time.monotonic() + self.handover_wait
            while time.monotonic() < end:
                found = await self.store.owner(code)
                if found is not None:
                    owner = found[0]
                    break
                await asyncio.sleep(0.02)
        url = await self.url_of(owner)
        await self.host.evict(code, url)
        if owner is not None:
            self.counts["handed_over"] += 1
        return owner is not None

    # Figures ---------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Cluster figures for /metrics and /healthz."""
        return {"node": self.id, "url": self.url, "draining": self.draining,
                "claims": len(self.store.held), "refused_writes": self.store.refused,
                "unreplicated_writes": self.store.unreplicated,
                "cpu": round(self.cpu.value, 4),
                "since_renewal": round(time.monotonic() - self._last_renewed, 3),
                **self.counts}


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


def redis_client(url: str) -> Any:
    """An asyncio Redis client for `url`, with timeouts so a hung Redis cannot hang a room."""
    try:
        from redis.asyncio import Redis
    except ImportError:  # pragma: no cover - the cluster extra is not installed
        raise SystemExit("cluster mode needs the redis package: "
                         "pip install 'sussurro[cluster]'") from None
    return Redis.from_url(url, decode_responses=True, socket_timeout=3.0,
                          socket_connect_timeout=3.0, health_check_interval=10)


def node_url(settings: Any) -> str:
    """How clients reach this node: `public_url` ({port} and {worker} filled in), else
    http://HOST:PORT when HOST is a real address."""
    if settings.public_url:
        return settings.public_url.replace("{port}", str(settings.port)).rstrip("/")
    if settings.host in ("", "0.0.0.0", "::"):
        raise SystemExit("cluster mode: --public-url is needed when listening on every "
                         "interface (other nodes send clients there)")
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{host}:{settings.port}"


def build_cluster(settings: Any) -> tuple[RedisStore, Cluster]:
    """The Redis store and the Cluster of a `sussurro serve --redis ...` process."""
    redis = redis_client(settings.redis)
    node_id = settings.node_id or new_node_id(settings.port)
    store = RedisStore(redis, node_id, prefix=settings.redis_prefix,
                       claim_ttl=settings.cluster_ttl,
                       wait_replicas=settings.redis_wait_replicas,
                       wait_ms=settings.redis_wait_ms)
    cluster = Cluster(redis, store, node_id=node_id, url=node_url(settings),
                      ttl=settings.cluster_ttl, ramp=settings.cluster_ramp)
    return store, cluster


__all__ = ["Cluster", "CpuMeter", "NodeLoad", "RoomHost", "StoreUnavailable", "Where",
           "build_cluster", "new_node_id", "node_url", "read_registry", "redis_client"]
