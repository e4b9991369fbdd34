"""The store seam: one async interface for the room actors, two stores behind it.

A room actor awaits its store: `SqliteRoomStore` (the embedded default) runs
each call inline on the SQLite file of server/storage/sqlite.py, so an await there never
yields and the single-process server behaves exactly as before; the Redis store
of cluster mode (server/storage/redis_store.py) goes over the network and fences every
write with the room's claim (see docs/cluster.md).

Both raise the same errors: `NotOwner` when this process no longer owns the
room it writes to (another node took it over: nothing was written), and
`StoreUnavailable` when the store cannot be reached (nothing was written
either, as far as this node knows).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from server.storage.sqlite import ActionRow, GameRow, PlayerRow, RoomRow, Store

__all__ = [
    "ActionRow",
    "GameRow",
    "NotOwner",
    "PlayerRow",
    "RoomRow",
    "RoomStore",
    "SqliteRoomStore",
    "StoreUnavailable",
    "as_room_store",
]


class NotOwner(Exception):
    """A write to a room this node no longer owns (its fencing token is stale)."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(message or f"room {code} is owned by another node now")
        self.code = code


class StoreUnavailable(Exception):
    """The store could not be reached; the write did not happen as far as we know."""


class RoomStore(Protocol):
    """What a room actor and the room registry need from persistence.

    Writes are committed (and, in cluster mode, fenced) when the await returns:
    the room sends an action's effects only after `append_action` returned.
    """

    async def create_room(self, code: str, now: float, settings: dict[str, Any]) -> bool: ...
    async def room(self, code: str) -> RoomRow | None: ...
    async def live_rooms(self) -> list[RoomRow]: ...
    async def set_host(self, code: str, host: str | None) -> None: ...
    async def set_settings(self, code: str, settings: dict[str, Any]) -> None: ...
    async def set_status(self, code: str, status: str, now: float) -> None: ...
    async def touch(self, code: str, now: float) -> None: ...
    async def add_player(self, code: str, player: PlayerRow, token_hash: str) -> None: ...
    async def players(self, code: str) -> list[PlayerRow]: ...
    async def set_kicked(self, code: str, pid: str, kicked: int) -> None: ...
    async def find_token(self, token_hash: str) -> tuple[str, str, int] | None: ...
    async def add_spectator(self, code: str, sid: str, token_hash: str,
                            now: float) -> None: ...
    async def spectators(self, code: str) -> list[tuple[str, float]]: ...
    async def remove_spectator(self, code: str, sid: str) -> None: ...
    async def find_spectator(self, token_hash: str) -> tuple[str, str] | None: ...
    async def add_ban(self, code: str, name: str, now: float,
                      devices: Iterable[str] = ()) -> None: ...
    async def remove_ban(self, code: str, name: str) -> None: ...
    async def bans(self, code: str) -> list[str]: ...
    async def banned_devices(self, code: str) -> dict[str, str]: ...
    async def set_device(self, code: str, who: str, device: str) -> None: ...
    async def devices(self, code: str) -> dict[str, str]: ...
    async def start_game(self, code: str, game: GameRow) -> None: ...
    async def append_action(self, code: str, n: int, action: ActionRow) -> None: ...
    async def end_game(self, code: str, n: int, now: float, result: Any) -> None: ...
    async def last_game(self, code: str) -> GameRow | None: ...
    async def actions(self, code: str, n: int) -> list[ActionRow]: ...
    async def results(self, code: str) -> list[Any]: ...
    async def close(self) -> None: ...


class SqliteRoomStore:
    """server.storage.sqlite.Store behind the async seam: every call runs inline (no thread hop).

    A SQLite commit costs well under a millisecond (see server/storage/sqlite.py), less
    than handing it to a thread; and since these coroutines never suspend, the
    room actors see exactly the ordering they saw when the calls were plain.
    `sync` is the underlying Store (tests read it directly).
    """

    def __init__(self, store: Store) -> None:
        self.sync = store
        self.path = store.path

    async def create_room(self, code: str, now: float, settings: dict[str, Any]) -> bool:
        return self.sync.create_room(code, now, settings)

    async def room(self, code: str) -> RoomRow | None:
        return self.sync.room(code)

    async def live_rooms(self) -> list[RoomRow]:
        return self.sync.live_rooms()

    async def set_host(self, code: str, host: str | None) -> None:
        self.sync.set_host(code, host)

    async def set_settings(self, code: str, settings: dict[str, Any]) -> None:
        self.sync.set_settings(code, settings)

    async def set_status(self, code: str, status: str, now: float) -> None:
        self.sync.set_status(code, status, now)

    async def touch(self, code: str, now: float) -> None:
        self.sync.touch(code, now)

    async def add_player(self, code: str, player: PlayerRow, token_hash: str) -> None:
        self.sync.add_player(code, player, token_hash)

    async def players(self, code: str) -> list[PlayerRow]:
        return self.sync.players(code)

    async def set_kicked(self, code: str, pid: str, kicked: int) -> None:
        self.sync.set_kicked(code, pid, kicked)

    async def find_token(self, token_hash: str) -> tuple[str, str, int] | None:
        return self.sync.find_token(token_hash)

    async def add_spectator(self, code: str, sid: str, token_hash: str, now: float) -> None:
        self.sync.add_spectator(code, sid, token_hash, now)

    async def spectators(self, code: str) -> list[tuple[str, float]]:
        return self.sync.spectators(code)

    async def remove_spectator(self, code: str, sid: str) -> None:
        self.sync.remove_spectator(code, sid)

    async def find_spectator(self, token_hash: str) -> tuple[str, str] | None:
        return self.sync.find_spectator(token_hash)

    async def add_ban(self, code: str, name: str, now: float,
                      devices: Iterable[str] = ()) -> None:
        self.sync.add_ban(code, name, now, devices)

    async def remove_ban(self, code: str, name: str) -> None:
        self.sync.remove_ban(code, name)

    async def bans(self, code: str) -> list[str]:
        return self.sync.bans(code)

    async def banned_devices(self, code: str) -> dict[str, str]:
        return self.sync.banned_devices(code)

    async def set_device(self, code: str, who: str, device: str) -> None:
        self.sync.set_device(code, who, device)

    async def devices(self, code: str) -> dict[str, str]:
        return self.sync.devices(code)

    async def start_game(self, code: str, game: GameRow) -> None:
        self.sync.start_game(code, game)

    async def append_action(self, code: str, n: int, action: ActionRow) -> None:
        self.sync.append_action(code, n, action)

    async def end_game(self, code: str, n: int, now: float, result: Any) -> None:
        self.sync.end_game(code, n, now, result)

    async def last_game(self, code: str) -> GameRow | None:
        return self.sync.last_game(code)

    async def actions(self, code: str, n: int) -> list[ActionRow]:
        return self.sync.actions(code, n)

    async def results(self, code: str) -> list[Any]:
        return self.sync.results(code)

    async def close(self) -> None:
        self.sync.close()


def as_room_store(store: Store | RoomStore) -> RoomStore:
    """The async seam over `store`: a plain SQLite Store is wrapped, anything else kept."""
    return SqliteRoomStore(store) if isinstance(store, Store) else store
