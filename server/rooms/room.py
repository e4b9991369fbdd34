"""One room: the facade the registry, the edge and the cluster use, over the room's parts.

Every change to a room (a join over HTTP, a WebSocket message, a socket
closing, a timer firing) is a command run by the room's own task, one at a
time, so nothing needs a lock (the actor: server/rooms/actor.py). After every
state change the room sends each connected player their own `game.view`, hands
the game's audio policy to the voice, and turns game events into cues
(server/rooms/play.py).

Accepted actions are appended to the log (SQLite, or Redis in cluster mode,
through the async seam of server/storage/seam.py) before their effects are sent;
`Room.load` rebuilds a room from the store after a restart or on another node
(server/rooms/restore.py). A write the store refuses because another node owns
the room now (`NotOwner`) stops the room here: `on_lost` tells the registry,
which sends the clients on.

The parts, each with its own module: the actor (mailbox and timer), the table
(seats, host, bans, passes), the outbox (views, the room broadcast, cues,
notes), the whispers, the voice link; the joins and departures (membership),
the sockets, the deadlines, the handlers of client messages and their
dispatcher (server/rooms/handlers/). This class holds the room's own data
(settings, phase, current game) and wires the parts together. The parts take
it as the small protocols of server/rooms/ports.py, which it meets by its
shape: they never import this module.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import game
from server.config import Settings
from server.rooms import deadlines, handlers, hearing, membership, play, restore, roster, sockets
from server.rooms.actor import Actor
from server.rooms.handlers import games, lobby
from server.rooms.hearing import VOICE_DEFAULTS
from server.rooms.outbox import Outbox
from server.rooms.play import CLOSED, LOBBY, OVER, PLAYING
from server.rooms.seats import Member, RoomError
from server.rooms.spectators import Spectator
from server.rooms.table import Table
from server.rooms.voicelink import VoiceLink
from server.rooms.whispers import TARGET_NO_VOICE, Whispers
from server.storage.seam import NotOwner, RoomStore, StoreUnavailable
from server.throttle import TokenBucket
from server.wire import protocol as P
from server.wire.connection import Connection

__all__ = ["CLOSED", "LOBBY", "OVER", "PLAYING", "VOICE_DEFAULTS", "Room"]

log = logging.getLogger(__name__)


class Room:
    """One room's actor. Public methods prefixed `cmd_` run inside the actor."""

    def __init__(self, code: str, store: RoomStore, settings: Settings,
                 clock: Callable[[], float] = time.time,
                 on_lost: Callable[[str], None] | None = None) -> None:
        self.code = code
        self.store = store
        # Called (from the actor) when the store says another node owns the room now.
        self.on_lost = on_lost
        # Set when the room stops because it moved: late calls get room_moved, not closed.
        self.moving = False
        # Cluster mode: awaited before each command; raises NotOwner when the room may
        # have moved while this node slept (server/cluster/node.py `Cluster.confirm`).
        self.confirm: Callable[[str], Any] | None = None
        # Cluster mode: a cheap local check (no Redis) that the room is still claimed and the
        # claims renewed within their life; while False the voice sends no audio nor mouths
        # (server/cluster/node.py `Cluster.may_send`).
        self.may_send: Callable[[], bool] | None = None
        # Extra welcome fields (cluster mode: this node's URL and the live nodes').
        self.welcome_extra: Callable[[], dict[str, Any]] | None = None
        self.settings = settings
        self.clock = clock
        self.preset = "intruso"
        self.options: dict[str, Any] = {}
        # The room's voice settings, the same whatever the game (not game options).
        self.voice_options: dict[str, Any] = dict(VOICE_DEFAULTS)
        self.status = LOBBY
        self.created = clock()
        self.last_activity = self.created
        self.results: list[dict[str, Any]] = []  # the evening: finished games' results
        # The current (or last) game.
        self.game_n = 0
        self.state: Any = None
        self.seq = 0
        self.game_players: list[dict[str, str]] = []
        self.last_now = 0.0
        self.policy: Any = None
        self.retry_tick_at = 0.0  # after a failed tick, not before this
        # The parts.
        self.table = Table(settings)
        # The one owner of the whisper set; the voice's routing is derived from it.
        self.whispers = Whispers()
        self.actor = Actor(code, clock, wake_at=lambda: deadlines.wake_at(self),
                           on_wake=self.cmd_timer, gone=self._gone,
                           refusing=lambda: self.moving, failed=self._failed,
                           after_turn=self._end_of_turn,
                           before=lambda: self.confirm(code) if self.confirm else None)
        self.outbox = Outbox(
            self.table, clock, settings.room_broadcast_window, self.post,
            room_text=lambda: roster.room_text(self),
            view=lambda pid: None if self.state is None else game.view(self.state, pid),
            players=lambda: [p["id"] for p in self.game_players],
            play_cue=lambda name, listeners: self.voice.play_cue(name, listeners))
        self.voice = VoiceLink(code, settings.ice_servers, self.outbox.send_all,
                               lambda: hearing.mouths_allowed(self),
                               lambda: hearing.routing_now(self),
                               listeners=self.outbox.listeners,
                               on_peer_lost=lambda pid: self.post(self.cmd_voice_lost, pid),
                               max_candidates=settings.rtc_max_candidates,
                               layout_now=lambda: hearing.layout(self),
                               codec=settings.voice_codec,
                               may_send=self.sending_allowed)
        # Voice offers per seat (each makes the server gather and send ICE checks).
        self.offers: dict[str, TokenBucket] = {}

    def sending_allowed(self) -> bool:
        """The room may send to its clients now (outside a cluster, always; in one, while
        `may_send` says its claims hold)."""
        return self.may_send is None or self.may_send()

    # The table, as the registry and the tests read it -------------------------

    @property
    def members(self) -> dict[str, Member]:
        return self.table.members

    @property
    def spectators(self) -> dict[str, Spectator]:
        return self.table.spectators

    @property
    def host(self) -> str | None:
        return self.table.host

    @property
    def banned(self) -> list[str]:
        return self.table.banned

    @property
    def banned_devices(self) -> dict[str, str]:
        return self.table.banned_devices

    # The actor --------------------------------------------------------------

    def start(self) -> None:
        """Start the room's task (from the event loop)."""
        self.actor.start()

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run `fn(*args)` inside the actor (awaiting it if async) and return its result."""
        return await self.actor.call(fn, *args)

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue `fn(*args)` for the actor without waiting."""
        self.actor.post(fn, *args)

    def schedule(self) -> None:
        """(Re)arm the room's one timer at its next deadline (server/rooms/deadlines.py)."""
        self.actor.schedule()

    def _end_of_turn(self) -> None:
        self.outbox.end_of_turn()

    def _gone(self) -> RoomError:
        if self.moving:
            return RoomError(503, P.ROOM_MOVED, "this room is served by another node now")
        return RoomError(404, "unknown_room", "this room is closed")

    def _failed(self, exc: Exception) -> Exception | None:
        """What the caller of a command that raised `exc` is told (None: `exc` itself)."""
        if isinstance(exc, NotOwner):
            # Another node took the room over: nothing was written, nothing is sent.
            return self._lost()
        if isinstance(exc, StoreUnavailable):
            log.warning("room %s: store unavailable: %s", self.code, exc)
            return RoomError(503, P.STORE_UNAVAILABLE, "the room's store cannot be reached; retry")
        return None

    def _lost(self) -> RoomError:
        """The store refused a write: another node owns the room. Stop taking commands."""
        first = not self.moving
        self.moving = True
        if first and self.on_lost is not None:
            self.on_lost(self.code)
        return self._gone()

    async def stop(self, close_code: int = 1012, node: str | None = None) -> None:
        """Stop timers, voice and connections, then the actor itself.

        `close_code` tells the clients why: 1012 (restarting, come back) on a
        server shutdown, 4005 when the room is closed for good, 4010 when it
        moved to another node (cluster mode; `node` is that node's URL, sent
        first in a `moved` message).
        """
        await self.freeze(moving=close_code == P.CLOSE_MOVED)
        self.close_sockets(close_code, node)
        for m in self.table.sockets():
            if m.conn is not None:
                await m.conn.stop()

    async def freeze(self, moving: bool = False) -> None:
        """Stop the actor, the timer and the voice, leaving the sockets open (a hand-over)."""
        self.moving = self.moving or moving
        self.actor.cancel_timer()
        self.outbox.cancel_flush()
        await self.actor.stop()
        await self.voice.stop()

    def close_sockets(self, close_code: int, node: str | None = None) -> None:
        """Close every member's socket with `close_code` (a `moved` message first for 4010)."""
        reason = {1012: "restart", P.CLOSE_MOVED: "moved"}.get(close_code, "room closed")
        for m in self.table.sockets():
            if m.conn is not None:
                if close_code == P.CLOSE_MOVED:
                    m.conn.send({"type": "moved", "room": self.code, "node": node})
                m.conn.close(close_code, reason)

    def now(self) -> float:
        """Wall-clock time, never earlier than the last time used (the log stays ordered)."""
        self.last_now = max(self.clock(), self.last_now)
        return self.last_now

    # Commands (each runs inside the actor) ----------------------------------

    async def cmd_timer(self) -> None:
        """A deadline passed: tick the game, hand over an absent host's role, end idle passes."""
        await deadlines.wake(self)

    async def cmd_add_member(self, name: str, color: str | None,
                             device: str = "") -> tuple[str, str]:
        """Seat a newcomer: (player id, token). Refused while a game runs or when full,
        and to a device a ban names (`device`: the hash of the browser's cookie)."""
        return await membership.add_member(self, name, color, device)

    async def cmd_add_spectator(self, device: str = "") -> tuple[str, str]:
        """A spectator pass (a shared screen): (spectator id, token)."""
        return await membership.add_spectator(self, device)

    async def cmd_attach(self, pid: str, conn: Connection) -> bool:
        """A socket authenticated as `pid`: replace any older socket, send the full picture."""
        return await sockets.attach(self, pid, conn)

    def cmd_detach(self, pid: str, conn: Connection) -> None:
        """A socket closed. Only the member's current socket counts (a replaced one does not)."""
        sockets.detach(self, pid, conn)

    async def cmd_message(self, pid: str, conn: Connection, msg: Any) -> None:
        """Handle one validated client message from `pid` (server/rooms/handlers/)."""
        await handlers.dispatch(self, pid, conn, msg)

    def cmd_voice_lost(self, pid: str) -> None:
        """`pid`'s voice connection failed or was closed from their side (socket kept)."""
        if pid in self.table.members:
            hearing.whisper_change(self, self.whispers.end_to(pid, TARGET_NO_VOICE))

    def public_info(self) -> dict[str, Any]:
        """What anyone with the code may see: no ids, tokens or game secrets."""
        return roster.public_info(self)

    async def load(self) -> None:
        """Rebuild this room from the store (called once, before `start`)."""
        await restore.load(self)

    # Inner steps the registry and the tests call by their old names ---------

    def _any_online(self) -> bool:
        return self.table.any_online()

    def _seated(self) -> list[Member]:
        return self.table.seated()

    def _send_all(self, text: str) -> None:
        self.outbox.send_all(text)

    def _room_message(self) -> dict[str, Any]:
        return roster.room_message(self)

    async def _start_game(self) -> None:
        await play.start_game(self)

    async def _remove(self, member: Member, why: int) -> None:
        await membership.remove(self, member, why)

    async def _on_action(self, member: Member, msg: P.ActionMsg) -> None:
        await games.on_action(self, member, msg)

    async def _on_settings(self, member: Member, msg: P.SettingsMsg) -> None:
        await lobby.on_settings(self, member, msg)
