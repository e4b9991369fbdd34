"""Every loaded room by code: create, find by token, restore after a restart, expire.

The rooms themselves are actors (server/rooms/room.py); this registry only creates,
looks up and retires them, and sums their figures for /metrics. In cluster
mode it is also the cluster's `RoomHost` (server/cluster/host.py): it adopts rooms
the node has claimed, and freezes or evicts the ones that move away.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any

import game
from game.errors import GameError
from server.config import Settings
from server.rooms.codes import hash_token, new_room_code
from server.rooms.room import CLOSED, PLAYING, Room
from server.rooms.seats import COLOR_RE, IN_ROOM, KICKED, RoomError, clean_name
from server.storage.seam import RoomStore, as_room_store
from server.storage.sqlite import Store
from server.wire import connection
from server.wire import protocol as P

__all__ = ["Rooms", "Room", "RoomError"]

log = logging.getLogger(__name__)


class Rooms:
    """Every loaded room, by code; creates, finds, restores and expires them."""

    def __init__(self, store: Store | RoomStore, settings: Settings,
                 clock: Callable[[], float] = time.time, cluster: Any = None) -> None:
        """`store`: a SQLite Store (wrapped in the async seam) or any RoomStore;
        `cluster`: the node's server.cluster.node.Cluster in cluster mode, else None."""
        self.store = as_room_store(store)
        self.settings = settings
        self.clock = clock
        self.cluster = cluster
        self.rooms: dict[str, Room] = {}
        # Who created each live room (a client address), for the per-address cap. Kept in
        # memory only: after a restart the restored rooms count for nobody.
        self.creators: dict[str, str] = {}
        self._janitor: asyncio.Task[None] | None = None
        self._evicting: set[asyncio.Task[None]] = set()

    async def restore(self) -> int:
        """Rebuild every live room from the store; returns how many.

        In cluster mode nothing is loaded here: the rooms belong to whichever
        node claims them, and this node's sweeper adopts its share.
        """
        if self.cluster is None:
            for row in await self.store.live_rooms():
                await self._load(row.code)
        self._janitor = asyncio.create_task(self._expire_loop())
        return len(self.rooms)

    def _new_room(self, code: str) -> Room:
        room = Room(code, self.store, self.settings, self.clock, on_lost=self._on_lost)
        if self.cluster is not None:
            cluster = self.cluster
            # Where a client looks for its room again if this node goes away.
            room.welcome_extra = lambda: {"node": cluster.url, "nodes": cluster.known_urls()}
            # A node that slept past its claims checks them before its rooms act (issue 33).
            room.confirm = cluster.confirm
            # The voice loop and its mouths run outside the commands: a local check per tick.
            room.may_send = lambda: cluster.may_send(code)
        return room

    async def _load(self, code: str) -> Room | None:
        room = self._new_room(code)
        try:
            await room.load()
        except Exception:
            log.exception("room %s could not be restored", code)
            return None
        room.start()
        self.rooms[code] = room
        return room

    async def close(self) -> None:
        """Stop every room (server shutdown); the store keeps them for the next start."""
        if self._janitor:
            self._janitor.cancel()
        for task in list(self._evicting):
            with contextlib.suppress(BaseException):
                await task
        for room in list(self.rooms.values()):
            await room.stop()
        self.rooms.clear()

    def get(self, code: str) -> Room | None:
        return self.rooms.get(code)

    async def create(self, name: str, color: str | None, preset: str | None,
                     lang: str | None, address: str | None = None,
                     device: str = "") -> tuple[Room, str, str]:
        """A new room with its creator as host: (room, player id, token).

        `address`: the creator's client address; one address may have at most
        `max_rooms_per_address` live rooms (429 `too_many_rooms_here`); `device`: the
        hash of the creator's device cookie (a later ban of the seat names it).
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
            if code not in self.rooms and await self.store.create_room(
                    code, now, {"preset": preset, "options": options}):
                break
        else:
            raise RoomError(503, "no_code", "could not allocate a room code")
        room = self._new_room(code)
        room.preset, room.options = preset, options
        room.start()
        self.rooms[code] = room
        if address is not None:
            self.creators[code] = address
        pid, token = await room.call(room.cmd_add_member, name, color, device)
        return room, pid, token

    async def resolve(self, token: str) -> tuple[Room | str, str] | str:
        """The room and player (or spectator) of a token, or an error code (bad_token,
        kicked, left).

        In cluster mode a seat of a room not running here resolves to
        (its code, player id): the caller finds out where it runs.
        """
        if not token or len(token) > 200:
            return P.BAD_TOKEN
        found = await self.store.find_token(hash_token(token))
        if found is None:
            watching = await self.store.find_spectator(hash_token(token))
            if watching is None:
                return P.BAD_TOKEN
            found = (*watching, IN_ROOM)  # a spectator pass: its room and id
        code, pid, kicked = found
        if kicked != IN_ROOM:
            return P.KICKED if kicked == KICKED else P.LEFT
        room = self.rooms.get(code)
        if room is None:
            return (code, pid) if self.cluster is not None else P.BAD_TOKEN
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
        await self.store.set_status(code, CLOSED, self.clock())

    # Cluster mode: the cluster's RoomHost (server/cluster/host.py) ----------------

    def loaded(self) -> list[str]:
        """Codes of the rooms running on this node."""
        return list(self.rooms)

    def figures(self) -> tuple[int, int]:
        """(rooms, voice peers) for the registry."""
        peers = 0
        for room in self.rooms.values():
            stats = room.voice.stats()
            peers += int(stats.get("peers", 0)) if stats else 0
        return len(self.rooms), peers

    async def adopt(self, code: str) -> bool:
        """Serve a room this node has just claimed: rebuilt from the store by replay."""
        if code in self.rooms:
            return True
        return await self._load(code) is not None

    async def freeze(self, code: str) -> None:
        """Stop a room that is moving (no more writes); its sockets wait for `evict`."""
        room = self.rooms.get(code)
        if room is not None:
            await room.freeze(moving=True)

    async def evict(self, code: str, url: str | None) -> None:
        """Send a room's clients to the node at `url` (4010 + `moved`) and unload it."""
        room = self.rooms.pop(code, None)
        if room is not None:
            await room.stop(P.CLOSE_MOVED, url)

    def nodes_changed(self, urls: list[str]) -> None:
        """Every client learns the live nodes (`nodes`), to find its room if this node dies;
        not the clients of a room this node may no longer hold (a node woken from a pause
        sends them nothing before `moved`, issue 33)."""
        text = json.dumps({"type": "nodes", "nodes": urls}, separators=(",", ":"))
        for room in self.rooms.values():
            if room.sending_allowed():
                room._send_all(text)

    def _on_lost(self, code: str) -> None:
        # From inside the room's actor: the eviction must run outside it.
        async def lost() -> None:
            if self.cluster is not None:
                await self.cluster.lost(code)
            else:
                await self.evict(code, None)

        task = asyncio.create_task(lost())
        self._evicting.add(task)
        task.add_done_callback(self._evicting.discard)

    def stats(self) -> dict[str, Any]:
        """Counts for /metrics, plus each room voice's own stats."""
        players = sum(len(r.members) for r in self.rooms.values())
        online = sum(1 for r in self.rooms.values() for m in r.members.values() if m.online)
        playing = sum(1 for r in self.rooms.values() if r.status == PLAYING)
        voices = [v for v in (r.voice.stats() for r in self.rooms.values()) if v is not None]
        guard = sys.modules.get("server.media.iceguard")  # loaded with the voice layer, if at all
        db = getattr(getattr(self.store, "sync", None), "db", None)  # SQLite only
        return {"rooms": len(self.rooms), "rooms_playing": playing, "players": players,
                "players_online": online, "voices": voices,
                "db_changes": db.total_changes if db is not None else 0,
                "ice_refused": guard.refused_candidates[0] if guard is not None else 0,
                "ws_messages": dict(connection.MESSAGES),
                "lemma_languages": len(game.dictionaries_read())}
