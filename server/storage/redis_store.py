"""The room store of cluster mode: records, seats and the action log in Redis, fenced.

Same rows as the SQLite store (server/storage/sqlite.py) behind the same async seam
(server/storage/seam.py), so a room actor does not know which one it has. What is
new is ownership: a room belongs to one node at a time through a claim, and
every write of a room is fenced by the owner's token (server/storage/redis_fencing.py).
The games and their action logs are server/storage/redis_log.py's; the key
names server/storage/redis_keys.py's; this module keeps the room's record, its
seats, spectators, bans and devices.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from redis import exceptions as rexc

from server.storage.redis_keys import DEFAULT_PREFIX, Keys, dumps
from server.storage.redis_log import GameLog
from server.storage.seam import PlayerRow, RoomRow

__all__ = ["DEFAULT_PREFIX", "Keys", "RedisStore"]


class RedisStore(GameLog):
    """Rooms in Redis for one node: reads from anywhere, writes only to rooms it owns.

    Its claims and fenced writes are `FencedRedis`'s, its games and logs
    `GameLog`'s; the room actors read and write through the seam's methods.
    """

    # Rooms ------------------------------------------------------------------

    async def create_room(self, code: str, now: float, settings: dict[str, Any]) -> bool:
        """A new room in the lobby, claimed by this node at once; False if the code is taken."""
        k = self.keys
        token = int(await self._run(
            "CREATE", [k.claim(code), k.fence(code), k.room(code), k.rooms()],
            [self.node_id, self.claim_ttl_ms, code, repr(now), dumps(settings)]))
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
        await self._hset(code, self.keys.room(code), "settings", dumps(settings))

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
        body = dumps({"id": player.id, "name": player.name, "color": player.color,
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
        body = dumps({"joined": now, "token_hash": token_hash})
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
    async def close(self) -> None:
        """Nothing of its own to close: the cluster owns the connection."""


def _room(code: str, h: dict[str, str]) -> RoomRow:
    return RoomRow(code, float(h["created"]), json.loads(h["settings"]), h.get("host") or None,
                   h["status"], float(h["updated"]))
