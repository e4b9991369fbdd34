"""The room store of cluster mode: records, seats and the action log in Redis, fenced.

Same rows as the SQLite store (server/storage/sqlite.py) behind the same async seam
(server/storage/seam.py), so a room actor does not know which one it has. What is
new is ownership: a room belongs to one node at a time through a claim,

    {prefix}room:{code}:claim  = "<node> <token>"   SET with an expiry, renewed
    {prefix}room:{code}:fence  = <token>            INCR at each new owner

and every write of a room runs as one Lua script that first checks that the
fence still holds this node's token (server/storage/redis_scripts.py). A node that
was paused past its claim's expiry and comes back finds a larger token there:
its write fails with `NotOwner` and nothing is written.

Keys (all under `prefix`, "sussurro:" by default):

    rooms                    sorted set: live room codes by creation time
    room:{code}              hash: created, settings (JSON), host, status, updated
    room:{code}:players      hash: pid -> {id, name, color, seat, joined} (JSON)
    room:{code}:kicked       hash: pid -> 0 in the room, 1 kicked, 2 left
    room:{code}:tokens       hash: pid -> sha256(token)
    token:{sha256}           "code pid" (the token itself is never stored), or
                             "code sid" for a spectator's pass
    room:{code}:spectators   hash: sid -> {joined, token_hash} (JSON)
    room:{code}:bans         hash: banned name -> since
    room:{code}:ban_devices  hash: banned device (sha256 of its cookie) -> banned name
    room:{code}:devices      hash: pid or sid -> the device (sha256) that took it
    room:{code}:games        hash: n -> {preset, options, seed, players, started_at, pair}
    room:{code}:ended        hash: n -> {ended_at, result} (the result holds the points)
    room:{code}:log:{n}      list: game n's accepted actions {seq, t, player, action},
                             append-only (a write must name the next index)

Durability is Redis's own (AOF, replicas): docs/cluster.md says what to set.
`wait_replicas` > 0 makes every write wait (at most `wait_ms`) for that many
replicas to have it before the room shows its effect.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from redis import exceptions as rexc
from redis.asyncio import Redis

from server.storage import redis_scripts as S
from server.storage.seam import (
    ActionRow,
    GameRow,
    NotOwner,
    PlayerRow,
    RoomRow,
    StoreUnavailable,
)

log = logging.getLogger(__name__)

DEFAULT_PREFIX = "sussurro:"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


class Keys:
    """Every key name of the cluster, in one place."""

    def __init__(self, prefix: str = DEFAULT_PREFIX) -> None:
        self.prefix = prefix

    def rooms(self) -> str:
        return f"{self.prefix}rooms"

    def room(self, code: str) -> str:
        return f"{self.prefix}room:{code}"

    def claim(self, code: str) -> str:
        return f"{self.prefix}room:{code}:claim"

    def fence(self, code: str) -> str:
        return f"{self.prefix}room:{code}:fence"

    def players(self, code: str) -> str:
        return f"{self.prefix}room:{code}:players"

    def kicked(self, code: str) -> str:
        return f"{self.prefix}room:{code}:kicked"

    def tokens(self, code: str) -> str:
        return f"{self.prefix}room:{code}:tokens"

    def token(self, token_hash: str) -> str:
        return f"{self.prefix}token:{token_hash}"

    def spectators(self, code: str) -> str:
        return f"{self.prefix}room:{code}:spectators"

    def bans(self, code: str) -> str:
        return f"{self.prefix}room:{code}:bans"

    def ban_devices(self, code: str) -> str:
        return f"{self.prefix}room:{code}:ban_devices"

    def devices(self, code: str) -> str:
        return f"{self.prefix}room:{code}:devices"

    def games(self, code: str) -> str:
        return f"{self.prefix}room:{code}:games"

    def ended(self, code: str) -> str:
        return f"{self.prefix}room:{code}:ended"

    def log(self, code: str, n: int) -> str:
        return f"{self.prefix}room:{code}:log:{n}"

    def node(self, node_id: str) -> str:
        return f"{self.prefix}node:{node_id}"

    def left(self, node_id: str) -> str:
        """A node that has left the cluster: its registry entry is not written again."""
        return f"{self.prefix}left:{node_id}"

    def nodes(self) -> str:
        return f"{self.prefix}nodes"

    def inbox(self, node_id: str) -> str:
        return f"{self.prefix}inbox:{node_id}"

    def secret(self) -> str:
        return f"{self.prefix}secret"


class RedisStore:
    """Rooms in Redis for one node: reads from anywhere, writes only to rooms it owns.

    `held` maps each room this node has claimed to its fencing token; the
    cluster (server/cluster/node.py) claims, renews and releases through the
    methods below, the room actors read and write through the seam's.
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
            "CLAIM", "CREATE", "RENEW", "RELEASE", "HSET", "HDEL", "ADD_PLAYER", "START_GAME",
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

    # Rooms ------------------------------------------------------------------

    async def create_room(self, code: str, now: float, settings: dict[str, Any]) -> bool:
        """A new room in the lobby, claimed by this node at once; False if the code is taken."""
        k = self.keys
        token = int(await self._run(
            "CREATE", [k.claim(code), k.fence(code), k.room(code), k.rooms()],
            [self.node_id, self.claim_ttl_ms, code, repr(now), _dumps(settings)]))
        if token <= 0:
            return False
        self.held[code] = token
        return True

    async def room(self, code: str) -> RoomRow | None:
        h = await self._read(self.r.hgetall(self.keys.room(code)))
        return _room(code, h) if h else None

    async def live_rooms(self) -> list[RoomRow]:
        """Every room not closed, oldest first."""
        codes = await self._read(self.r.zrange(self.keys.rooms(), 0, -1))
        if not codes:
            return []
        async with self.r.pipeline(transaction=False) as pipe:
            for code in codes:
                pipe.hgetall(self.keys.room(code))
            rows = await self._read(pipe.execute())
        return [_room(c, h) for c, h in zip(codes, rows, strict=True)
                if h and h.get("status") != "closed"]

    async def live_codes(self) -> list[str]:
        """The codes of the live rooms (cheaper than live_rooms for the sweeper)."""
        return list(await self._read(self.r.zrange(self.keys.rooms(), 0, -1)))

    async def _hset(self, code: str, key: str, *pairs: Any) -> None:
        await self._fenced(code, "HSET", [key], list(pairs))

    async def set_host(self, code: str, host: str | None) -> None:
        await self._hset(code, self.keys.room(code), "host", host or "")

    async def set_settings(self, code: str, settings: dict[str, Any]) -> None:
        await self._hset(code, self.keys.room(code), "settings", _dumps(settings))

    async def set_status(self, code: str, status: str, now: float) -> None:
        if status != "closed":
            await self._hset(code, self.keys.room(code), "status", status, "updated", repr(now))
            return
        # Closed for good: out of the live index, the claim dropped, every key expiring.
        k = self.keys
        n = int(await self._read(self.r.hlen(k.games(code))))
        hashes = await self._read(self.r.hvals(k.tokens(code)))
        hashes += [json.loads(raw)["token_hash"] for raw in
                   await self._read(self.r.hvals(k.spectators(code)))]
        keys = [k.room(code), k.rooms(), k.claim(code), k.players(code), k.kicked(code),
                k.tokens(code), k.spectators(code), k.bans(code), k.ban_devices(code),
                k.devices(code), k.games(code), k.ended(code),
                *(k.log(code, i) for i in range(1, n + 1)), *(k.token(h) for h in hashes)]
        await self._fenced(code, "CLOSE", keys, [repr(now), code, self.closed_ttl])
        self.held.pop(code, None)

    async def touch(self, code: str, now: float) -> None:
        await self._hset(code, self.keys.room(code), "updated", repr(now))

    # Players ----------------------------------------------------------------

    async def add_player(self, code: str, player: PlayerRow, token_hash: str) -> None:
        k = self.keys
        body = _dumps({"id": player.id, "name": player.name, "color": player.color,
                       "seat": player.seat, "joined": player.joined})
        try:
            await self._fenced(code, "ADD_PLAYER",
                               [k.room(code), k.players(code), k.kicked(code), k.tokens(code),
                                k.token(token_hash)],
                               [player.id, body, player.kicked, token_hash,
                                f"{code} {player.id}"])
        except rexc.ResponseError as exc:
            if str(exc).startswith("TOKEN_TAKEN"):
                raise ValueError("token hash already seated") from None
            raise

    async def players(self, code: str) -> list[PlayerRow]:
        """Every player ever seated in the room (kicked and left included), by seat."""
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.hgetall(self.keys.players(code))
            pipe.hgetall(self.keys.kicked(code))
            rows, kicked = await self._read(pipe.execute())
        out = []
        for pid, raw in rows.items():
            p = json.loads(raw)
            out.append(PlayerRow(p["id"], p["name"], p["color"], int(p["seat"]),
                                 int(kicked.get(pid, 0)), float(p["joined"])))
        return sorted(out, key=lambda p: p.seat)

    async def set_kicked(self, code: str, pid: str, kicked: int) -> None:
        await self._hset(code, self.keys.kicked(code), pid, kicked)

    async def find_token(self, token_hash: str) -> tuple[str, str, int] | None:
        """(room code, player id, kicked) for a token hash, or None."""
        raw = await self._read(self.r.get(self.keys.token(token_hash)))
        if not raw:
            return None
        code, _, pid = raw.partition(" ")
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.hget(self.keys.tokens(code), pid)
            pipe.hget(self.keys.kicked(code), pid)
            seated_hash, kicked = await self._read(pipe.execute())
        if seated_hash != token_hash:  # a leftover of an expired room
            return None
        return code, pid, int(kicked or 0)

    # Spectators: passes without a seat (a shared screen) --------------------

    async def add_spectator(self, code: str, sid: str, token_hash: str, now: float) -> None:
        k = self.keys
        body = _dumps({"joined": now, "token_hash": token_hash})
        try:
            await self._fenced(code, "ADD_SPECTATOR", [k.spectators(code), k.token(token_hash)],
                               [sid, body, f"{code} {sid}"])
        except rexc.ResponseError as exc:
            if str(exc).startswith("TOKEN_TAKEN"):
                raise ValueError("token hash already in use") from None
            raise

    async def spectators(self, code: str) -> list[tuple[str, float]]:
        """(id, joined) of the room's spectators, oldest first."""
        rows = await self._read(self.r.hgetall(self.keys.spectators(code)))
        out = [(sid, float(json.loads(raw)["joined"])) for sid, raw in rows.items()]
        return sorted(out, key=lambda s: (s[1], s[0]))

    async def remove_spectator(self, code: str, sid: str) -> None:
        k = self.keys
        raw = await self._read(self.r.hget(k.spectators(code), sid))
        if raw is None:
            return
        await self._fenced(code, "REMOVE_SPECTATOR",
                           [k.spectators(code), k.token(json.loads(raw)["token_hash"])], [sid])

    async def find_spectator(self, token_hash: str) -> tuple[str, str] | None:
        """(room code, spectator id) for a token hash, or None."""
        raw = await self._read(self.r.get(self.keys.token(token_hash)))
        if not raw:
            return None
        code, _, sid = raw.partition(" ")
        body = await self._read(self.r.hget(self.keys.spectators(code), sid))
        if body is None or json.loads(body)["token_hash"] != token_hash:
            return None  # a player's token, or a leftover of an expired room
        return code, sid

    # Bans: names the host kicked, kept out until let back in ----------------

    async def add_ban(self, code: str, name: str, now: float,
                      devices: Iterable[str] = ()) -> None:
        await self._hset(code, self.keys.bans(code), name, repr(now))
        pairs = [x for d in devices for x in (d, name)]
        if pairs:
            await self._hset(code, self.keys.ban_devices(code), *pairs)

    async def remove_ban(self, code: str, name: str) -> None:
        k = self.keys
        await self._fenced(code, "HDEL", [k.bans(code)], [name])
        banned = await self.banned_devices(code)
        devices = [d for d, n in banned.items() if n == name]
        if devices:
            await self._fenced(code, "HDEL", [k.ban_devices(code)], devices)

    async def banned_devices(self, code: str) -> dict[str, str]:
        """The devices (hashes) a ban keeps out of the room: device -> banned name."""
        return dict(await self._read(self.r.hgetall(self.keys.ban_devices(code))))

    # Devices: which browser took each seat and pass (so a ban can name it) ---

    async def set_device(self, code: str, who: str, device: str) -> None:
        await self._hset(code, self.keys.devices(code), who, device)

    async def devices(self, code: str) -> dict[str, str]:
        """Seat or pass id -> the hash of the device that took it."""
        return dict(await self._read(self.r.hgetall(self.keys.devices(code))))

    async def bans(self, code: str) -> list[str]:
        """The banned names of a room, oldest first."""
        rows = await self._read(self.r.hgetall(self.keys.bans(code)))
        return [name for _, name in sorted((float(t), n) for n, t in rows.items())]

    # Games and the action log ------------------------------------------------

    async def start_game(self, code: str, game: GameRow) -> None:
        body = _dumps({"preset": game.preset, "options": game.options, "seed": game.seed,
                       "players": game.players, "started_at": game.started_at,
                       "pair": game.pair})
        k = self.keys
        await self._fenced(code, "START_GAME", [k.room(code), k.games(code)],
                           [game.n, body, repr(game.started_at)])

    async def append_action(self, code: str, n: int, action: ActionRow) -> None:
        """Append one accepted action; in Redis (and fenced) when this returns."""
        body = _dumps(asdict(action))
        try:
            await self._fenced(code, "APPEND", [self.keys.log(code, n)], [action.seq, body])
        except rexc.ResponseError as exc:
            if str(exc).startswith("SEQ"):
                raise ValueError(f"room {code} game {n}: seq {action.seq} is not next "
                                 f"({exc})") from None
            raise

    async def end_game(self, code: str, n: int, now: float, result: Any) -> None:
        """Close a game: its result (with its points), the room back to 'over'."""
        k = self.keys
        await self._fenced(code, "END_GAME", [k.room(code), k.ended(code)],
                           [n, _dumps({"ended_at": now, "result": result}), repr(now)])

    async def last_game(self, code: str) -> GameRow | None:
        k = self.keys
        n = int(await self._read(self.r.hlen(k.games(code))))
        if n == 0:
            return None
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.hget(k.games(code), str(n))
            pipe.hget(k.ended(code), str(n))
            raw, ended = await self._read(pipe.execute())
        g = json.loads(raw)
        e = json.loads(ended) if ended else {"ended_at": None, "result": None}
        return GameRow(n, g["preset"], g["options"], int(g["seed"]), g["players"],
                       float(g["started_at"]), e["ended_at"], e["result"], g.get("pair"))

    async def actions(self, code: str, n: int) -> list[ActionRow]:
        """The accepted actions of one game, in order."""
        rows = await self._read(self.r.lrange(self.keys.log(code, n), 0, -1))
        out = []
        for raw in rows:
            a = json.loads(raw)
            out.append(ActionRow(int(a["seq"]), float(a["t"]), a["player"], a["action"]))
        return out

    async def results(self, code: str) -> list[Any]:
        """The results of the room's finished games, oldest first (the evening)."""
        rows = await self._read(self.r.hgetall(self.keys.ended(code)))
        ended = sorted((int(n), json.loads(raw)) for n, raw in rows.items())
        return [e["result"] for _, e in ended if e.get("result")]

    async def close(self) -> None:
        """Nothing of its own to close: the cluster owns the connection."""


def _room(code: str, h: dict[str, str]) -> RoomRow:
    return RoomRow(code, float(h["created"]), json.loads(h["settings"]), h.get("host") or None,
                   h["status"], float(h["updated"]))
