"""Ownership in Redis: a node's claims on rooms, and the fenced path every room write takes.

A room belongs to one node at a time through a claim,

    {prefix}room:{code}:claim  = "<node> <token>"   SET with an expiry, renewed
    {prefix}room:{code}:fence  = <token>            INCR at each new owner

and every write of a room runs as one Lua script that first checks that the
fence still holds this node's token (server/storage/redis_scripts.py). A node that
was paused past its claim's expiry and comes back finds a larger token there:
its write fails with `NotOwner` and nothing is written.

Durability is Redis's own (AOF, replicas): docs/cluster.md says what to set.
`wait_replicas` > 0 makes every write wait (at most `wait_ms`) for that many
replicas to have it before the room shows its effect.
"""

from __future__ import annotations

from typing import Any

from redis import exceptions as rexc
from redis.asyncio import Redis

from server.storage import redis_scripts as S
from server.storage.redis_keys import DEFAULT_PREFIX, Keys
from server.storage.seam import NotOwner, StoreUnavailable


def unreachable(exc: BaseException) -> bool:
    """Whether `exc` says that the store could not be reached (this client's connection was
    refused, reset or timed out, or Redis is still loading its data), rather than that it
    answered with an error."""
    return isinstance(exc, (StoreUnavailable, rexc.ConnectionError, rexc.TimeoutError, OSError))


class FencedRedis:
    """One node's claims on rooms and its fenced writes (the base of `RedisStore`).

    `held` maps each room this node has claimed to its fencing token; the
    cluster (server/cluster/node.py) claims, renews and releases through the
    methods below; the rows above it write through `_fenced` and read through `_read`.
    """

    def __init__(self, redis: Redis, node_id: str, *, prefix: str = DEFAULT_PREFIX,
                 claim_ttl: float = 5.0, closed_ttl: float = 7 * 86400.0,
                 wait_replicas: int = 0, wait_ms: int = 100) -> None:
        self.r = redis
        self.node_id = node_id
        self.keys = Keys(prefix)
        self.claim_ttl_ms = max(1, int(claim_ttl * 1000))
        self.closed_ttl = max(1, int(closed_ttl))
        self.wait_replicas = wait_replicas
        self.wait_ms = wait_ms
        self.held: dict[str, int] = {}
        self.refused = 0        # writes refused because another node owns the room
        self.unreplicated = 0   # writes that did not reach `wait_replicas` replicas in time
        self._scripts = {name: redis.register_script(getattr(S, name)) for name in (
            "CLAIM", "CREATE", "RENEW", "RELEASE", "DROP_DEAD", "HSET", "HDEL", "ADD_PLAYER", "START_GAME",
            "APPEND", "END_GAME", "CLOSE", "ADD_SPECTATOR", "REMOVE_SPECTATOR")}

    # Plumbing ---------------------------------------------------------------

    async def _run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        try:
            return await self._scripts[name](keys=keys, args=args)
        except (rexc.ConnectionError, rexc.TimeoutError) as exc:
            raise StoreUnavailable(f"redis: {exc}") from exc

    async def _fenced(self, code: str, name: str, keys: list[str], args: list[Any]) -> Any:
        """Run a fenced script with our token for `code`; NotOwner if it is not ours."""
        token = self.held.get(code)
        if token is None:
            self.refused += 1
            raise NotOwner(code, f"room {code} is not claimed by this node")
        try:
            result = await self._run(name, [self.keys.fence(code), *keys], [token, *args])
        except rexc.ResponseError as exc:
            if str(exc).startswith("NOTOWNER"):
                self.refused += 1
                self.held.pop(code, None)
                raise NotOwner(code) from None
            raise
        if self.wait_replicas > 0:
            await self._wait_replicas()
        return result

    async def _wait_replicas(self) -> None:
        try:
            acked = await self.r.execute_command("WAIT", self.wait_replicas, self.wait_ms)
        except (rexc.ConnectionError, rexc.TimeoutError) as exc:
            raise StoreUnavailable(f"redis: {exc}") from exc
        if int(acked) < self.wait_replicas:
            self.unreplicated += 1

    async def _read(self, coro: Any) -> Any:
        try:
            return await coro
        except (rexc.ConnectionError, rexc.TimeoutError) as exc:
            raise StoreUnavailable(f"redis: {exc}") from exc

    # Claims -----------------------------------------------------------------

    async def claim(self, code: str) -> int | None:
        """Take an unclaimed room: our new fencing token, or None (held elsewhere, or gone)."""
        k = self.keys
        token = int(await self._run("CLAIM", [k.claim(code), k.fence(code), k.room(code)],
                                    [self.node_id, self.claim_ttl_ms]))
        if token <= 0:
            return None
        self.held[code] = token
        return token

    async def renew(self) -> list[str]:
        """Extend every claim we hold; the codes of rooms we turn out to have lost."""
        codes = list(self.held)
        if not codes:
            return []
        keys: list[str] = []
        for code in codes:
            keys += [self.keys.claim(code), self.keys.fence(code)]
        kept = await self._run("RENEW", keys,
                               [self.claim_ttl_ms, self.node_id, *(self.held[c] for c in codes)])
        lost = [code for code, ok in zip(codes, kept, strict=True) if not int(ok)]
        for code in lost:
            self.held.pop(code, None)
        return lost

    async def release(self, code: str) -> bool:
        """Give a room up (hand-over, close): True if the claim was still ours."""
        token = self.held.pop(code, None)
        if token is None:
            return False
        return bool(int(await self._run("RELEASE", [self.keys.claim(code)],
                                        [self.node_id, token])))

    async def drop_dead(self, code: str, node: str) -> bool:
        """Drop `node`'s claim on a room because that node is dead: True if it held it."""
        return bool(int(await self._run("DROP_DEAD", [self.keys.claim(code)], [node])))

    def forget(self, code: str) -> None:
        """Stop renewing a room's claim without touching Redis (it lapses by itself)."""
        self.held.pop(code, None)

    async def owner(self, code: str) -> tuple[str, int] | None:
        """(node id, token) of the room's current claim, or None when nobody holds it."""
        raw = await self._read(self.r.get(self.keys.claim(code)))
        if not raw:
            return None
        node, _, token = raw.rpartition(" ")
        return node, int(token)

    async def owners(self, codes: list[str]) -> dict[str, str | None]:
        """The node holding each room's claim (None: unclaimed), in one round trip."""
        if not codes:
            return {}
        raws = await self._read(self.r.mget([self.keys.claim(c) for c in codes]))
        return {c: (raw.rpartition(" ")[0] if raw else None)
                for c, raw in zip(codes, raws, strict=True)}
