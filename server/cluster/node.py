"""Cluster mode: this node in the Redis registry, its claims, failover and drain.

One `Cluster` per `sussurro serve --redis ...` process. It

- beats: every `ttl / 5` seconds it publishes the node's load (CPU of its
  process, rooms, voice peers) in `node:{id}`, a hash that expires after
  `ttl`, and renews the claims of its rooms (server/storage/redis_fencing.py). A claim
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

The registry entries are server/cluster/membership.py's, the hand-overs
server/cluster/handover.py's; this module runs the beat and the sweep, and
answers where a room is. The rooms themselves stay in server/rooms/registry.py;
it reaches them through the small `RoomHost` interface (server/cluster/host.py). docs/cluster.md
describes the whole method and its failure model.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.cluster.handover import Handovers
from server.cluster.host import RoomHost
from server.cluster.membership import CpuMeter, Membership, new_node_id
from server.cluster.placement import NodeLoad, assign, pick
from server.cluster.tenure import Tenure
from server.storage.redis_keys import Keys
from server.storage.redis_store import RedisStore
from server.storage.seam import NotOwner, StoreUnavailable

log = logging.getLogger(__name__)

# An orphan room left unadopted this many sweeps is taken by whichever node sees it
# (placement disagreed, or its chosen node died too).
STRAY_SWEEPS = 3


@dataclass
class Where:
    """Where a room lives now: `here`, `there` (at `url`), `orphan` (nobody), `gone`."""

    state: str
    url: str | None = None
    node: str | None = None


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
        self.clock = clock
        self.draining = False
        self.secret = ""
        self.membership = Membership(redis, self.keys, node_id=node_id, url=self.url,
                                     ttl=ttl, clock=clock)
        self.membership.on_change = self._nodes_changed
        self.handovers = Handovers(redis, store, self.membership, wait=handover_wait,
                                   poll=self.beat)
        self.host: RoomHost | None = None
        self.counts = {"adopted": 0, "lost": 0, "handed_over": 0, "beats": 0,
                       "beat_failures": 0}
        self._strays: dict[str, int] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = asyncio.Event()  # the beat's cue to end between two beats
        # Whether our claims still hold, asked without Redis (renewals, sleeps, outages).
        self.tenure = Tenure(ttl)
        self._renewing: asyncio.Task[list[str]] | None = None
        self._adopting: set[str] = set()

    # Life ---------------------------------------------------------------------

    async def start(self, host: RoomHost) -> None:
        """Join: the shared secret, the first beat, then the beat and inbox tasks."""
        self.host = host
        self._stopping = asyncio.Event()
        self.membership.cpu = CpuMeter()  # from now: the start-up's imports are not load
        await self.r.set(self.keys.secret(), secrets.token_urlsafe(32), nx=True)
        self.secret = await self.r.get(self.keys.secret())
        await self._publish()
        self._tasks = [asyncio.create_task(self._beat_loop(), name="cluster-beat"),
                       asyncio.create_task(self.tenure.watch(self._stopping), name="watch"),
                       asyncio.create_task(self.handovers.listen(self._stopping, self.adopt),
                                           name="cluster-inbox")]
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
            await self.membership.leave()
        except Exception as exc:  # the entry expires after the ttl anyway
            log.warning("cluster: could not leave the registry: %s", exc)

    # The registry -------------------------------------------------------------

    async def _publish(self) -> None:
        rooms, peers = self.host.figures() if self.host else (0, 0)
        await self.membership.publish(rooms, peers, self.draining)

    async def nodes(self) -> list[NodeLoad]:
        """Every live node (its registry entry has not expired), by id."""
        return await self.membership.nodes()

    def known_urls(self) -> list[str]:
        """The public URLs of the live nodes at the last look (this one at least)."""
        return self.membership.known_urls()

    async def registry(self) -> list[tuple[NodeLoad, dict[str, str]]]:
        """Live nodes with their raw registry fields (pid, beat) for `cluster status`."""
        return await self.membership.rows()

    async def url_of(self, node_id: str | None) -> str | None:
        """A live node's public URL, or None."""
        return await self.membership.url_of(node_id)

    def _nodes_changed(self, urls: list[str]) -> None:
        if self.host is not None:
            self.host.nodes_changed(urls)

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

        The chosen node's published room count goes up at once
        (`Membership.count_room`).
        """
        nodes = await self.nodes()
        me = [n for n in nodes if n.id == self.id]
        if self.draining:
            target = pick(nodes, self.clock(), self.ramp, exclude=[self.id])
        else:
            target = pick(nodes, self.clock(), self.ramp) or (me[0] if me else None)
        if target is not None:
            await self.membership.count_room(target.id)
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

    # Are our claims still ours? ------------------------------------------------------

    def claims_fresh(self) -> bool:
        """Whether our claims hold as far as we can tell without Redis: renewed within a
        claim's life, or the store out of our reach while we stayed awake (tenure.py). If
        not, this node may have slept while others took its rooms over."""
        return self.tenure.held()

    def may_send(self, code: str) -> bool:
        """Room `code` may send (asked each voice tick, so without Redis): our claims hold,
        and hold it (a renewal may find it lost a moment before its unloading)."""
        return code in self.store.held and self.tenure.held()

    async def confirm(self, code: str) -> None:
        """Before a room of ours acts (a timer, a message): if our claims may have lapsed,
        renew them now, and raise NotOwner if `code` is no longer ours (StoreUnavailable
        if Redis cannot say). A woken node thus shows nobody a game that moved on; a room
        found lost and not unloaded yet is refused too (a mere outage lets the room act)."""
        if not self.claims_fresh():
            for other in await self.renew_now():
                if other != code:
                    asyncio.create_task(self.lost(other))
        if code not in self.store.held:
            raise NotOwner(code)

    async def renew_now(self) -> list[str]:
        """Renew every claim (one script, shared by whoever asks meanwhile); the codes lost."""
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.create_task(self._renew())
        return await asyncio.shield(self._renewing)

    async def _renew(self) -> list[str]:
        sent = time.monotonic()
        lost = await self.store.renew()
        self.tenure.renewed(sent)
        return lost

    # The beat --------------------------------------------------------------------

    async def _beat_loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.beat)
            if self._stopping.is_set():
                return
            if not await self.tenure.beat(self.heartbeat):  # (it logs a failure)
                self.counts["beat_failures"] += 1
                await self._cut_off()

    async def heartbeat(self) -> None:
        """One beat: publish our load, renew our claims, adopt our share of orphans."""
        await self._publish()
        await self.nodes()  # keeps known_urls fresh for the welcomes
        lost = await self.renew_now()
        self.counts["beats"] += 1
        for code in lost:
            await self.lost(code)
        # Not for a claim's life after an outage: every claim may have lapsed meanwhile,
        # and their owners must renew before anyone sweeps their rooms away.
        if not self.draining and self.tenure.quiet_for(self.ttl):
            await self.sweep()

    async def _cut_off(self) -> None:
        """A beat failed and our claims no longer hold (we slept, or the store answered with
        an error): others may own our rooms by now (a mere outage keeps them, tenure.py)."""
        if self.claims_fresh() or self.host is None:
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

    async def drain(self, timeout: float = 30.0) -> int:
        """SIGTERM: take no new room, hand every room to another node; how many moved."""
        self.draining = True
        with contextlib.suppress(Exception):
            await self._publish()
        if self.host is None:
            return 0
        return await self.handovers.drain(self.host, self.hand_over, timeout)

    async def hand_over(self, code: str) -> bool:
        """Stop one room, release it, have another node adopt it, send the clients there."""
        assert self.host is not None
        target = pick(await self.nodes(), self.clock(), self.ramp, exclude=[self.id])
        moved = await self.handovers.hand_over(self.host, code, target)
        if moved:
            self.counts["handed_over"] += 1
        return moved

    # Figures ---------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Cluster figures for /metrics and /healthz."""
        return {"node": self.id, "url": self.url, "draining": self.draining,
                "claims": len(self.store.held), "refused_writes": self.store.refused,
                "unreplicated_writes": self.store.unreplicated,
                "cpu": round(self.membership.cpu.value, 4),
                "since_renewal": self.tenure.since_renewal(), "sleeps": self.tenure.slept,
                **self.counts}


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


__all__ = ["Cluster", "NodeLoad", "RoomHost", "StoreUnavailable", "Where", "build_cluster",
           "node_url", "redis_client"]
