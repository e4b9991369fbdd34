"""What the room's parts need of the room, as small protocols `Room` meets by its shape.

The parts (play, hearing, roster, membership, sockets, deadlines, restore,
the handlers) are functions of the room; they name these protocols, never
`Room` itself, so room.py may import them without an import circle (the
`acyclic` contract in pyproject.toml). Four needs, then their unions as the
parts use them:

- `Parts`: who the room is (code, settings, clock, store) and its parts (table,
  outbox, voice, whispers), its time (`now`) and its timer (`schedule`);
- `Choices`: the host's settings (the game's preset and options, the voice's);
- `Game`: the phase and the current (or last) game, with the evening's results;
- `Presence`: when someone was last here, voice offers per seat, the mailbox
  (`post`) and what a welcome adds (cluster mode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from server.config import Settings
from server.rooms.outbox import Outbox
from server.rooms.table import Table
from server.rooms.voicelink import VoiceLink
from server.rooms.whispers import Whispers
from server.storage.seam import RoomStore
from server.throttle import TokenBucket


class Parts(Protocol):
    """Who the room is and its parts: what every part of the room reaches."""

    code: str
    settings: Settings
    clock: Callable[[], float]
    store: RoomStore
    table: Table
    outbox: Outbox
    voice: VoiceLink
    whispers: Whispers

    def now(self) -> float: ...

    def schedule(self) -> None: ...


class Choices(Protocol):
    """The host's settings: the game's preset and options, the room's voice settings."""

    preset: str
    options: dict[str, Any]
    voice_options: dict[str, Any]


class Game(Protocol):
    """The room's phase and its current (or last) game; the evening's results."""

    status: str
    game_n: int
    state: Any
    seq: int
    game_players: list[dict[str, str]]
    policy: Any
    retry_tick_at: float
    results: list[dict[str, Any]]


class Presence(Protocol):
    """Who comes and goes: last activity, voice offers per seat, the mailbox, the welcome."""

    last_activity: float
    offers: dict[str, TokenBucket]
    welcome_extra: Callable[[], dict[str, Any]] | None

    def post(self, fn: Callable[..., Any], *args: Any) -> None: ...


class GameRoom(Parts, Choices, Game, Protocol):
    """The game on the table and what the room shows: play.py, hearing.py, roster.py."""


class LiveRoom(GameRoom, Presence, Protocol):
    """A room with people coming and going: membership, sockets, deadlines, the handlers."""


class StoredRoom(LiveRoom, Protocol):
    """A room rebuilt from the store (restore.py): its birth and its log's last time too."""

    created: float
    last_now: float
