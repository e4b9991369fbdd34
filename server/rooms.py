"""Every loaded room by code: create, find by token, restore after a restart, expire.

The rooms themselves are actors (server/room.py); this registry only creates,
looks up and retires them, and sums their figures for /metrics.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import Callable
from typing import Any

import game
from game.errors import GameError
from server import protocol as P
from server.codes import hash_token, new_room_code
from server.config import Settings
from server.room import CLOSED, PLAYING, Room
from server.seats import COLOR_RE, IN_ROOM, KICKED, RoomError, clean_name
from server.store import Store

__all__ = ["Rooms", "Room", "RoomError"]

log = logging.getLogger(__name__)


class Rooms:
    """Every loaded room, by code; creates, finds, restores and expires them."""

    def __init__(self, store: Store, settings: Settings,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.rooms: dict[str, Room] = {}
        # Who created each live room (a client address), for the per-address cap. Kept in
        # memory only: after a restart the restored rooms count for nobody.
        self.creators: dict[str, str] = {}
        self._janitor: asyncio.Task[None] | None = None

    async def restore(self) -> int:
        """Rebuild every live room from the store; returns how many."""
        for row in self.store.live_rooms():
            room = Room(row.code, self.store, self.settings, self.clock)
            try:
                room.load()
            except Exception:
                log.exception("room %s could not be restored", row.code)
                continue
            room.start()
            self.rooms[row.code] = room
        self._janitor = asyncio.create_task(self._expire_loop())
        return len(self.rooms)

    async def close(self) -> None:
        """Stop every room (server shutdown); the store keeps them for the next start."""
        if self._janitor:
            self._janitor.cancel()
        for room in list(self.rooms.values()):
            await room.stop()
        self.rooms.clear()

    def get(self, code: str) -> Room | None:
        return self.rooms.get(code)

    async def create(self, name: str, color: str | None, preset: str | None,
                     lang: str | None, address: str | None = None) -> tuple[Room, str, str]:
        """A new room with its creator as host: (room, player id, token).

        `address`: the creator's client address; one address may have at most
        `max_rooms_per_address` live rooms (429 `too_many_rooms_here`).
        """
        preset = preset or "intruso"
        if preset not in game.PRESETS:
            raise RoomError(422, "bad_preset", f"unknown preset {preset!r}")
        clean_name(name)  # refuse a bad name before creating anything
        if color is not None and not COLOR_RE.fullmatch(color):
            raise RoomError(422, "bad_color", "a colour is #rrggbb")
        if len(self.rooms) >= self.settings.max_rooms:
            raise RoomError(503, "too_many_rooms", "the server is full; try again later")
        if address is not None and sum(1 for a in self.creators.values() if a == address) \
                >= self.settings.max_rooms_per_address:
            raise RoomError(429, "too_many_rooms_here",
                            "this address already has its share of open rooms")
        options = game.default_options(preset)
        if lang:
            try:
                options = game.validate_options(preset, {**options, "lang": lang}, 0)
            except GameError as exc:
                raise RoomError(422, "bad_lang", exc.message) from None
        now = self.clock()
        for _ in range(20):
            code = new_room_code()
            if code not in self.rooms and self.store.create_room(
                    code, now, {"preset": preset, "options": options}):
                break
        else:
            raise RoomError(503, "no_code", "could not allocate a room code")
        room = Room(code, self.store, self.settings, self.clock)
        room.preset, room.options = preset, options
        room.start()
        self.rooms[code] = room
        if address is not None:
            self.creators[code] = address
        pid, token = await room.call(room.cmd_add_member, name, color)
        return room, pid, token

    def resolve(self, token: str) -> tuple[Room, str] | str:
        """The room and player of a token, or an error code (bad_token, kicked, left)."""
        if not token or len(token) > 200:
            return P.BAD_TOKEN
        found = self.store.find_token(hash_token(token))
        if found is None:
            return P.BAD_TOKEN
        code, pid, kicked = found
        if kicked != IN_ROOM:
            return P.KICKED if kicked == KICKED else P.LEFT
        room = self.rooms.get(code)
        if room is None:
            return P.BAD_TOKEN
        return room, pid

    async def _expire_loop(self) -> None:
        while True:
            await asyncio.sleep(60)
            try:
                await self.expire(self.clock())
            except Exception:  # the janitor must outlive a bad room
                log.exception("room expiry failed")

    async def expire(self, now: float) -> list[str]:
        """Close rooms nobody has used for `room_idle_ttl`, and empty ones; their codes."""
        closed = []
        for code, room in list(self.rooms.items()):
            idle = not room._any_online() and now - room.last_activity > \
                self.settings.room_idle_ttl
            # An empty room is closed too, once past its first minute (creation is two steps).
            if idle or (not room.members and now - room.created > 60):
                await self.close_room(code)
                closed.append(code)
        return closed

    async def close_room(self, code: str) -> None:
        """Close a room for good (nobody comes back): unload it, mark it closed."""
        room = self.rooms.pop(code, None)
        self.creators.pop(code, None)
        if room is None:
            return
        await room.stop(P.CLOSE_ROOM_CLOSED)
        self.store.set_status(code, CLOSED, self.clock())

    def stats(self) -> dict[str, Any]:
        """Counts for /metrics, plus each room voice's own stats."""
        players = sum(len(r.members) for r in self.rooms.values())
        online = sum(1 for r in self.rooms.values() for m in r.members.values() if m.online)
        playing = sum(1 for r in self.rooms.values() if r.status == PLAYING)
        voices = [v for v in (r.voice.stats() for r in self.rooms.values()) if v is not None]
        guard = sys.modules.get("server.iceguard")  # loaded with the voice layer, if at all
        return {"rooms": len(self.rooms), "rooms_playing": playing, "players": players,
                "players_online": online, "voices": voices,
                "db_changes": self.store.db.total_changes,
                "ice_refused": guard.refused_candidates[0] if guard is not None else 0}
