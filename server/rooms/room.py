"""One room's actor: it owns the lobby, the game state, the timer and the sockets.

Every change to a room (a join over HTTP, a WebSocket message, a socket
closing, a timer firing) is a command run by the room's own task, one at a
time, so nothing needs a lock. After every state change the room sends each
connected player their own `game.view`, hands the game's audio policy to the
voice, and turns game events into cues.

Accepted actions are appended to the log (SQLite, or Redis in cluster mode,
through the async seam of server/storage/seam.py) before their effects are sent;
`Room.load` rebuilds a room from the store after a restart or on another node
(lobby from its tables, game by `game.replay`, then ticked to now). A write the
store refuses because another node owns the room now (`NotOwner`) stops the
room here: `on_lost` tells the registry, which sends the clients on. server/rooms/registry.py keeps
the set of rooms; server/rooms/voicelink.py the optional voice.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import game
from game.errors import GameError
from server.config import Settings
from server.media.turn import seat_ice_servers
from server.rooms.codes import hash_token, new_seed, new_token
from server.rooms.seats import (
    IN_ROOM,
    KICKED,
    LEFT,
    Member,
    RoomError,
    clean_name,
    pick_color,
    same_name,
)
from server.rooms.spectators import (
    SPECTATOR_MESSAGES,
    Spectator,
    is_public_cue,
    pass_number,
    spectator_id,
)
from server.rooms.voicelink import VoiceLink, routing
from server.rooms.whispers import TARGET_LEFT, TARGET_NO_VOICE, WHISPERER_LEFT, Note, Whispers
from server.storage.seam import (
    ActionRow,
    GameRow,
    NotOwner,
    PlayerRow,
    RoomStore,
    StoreUnavailable,
)
from server.throttle import TokenBucket
from server.wire import protocol as P
from server.wire.connection import Connection

log = logging.getLogger(__name__)

# The room's voice settings and their defaults: `spatial` places the voices around
# the table (off by default: some players listen with one earbud).
VOICE_DEFAULTS: dict[str, Any] = {"spatial": False}

# The room's phase (rooms.status in the store).
LOBBY, PLAYING, OVER, CLOSED = "lobby", "playing", "over", "closed"


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
        # Extra welcome fields (cluster mode: this node's URL and the live nodes').
        self.welcome_extra: Callable[[], dict[str, Any]] | None = None
        self.settings = settings
        self.clock = clock
        self.members: dict[str, Member] = {}
        # Spectator passes (server/rooms/spectators.py): no seat, the public view and voice.
        self.spectators: dict[str, Spectator] = {}
        self.next_spectator = 0
        self.host: str | None = None
        self.preset = "intruso"
        self.options: dict[str, Any] = {}
        # The room's voice settings, the same whatever the game (not game options).
        self.voice_options: dict[str, Any] = dict(VOICE_DEFAULTS)
        self.status = LOBBY
        self.created = clock()
        self.last_activity = self.created
        self.next_seat = 0
        self.results: list[dict[str, Any]] = []  # the evening: finished games' results
        # Names the host kicked (as shown), kept out for the room's life unless let back in,
        # and the devices (cookie hashes) of their seats: device -> name. No seat, no pass.
        self.banned: list[str] = []
        self.banned_devices: dict[str, str] = {}
        # The current (or last) game.
        self.game_n = 0
        self.state: Any = None
        self.seq = 0
        self.game_players: list[dict[str, str]] = []
        self.last_now = 0.0
        self.policy: Any = None
        # The one owner of the whisper set; the voice's routing is derived from it.
        self.whispers = Whispers()
        self._last_view: dict[str, str] = {}  # by player id, and by spectator id
        self.voice = VoiceLink(code, settings.ice_servers, self._send_all, self._mouths_allowed,
                               self._routing, listeners=self._listeners,
                               on_peer_lost=lambda pid: self.post(self.cmd_voice_lost, pid),
                               max_candidates=settings.rtc_max_candidates,
                               layout_now=self._layout, codec=settings.voice_codec)
        # Voice offers per seat (each makes the server gather and send ICE checks).
        self._offers: dict[str, TokenBucket] = {}
        # The actor.
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.Task[None] | None = None
        self._timer_at: float | None = None
        self._retry_tick_at = 0.0
        # Roster broadcasts are coalesced (see _broadcast_room).
        self._room_dirty = False
        self._room_flushed_at = float("-inf")
        self._room_flush: asyncio.TimerHandle | None = None

    # The actor --------------------------------------------------------------

    def start(self) -> None:
        """Start the room's task (from the event loop)."""
        self._task = asyncio.create_task(self._run(), name=f"room-{self.code}")
        self._schedule()

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run `fn(*args)` inside the actor (awaiting it if async) and return its result."""
        if self._task is None or self._task.done():
            raise self._gone()
        fut = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((fn, args, fut))
        return await fut

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue `fn(*args)` for the actor without waiting."""
        self._queue.put_nowait((fn, args, None))

    async def _run(self) -> None:
        while True:
            fn, args, fut = await self._queue.get()
            if fn is None:
                if fut is not None and not fut.done():
                    fut.set_result(None)
                return
            if self.moving:  # stopped here (another node has it): refuse, change nothing
                if fut is not None and not fut.done():
                    fut.set_exception(self._gone())
                continue
            try:
                result = fn(*args)
                if isinstance(result, Awaitable):
                    result = await result
            except NotOwner:
                # Another node took the room over: nothing was written, nothing is sent.
                exc = self._lost()
                if fut is not None and not fut.done():
                    fut.set_exception(exc)
            except StoreUnavailable as exc:
                log.warning("room %s: store unavailable: %s", self.code, exc)
                if fut is not None and not fut.done():
                    fut.set_exception(RoomError(503, P.STORE_UNAVAILABLE,
                                                "the room's store cannot be reached; retry"))
            except Exception as exc:  # one bad command must not kill the room
                if fut is None:
                    log.exception("room %s: command %s failed", self.code, fn.__name__)
                elif not fut.done():
                    fut.set_exception(exc)
            else:
                if fut is not None and not fut.done():
                    fut.set_result(result)
            self._end_of_turn()

    def _gone(self) -> RoomError:
        if self.moving:
            return RoomError(503, P.ROOM_MOVED, "this room is served by another node now")
        return RoomError(404, "unknown_room", "this room is closed")

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
        for m in self._sockets():
            if m.conn is not None:
                await m.conn.stop()

    async def freeze(self, moving: bool = False) -> None:
        """Stop the actor, the timer and the voice, leaving the sockets open (a hand-over)."""
        self.moving = self.moving or moving
        if self._timer:
            self._timer.cancel()
        if self._room_flush is not None:
            self._room_flush.cancel()
        if self._task and not self._task.done():
            fut = asyncio.get_running_loop().create_future()
            self._queue.put_nowait((None, (), fut))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(fut, timeout=5)
        # Whoever still waits on a command gets an answer instead of hanging.
        while not self._queue.empty():
            _, _, pending = self._queue.get_nowait()
            if pending is not None and not pending.done():
                pending.set_exception(self._gone())
        await self.voice.stop()

    def close_sockets(self, close_code: int, node: str | None = None) -> None:
        """Close every member's socket with `close_code` (a `moved` message first for 4010)."""
        reason = {1012: "restart", P.CLOSE_MOVED: "moved"}.get(close_code, "room closed")
        for m in self._sockets():
            if m.conn is not None:
                if close_code == P.CLOSE_MOVED:
                    m.conn.send({"type": "moved", "room": self.code, "node": node})
                m.conn.close(close_code, reason)

    # Time and timers --------------------------------------------------------

    def now(self) -> float:
        """Wall-clock time, never earlier than the last time used (the log stays ordered)."""
        self.last_now = max(self.clock(), self.last_now)
        return self.last_now

    def _wake_at(self) -> float | None:
        times = []
        if self.status == PLAYING and self.state is not None:
            d = game.next_deadline(self.state)
            if d is not None:
                times.append(max(d, self._retry_tick_at))
        host = self.members.get(self.host or "")
        if host is not None and host.offline_since is not None and self._any_online():
            times.append(host.offline_since + self.settings.host_grace)
        times += [t for t in (self._pass_expiry(s) for s in self.spectators.values())
                  if t is not None]
        return min(times) if times else None

    def _pass_expiry(self, spectator: Spectator) -> float | None:
        return spectator.expires_at(self.settings.spectator_idle_ttl,
                                    self.settings.spectator_claim_ttl)

    def _schedule(self) -> None:
        """(Re)arm the one timer of the room at its next deadline."""
        at = self._wake_at()
        if at == self._timer_at and self._timer is not None and not self._timer.done():
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = at
        self._timer = None if at is None else asyncio.create_task(self._sleep_until(at))

    async def _sleep_until(self, at: float) -> None:
        # Sleep in short slices: wall-clock time may jump, and deadlines are wall-clock.
        while True:
            delay = at - self.clock()
            if delay <= 0:
                break
            await asyncio.sleep(min(delay, 5.0))
        self._timer_at = None
        self.post(self.cmd_timer)

    async def cmd_timer(self) -> None:
        """A deadline passed: tick the game, hand over an absent host's role."""
        now = self.now()
        if self.status == PLAYING and self.state is not None:
            d = game.next_deadline(self.state)
            if d is not None and d <= now:
                try:
                    self.state, events = game.tick(self.state, now)
                except Exception:
                    # A core bug: keep the room alive and retry later rather than spin.
                    log.exception("room %s: tick failed", self.code)
                    self._retry_tick_at = now + 5.0
                else:
                    await self._after_change(events)
        host = self.members.get(self.host or "")
        if (host is not None and host.offline_since is not None
                and now >= host.offline_since + self.settings.host_grace):
            nxt = self._next_host(after=host.id, online_only=True)
            if nxt is not None:
                await self._set_host(nxt)
                self._broadcast_room()
        # A pass nobody watches on does not hold a place for ever.
        for spectator in list(self.spectators.values()):
            at = self._pass_expiry(spectator)
            if at is not None and now >= at:
                await self._remove_pass(spectator)
        self._schedule()

    # Membership (HTTP side) -------------------------------------------------

    def _refuse_banned_device(self, device: str) -> None:
        if device and device in self.banned_devices:
            raise RoomError(403, P.BANNED, "the host removed you from this room")

    async def cmd_add_member(self, name: str, color: str | None,
                             device: str = "") -> tuple[str, str]:
        """Seat a newcomer: (player id, token). Refused while a game runs or when full,
        and to a device a ban names (`device`: the hash of the browser's cookie)."""
        if self.status == CLOSED:
            raise RoomError(404, "unknown_room", "no such room")
        if self.status == PLAYING:
            raise RoomError(409, "game_running", "a game is running; wait for it to end")
        if len(self.members) >= self.settings.max_players:
            raise RoomError(409, "room_full", f"the room holds {self.settings.max_players}")
        name = clean_name(name)
        self._refuse_banned_device(device)
        if self._banned(name) is not None:
            raise RoomError(403, P.NAME_BANNED, "the host removed a player of that name")
        if any(same_name(m.name, name) for m in self.members.values()):
            raise RoomError(409, "name_taken", "someone in the room already has that name")
        color = pick_color(color, {m.color for m in self.members.values()}, self.next_seat)
        now = self.now()
        self.next_seat += 1
        member = Member(id=f"p{self.next_seat}", name=name, color=color, seat=self.next_seat,
                        joined=now, offline_since=now, device=device)
        token = new_token()
        await self.store.add_player(self.code, PlayerRow(member.id, name, color, member.seat, IN_ROOM,
                                                   now), hash_token(token))
        if device:
            await self.store.set_device(self.code, member.id, device)
        self.members[member.id] = member
        if self.host is None:
            self.host = member.id
        self.last_activity = now
        self._broadcast_room()
        self._apply_routing()  # a newcomer to the lobby is heard by all
        return member.id, token

    def public_info(self) -> dict[str, Any]:
        """What anyone with the code may see: no ids, tokens or game secrets."""
        return {
            "code": self.code,
            "phase": self.status,
            "preset": self.preset,
            "lang": self.options.get("lang"),
            "players": [{"name": m.name, "color": m.color, "online": m.online}
                        for m in self._seated()],
            "max_players": self.settings.max_players,
            "joinable": self.status != PLAYING and len(self.members) < self.settings.max_players,
        }

    async def cmd_add_spectator(self, device: str = "") -> tuple[str, str]:
        """A spectator pass (a shared screen): (spectator id, token). Refused when the
        room has `max_spectators` passes already, or to a device a ban names; allowed in
        any phase (no seat is taken)."""
        if self.status == CLOSED:
            raise RoomError(404, "unknown_room", "no such room")
        self._refuse_banned_device(device)
        limit = self.settings.max_spectators
        if len(self.spectators) >= limit:
            raise RoomError(409, P.SPECTATORS_FULL, f"the room has its {limit} spectator screens")
        now = self.now()
        self.next_spectator += 1
        spectator = Spectator(spectator_id(self.next_spectator), now, device=device)
        token = new_token()
        await self.store.add_spectator(self.code, spectator.id, hash_token(token), now)
        if device:
            await self.store.set_device(self.code, spectator.id, device)
        self.spectators[spectator.id] = spectator
        self.last_activity = now
        self._broadcast_room()
        self._schedule()  # it expires if no screen connects to it
        return spectator.id, token

    def _sockets(self) -> list[Member | Spectator]:
        """Every seat and spectator pass (each may hold a socket)."""
        return [*self.members.values(), *self.spectators.values()]

    # Connections ------------------------------------------------------------

    async def cmd_attach(self, pid: str, conn: Connection) -> bool:
        """A socket authenticated as `pid`: replace any older socket, send the full picture."""
        if pid in self.spectators:
            return self._attach_spectator(pid, conn)
        member = self.members.get(pid)
        if member is None:
            conn.send(P.error(P.KICKED, "you are no longer in this room"))
            conn.close(P.CLOSE_KICKED, "not in the room")
            return False
        if member.conn is not None and member.conn is not conn:
            old = member.conn
            # A new tab holds no whisper: the old tab's ends, and the seat stays hushed
            # (heard by nobody) until the new page's own gesture, as after a socket blip.
            self._whisper_change(self.whispers.end_from(member.id, WHISPERER_LEFT))
            old.send(P.error(P.REPLACED, "this seat was opened in another tab"))
            old.close(P.CLOSE_REPLACED, "replaced")
        member.conn = conn
        # A hush is kept across sockets (the welcome tells the new page): releasing it
        # here would put a whisperer whose socket blipped on the public bus, unasked.
        was_away = member.offline_since is not None
        member.offline_since = None
        now = self.now()
        self.last_activity = now
        if not any(m.online for m in self.members.values() if m is not member):
            # Presence is written when it changes (the room's first socket), not at
            # every connect: a reconnect flood must not become a write flood.
            await self.store.touch(self.code, now)
        self._send_welcome(member)
        conn.send_room(self._room_text())  # this socket at once, before its view
        self._broadcast_room()  # everyone else sees the seat come online
        self._send_picture(member)
        if was_away:
            self._schedule()  # an away host's hand-over may be due now that someone is here
        return True

    def _attach_spectator(self, sid: str, conn: Connection) -> bool:
        spectator = self.spectators.get(sid)
        if spectator is None:  # the pass was given back
            conn.send(P.error(P.LEFT, "this spectator pass was given back"))
            conn.close(P.CLOSE_LEFT, "left")
            return False
        if conn.device and conn.device in self.banned_devices:
            # A pass taken elsewhere, opened in a banned browser: it ends here.
            self.post(self._remove_pass, spectator, P.CLOSE_KICKED)
            conn.send(P.error(P.KICKED, "the host removed you from this room"))
            conn.close(P.CLOSE_KICKED, "banned")
            return False
        if spectator.conn is not None and spectator.conn is not conn:
            old = spectator.conn
            old.send(P.error(P.REPLACED, "this screen was opened in another tab"))
            old.close(P.CLOSE_REPLACED, "replaced")
        spectator.conn = conn
        spectator.offline_since, spectator.seen = None, True
        self.last_activity = self.now()
        self._schedule()  # a watched pass never expires
        self._send_welcome(spectator)
        conn.send_room(self._room_text())
        self._broadcast_room()  # the count of screens watching changed
        self._send_picture(spectator)
        return True

    def cmd_detach(self, pid: str, conn: Connection) -> None:
        """A socket closed. Only the member's current socket counts (a replaced one does not)."""
        spectator = self.spectators.get(pid)
        if spectator is not None:
            if spectator.conn is conn:
                spectator.conn = None
                spectator.offline_since = self.now()
                self._last_view.pop(pid, None)
                self.voice.drop(pid)
                self._broadcast_room()
                self._schedule()  # its idle time starts now
            return
        member = self.members.get(pid)
        if member is None or member.conn is not conn:
            return
        member.conn = None
        member.offline_since = self.last_activity = self.now()
        self._last_view.pop(pid, None)
        # Whispers to them end, their whisperers hushed; their own whisper too: its
        # frames still on the way must not reach the public bus either.
        self._send_notes(self.whispers.forget(pid, TARGET_LEFT))
        self._apply_routing()
        self.voice.drop(pid)
        self._broadcast_room()
        self._schedule()

    def _send_welcome(self, member: Member | Spectator) -> None:
        """Once per socket, first: who you are, the ICE servers, whether voice exists.
        A spectator's `player` is null and its `spectator` its pass id."""
        watching = isinstance(member, Spectator)
        member.conn.send({
            "type": "welcome",
            "player": None if watching else member.id,
            **({"spectator": member.id} if watching else {}),
            "room": self.code,
            "server_time": self.clock(),
            "ice_servers": self._ice_servers(member),
            "voice": VoiceLink.available(),
            **({} if watching else {"whisper": self._whisper_state(member.id)}),
            **(self.welcome_extra() if self.welcome_extra else {}),
        })

    def _ice_servers(self, member: Member | Spectator) -> list[dict[str, Any]]:
        """The ICE servers of one socket, TURN credentials bound to its seat (fresh)."""
        conn = member.conn
        return seat_ice_servers(self.settings, self.code, conn.token_hash if conn else "",
                                self.clock(), spectator=isinstance(member, Spectator))

    def _on_ice(self, member: Member | Spectator, msg: P.Ice) -> None:
        # Credentials live minutes: the client asks for fresh ones before they run out.
        member.conn.send({"type": "ice_servers", **({"ref": msg.ref} if msg.ref else {}),
                          "server_time": self.clock(), "ice_servers": self._ice_servers(member)})

    def _whisper_state(self, pid: str) -> dict[str, Any] | None:
        """What a new socket of `pid` must show of their whisper: null, or their hush and
        whether the old whisper may be resumed now (the page does so with a new
        `whisper_start` only while the finger that started it is still down)."""
        dst = self.whispers.hushed.get(pid)
        if dst is None:
            return None
        resumable = dst in self.members and dst in self._whisper_targets(pid)
        return {"to": dst, "hushed": True, "resumable": resumable}

    def _send_picture(self, member: Member | Spectator) -> None:
        """The player's view again, and the whispers aimed at them."""
        conn = member.conn
        if conn is None:
            return
        if isinstance(member, Spectator):
            self._last_view.pop(member.id, None)
            self._send_spectator_views([member])
            return
        self._last_view.pop(member.id, None)
        self._send_view(member)
        for src in self.whispers.to(member.id):
            conn.send({"type": "whisper", "from": src, "to": member.id, "active": True})

    # Messages ---------------------------------------------------------------

    async def cmd_message(self, pid: str, conn: Connection, msg: Any) -> None:
        """Handle one validated client message from `pid`."""
        spectator = self.spectators.get(pid)
        if spectator is not None:
            await self._spectator_message(spectator, conn, msg)
            return
        member = self.members.get(pid)
        if member is None or member.conn is not conn:
            return  # a replaced or removed socket's late message
        handler = getattr(self, "_on_" + msg.type, None)
        if handler is None:
            conn.send(P.error(P.UNKNOWN_TYPE, msg.type, msg.ref))
            return
        try:
            result = handler(member, msg)
            if isinstance(result, Awaitable):
                await result
        except GameError as exc:
            conn.send(P.error(exc.code, exc.message, msg.ref, exc.detail or None))
        except RoomError as exc:
            conn.send(P.error(exc.code, exc.message, msg.ref))

    async def _spectator_message(self, spectator: Spectator, conn: Connection, msg: Any) -> None:
        """A spectator's socket: it watches and listens, nothing else."""
        if spectator.conn is not conn:
            return
        if msg.type not in SPECTATOR_MESSAGES:
            conn.send(P.error(P.SPECTATOR, "a spectator screen cannot do that", msg.ref))
            return
        if msg.type == "leave":
            # The pass is given back: its token stops working, a place is free.
            await self._remove_pass(spectator, P.CLOSE_LEFT)
            return
        try:
            getattr(self, "_on_" + msg.type)(spectator, msg)
        except RoomError as exc:
            conn.send(P.error(exc.code, exc.message, msg.ref))

    def _require_host(self, member: Member) -> None:
        if member.id != self.host:
            raise RoomError(403, P.NOT_HOST, "only the host can do that")

    def _on_hello(self, member: Member, msg: P.Hello) -> None:
        # No second welcome: a client starts its voice on welcome, once per socket.
        member.conn.send_room(self._room_text(), again=True)
        self._send_picture(member)

    def _on_ping(self, member: Member, msg: P.Ping) -> None:
        member.conn.send({"type": "pong", "t": msg.t, "server_time": self.clock()})

    async def _on_settings(self, member: Member, msg: P.SettingsMsg) -> None:
        self._require_host(member)
        if msg.voice is not None and not msg.options and msg.preset is None:
            # The voice's settings are no game rule: they may change during a game.
            await self._set_voice_options(msg.voice)
            return
        if self.status == PLAYING:
            raise RoomError(409, P.WRONG_PHASE, "settings change between games only")
        preset = msg.preset or self.preset
        if preset not in game.PRESETS:
            raise GameError("bad_options", f"unknown preset {preset!r}", field="preset")
        base = dict(self.options) if preset == self.preset else game.default_options(preset)
        for key, value in msg.options.items():
            # A patch: {"timers": {"clue": 30}} changes one timer, not all of them.
            if isinstance(value, dict) and isinstance(base.get(key), dict):
                base[key] = {**base[key], **value}
            else:
                base[key] = value
        if base.get("one_phone"):
            # One phone for the whole table is the offline page's game: in a room every
            # player has their own, and a table vote would let one seat decide for all.
            raise GameError("bad_options", "a room plays with a phone per player",
                            field="one_phone")
        options = game.validate_options(preset, base, len(self.members))
        self.preset, self.options = preset, options
        if msg.voice is not None:
            await self._set_voice_options(msg.voice)
            return
        await self.store.set_settings(self.code, self._settings_json())
        self._broadcast_room()

    async def _set_voice_options(self, voice: P.VoiceOptions) -> None:
        patch = {k: v for k, v in voice.model_dump().items() if v is not None}
        self.voice_options = {**self.voice_options, **patch}
        await self.store.set_settings(self.code, self._settings_json())
        self._apply_routing()
        self._broadcast_room()

    def _on_volumes(self, member: Member, msg: P.Volumes) -> None:
        named = set(msg.gains) | set(msg.muted)
        if member.id in named:
            raise RoomError(400, P.BAD_MESSAGE, "your own voice has no volume in your mix")
        unknown = sorted(named - set(self.members))
        if unknown:
            raise RoomError(404, P.UNKNOWN_PLAYER, f"no player {unknown[0]!r} in this room")
        gains = {pid: float(g) for pid, g in msg.gains.items()}
        gains.update({pid: 0.0 for pid in msg.muted})
        self.voice.set_volumes(member.id, {pid: g for pid, g in gains.items() if g != 1.0})
        muted = sorted(pid for pid, g in gains.items() if g == 0.0)
        member.conn.send({"type": "volumes", "ref": msg.ref, "muted": muted,
                          "gains": {pid: g for pid, g in sorted(gains.items()) if g != 0.0}})

    async def _on_start(self, member: Member, msg: P.Start) -> None:
        self._require_host(member)
        if self.status == PLAYING:
            raise RoomError(409, P.WRONG_PHASE, "the game has already started")
        await self._start_game()  # after a game's end, the same as a rematch

    async def _on_rematch(self, member: Member, msg: P.Rematch) -> None:
        self._require_host(member)
        if self.status != OVER:
            raise RoomError(409, P.WRONG_PHASE, "a rematch follows a finished game")
        await self._start_game()

    async def _remove_pass(self, spectator: Spectator, close: int | None = None) -> None:
        """A pass ends: given back (`close` 4004), removed by the host (4003), or
        expired (no screen on it). Its token stops working and its place is free."""
        if self.spectators.get(spectator.id) is not spectator:
            return
        del self.spectators[spectator.id]
        await self.store.remove_spectator(self.code, spectator.id)
        self.voice.drop(spectator.id)  # an offer still being answered is dropped too
        self._offers.pop(spectator.id, None)
        self._last_view.pop(spectator.id, None)
        conn, spectator.conn = spectator.conn, None
        if conn is not None:
            if close == P.CLOSE_LEFT:
                conn.close(P.CLOSE_LEFT, "left")
            else:
                conn.send(P.error(P.KICKED, "the host removed this screen"))
                conn.close(P.CLOSE_KICKED, "removed")
        self._broadcast_room()
        self._schedule()

    async def _on_kick(self, member: Member, msg: P.Kick) -> None:
        self._require_host(member)
        spectator = self.spectators.get(msg.player)
        if spectator is not None:
            # A pass holds no seat: the host may remove one in any phase. No ban: a pass
            # has no name, and the real TV may come back by asking for a new one.
            await self._remove_pass(spectator, P.CLOSE_KICKED)
            return
        if self.status == PLAYING:
            raise RoomError(409, P.WRONG_PHASE, "players can be kicked between games only")
        target = self.members.get(msg.player)
        if target is None or target.id == member.id:
            raise RoomError(404, P.UNKNOWN_PLAYER, "no such player to kick")
        # The token stays out, and so does the name (its folded form) for the room's life:
        # a kicked player cannot take a new seat under it unless the host lets them back.
        # So do the devices of the seat (the one it joined from, the one its socket is
        # open in): no pass, no seat under another name, for that browser.
        name = self._banned(target.name) or target.name
        devices = {target.device, target.conn.device if target.conn else ""} - {""}
        if name not in self.banned:
            self.banned.append(name)
        self.banned_devices.update((d, name) for d in devices)
        await self.store.add_ban(self.code, name, self.now(), sorted(devices))
        # Every pass that browser holds ends with the seat (its voice with it).
        for spectator in [s for s in self.spectators.values() if s.device in devices]:
            await self._remove_pass(spectator, P.CLOSE_KICKED)
        await self._remove(target, KICKED)

    async def _on_unban(self, member: Member, msg: P.Unban) -> None:
        self._require_host(member)
        name = self._banned(msg.name)
        if name is None:
            raise RoomError(404, P.NOT_BANNED, "nobody of that name was removed")
        self.banned.remove(name)
        self.banned_devices = {d: n for d, n in self.banned_devices.items() if n != name}
        await self.store.remove_ban(self.code, name)
        self._broadcast_room()

    def _banned(self, name: str) -> str | None:
        """The banned name `name` folds to, if any."""
        return next((b for b in self.banned if same_name(b, name)), None)

    async def _on_pass_host(self, member: Member, msg: P.PassHost) -> None:
        self._require_host(member)
        target = self.members.get(msg.player)
        if target is None or target.id == member.id:
            raise RoomError(404, P.UNKNOWN_PLAYER, "no such player to pass the host to")
        await self._set_host(target.id)
        self._broadcast_room()

    async def _on_leave(self, member: Member, msg: P.Leave) -> None:
        await self._remove(member, LEFT)

    async def _on_action(self, member: Member, msg: P.ActionMsg) -> None:
        if self.status != PLAYING or self.state is None:
            raise RoomError(409, P.WRONG_PHASE, "no game is running")
        if not any(p["id"] == member.id for p in self.game_players):
            raise RoomError(409, P.WRONG_PHASE, "you are not in this game")
        action = P.action_dict(msg)
        now = self.now()
        new_state, events = game.apply(self.state, member.id, action, now)
        # The log is the truth: commit before anyone sees the effect.
        await self.store.append_action(self.code, self.game_n,
                                 ActionRow(self.seq, now, member.id, action))
        self.seq += 1
        self.state = new_state
        await self._after_change(events)

    def _on_whisper_start(self, member: Member, msg: P.WhisperStart) -> None:
        src, dst = member.id, msg.to
        if dst not in self._whisper_targets(src) or dst not in self.members:
            raise RoomError(403, P.WHISPER_NOT_ALLOWED, "you cannot whisper to them now")
        self._whisper_change(self.whispers.start(src, dst))

    def _on_whisper_stop(self, member: Member, msg: P.WhisperStop) -> None:
        self._whisper_change(self.whispers.stop(member.id))

    def cmd_voice_lost(self, pid: str) -> None:
        """`pid`'s voice connection failed or was closed from their side (socket kept)."""
        if pid in self.members:
            self._whisper_change(self.whispers.end_to(pid, TARGET_NO_VOICE))

    def _on_rtc_offer(self, member: Member, msg: P.RtcOffer) -> None:
        if not VoiceLink.available():
            raise RoomError(503, P.VOICE_UNAVAILABLE, "voice is not available on this server")
        per_minute = self.settings.rtc_offers_per_minute
        bucket = self._offers.setdefault(member.id, TokenBucket(per_minute / 60, per_minute))
        if not bucket.take():
            raise RoomError(429, P.RATE_LIMITED, "too many voice offers; wait a little")
        conn = member.conn
        seats = self.spectators if isinstance(member, Spectator) else self.members
        # A spectator's peer only listens: its microphone, if any, never reaches the mix.
        self.voice.offer(member.id, conn, msg.sdp, msg.ref,
                         lambda: seats.get(member.id) is member and member.conn is conn,
                         listen_only=isinstance(member, Spectator))

    def _on_rtc_ice(self, member: Member, msg: P.RtcIce) -> None:
        # The server answers with every candidate gathered (no trickle): clients
        # send complete offers; stray candidates are accepted and ignored.
        return None

    # Voice ------------------------------------------------------------------

    def _routing(self) -> Any:
        """The game's audio policy as a Routing (in the lobby and at the end, all public),
        with the room's whispers in progress and its hushed whisperers."""
        policy = self.policy if self.status == PLAYING else None
        return self.whispers.apply(routing(self.members, policy))

    def _apply_routing(self) -> None:
        self.voice.refresh()

    def _layout(self) -> list[str] | None:
        """The circle of seats when the room places voices around the table, else None."""
        if not self.voice_options.get("spatial"):
            return None
        return [m.id for m in self._seated()]

    def _mouths_allowed(self) -> Any:
        if self.status == PLAYING and self.policy is not None:
            return self.policy.mouths
        return self.members.keys()

    def _listeners(self) -> list[tuple[str, Callable[[str], None]]]:
        """Every connected socket as (player id, send): for per-listener mouths. The
        newest levels replace ones a slow reader has not taken yet."""
        return [(m.id, functools.partial(m.conn.send_latest, "mouths"))
                for m in self._sockets() if m.conn is not None]

    def _send_all(self, text: str) -> None:
        # The newest levels replace ones a slow reader has not taken yet.
        for m in self._sockets():
            if m.conn is not None:
                m.conn.send_latest("mouths", text)

    def _whisper_targets(self, src: str) -> frozenset[str]:
        if self.status != PLAYING or self.policy is None:
            return frozenset()
        return frozenset(self.policy.whisper.get(src, frozenset()))

    def _whisper_change(self, notes: list[Note]) -> None:
        """The whisper set changed: the voice's routing first, then the notes."""
        if notes:
            self._apply_routing()
            self._send_notes(notes)

    def _send_notes(self, notes: list[Note]) -> None:
        for pid, note in notes:
            m = self.members.get(pid)
            if m is not None and m.conn is not None:
                m.conn.send(note)

    # Lobby and games --------------------------------------------------------

    def _settings_json(self) -> dict[str, Any]:
        return {"preset": self.preset, "options": self.options, "voice": self.voice_options}

    def _seated(self) -> list[Member]:
        return sorted(self.members.values(), key=lambda m: m.seat)

    def _any_online(self) -> bool:
        return any(m.online for m in self.members.values())

    def _next_host(self, after: str | None, online_only: bool = False) -> str | None:
        """The next member in seat order after `after` (wrapping), optionally online."""
        seated = [m for m in self._seated() if m.id != after]
        if not seated:
            return None
        seat = self.members[after].seat if after in self.members else 0
        ordered = [m for m in seated if m.seat > seat] + [m for m in seated if m.seat < seat]
        for m in ordered:
            if m.online or not online_only:
                return m.id
        return None

    async def _set_host(self, pid: str | None) -> None:
        self.host = pid
        await self.store.set_host(self.code, pid)

    async def _remove(self, member: Member, why: int) -> None:
        """Kick or leave: the seat is freed, the token stops working."""
        if member.id == self.host:
            await self._set_host(self._next_host(after=member.id, online_only=False))
        del self.members[member.id]
        await self.store.set_kicked(self.code, member.id, why)
        self._send_notes(self.whispers.forget(member.id, TARGET_LEFT))
        self.whispers.release(member.id)
        self.voice.drop(member.id)
        self.voice.set_volumes(member.id, {})
        self._last_view.pop(member.id, None)
        if member.conn is not None:
            if why == KICKED:
                member.conn.send(P.error(P.KICKED, "the host removed you from the room"))
                member.conn.close(P.CLOSE_KICKED, "kicked")
            else:
                member.conn.close(P.CLOSE_LEFT, "left")
            member.conn = None
        self._broadcast_room()
        self._apply_routing()
        self._schedule()

    async def _start_game(self) -> None:
        players = [{"id": m.id, "name": m.name} for m in self._seated()]
        options = game.validate_options(self.preset, self.options, len(players))
        seed = new_seed()
        now = self.now()
        # The words are drawn apart and stored with the game: a replay after a
        # restart then deals the same ones even if the word files changed.
        words = game.draw_words(self.preset, options, seed)
        state = game.new_game(self.preset, options, seed, players, now, words=words)
        n = self.game_n + 1
        await self.store.start_game(self.code, GameRow(n, self.preset, options, seed, players,
                                                       now, None, None, words))
        self.game_n, self.state, self.seq = n, state, 0
        self.game_players = players
        self.status = PLAYING
        self._last_view.clear()
        self.whispers.hushed.clear()  # a new game: everyone starts heard as the rules say
        self._broadcast_room()
        # new_game returns no events: the core says how the game starts (the first turn).
        await self._after_change(game.opening_events(state))

    async def _after_change(self, events: list[dict[str, Any]]) -> None:
        """Everything that follows a new game state: bookkeeping, audio, cues, views."""
        if self.status == PLAYING and game.result(self.state) is not None:
            await self._finish()
        self.policy = game.audio_policy(self.state) if self.state is not None else None
        ended = self.whispers.keep_only(lambda src, dst: dst in self._whisper_targets(src))
        self._apply_routing()
        self._send_notes(ended)
        for name, listeners in game.cues(self.state, events):
            self._cue(name, listeners)
        self._send_views()
        self._schedule()

    async def _finish(self) -> None:
        """The game is over: store its result (its points with it); it joins the evening."""
        now = self.now()
        result = game.result(self.state)
        await self.store.end_game(self.code, self.game_n, now, result)
        self.results.append(result)
        self.status = OVER
        self._broadcast_room()

    def _cue(self, name: str, listeners: list[str]) -> None:
        if is_public_cue(listeners, (p["id"] for p in self.game_players)):
            listeners = [*listeners, *self.spectators]  # the whole table hears it: so do screens
        self.voice.play_cue(name, listeners)
        for pid in listeners:
            m = self.members.get(pid) or self.spectators.get(pid)
            if m is not None and m.conn is not None:
                m.conn.send({"type": "cue", "name": name})

    def _send_views(self) -> None:
        # A game change may change the room too (phase, scores): the room goes first.
        self._flush_room()
        for m in self.members.values():
            self._send_view(m)
        self._send_spectator_views(self.spectators.values())

    def _send_spectator_views(self, spectators: Iterable[Spectator]) -> None:
        """The spectator view, `game.view(state, None)`: public information only, computed
        once per change and the same for every screen."""
        watching = [s for s in spectators if s.conn is not None]
        if self.state is None or not watching:
            return
        view = game.view(self.state, None)
        text = json.dumps(view, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        msg = f'{{"type":"view","server_time":{json.dumps(self.clock())},"view":{text}}}'
        for s in watching:
            if self._last_view.get(s.id) != text:
                self._last_view[s.id] = text
                s.conn.send_latest("view", msg)

    def _send_view(self, member: Member) -> None:
        if member.conn is None or self.state is None:
            return
        if not any(p["id"] == member.id for p in self.game_players):
            return
        view = game.view(self.state, member.id)
        text = json.dumps(view, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        if self._last_view.get(member.id) == text:
            return
        self._last_view[member.id] = text
        # A view is the player's whole picture: a newer one replaces one still queued.
        member.conn.send_latest(
            "view", f'{{"type":"view","server_time":{json.dumps(self.clock())},"view":{text}}}')

    def _room_message(self) -> dict[str, Any]:
        evening = game.evening(self.results)
        return {
            "type": "room",
            "code": self.code,
            "host": self.host,
            "players": [
                {"id": m.id, "name": m.name, "color": m.color, "online": m.online,
                 "host": m.id == self.host, "seat": m.seat,
                 "points": evening["points"].get(m.id, 0)}
                for m in self._seated()
            ],
            # A custom word list is the host's secret: the table sees its size only.
            "settings": {"preset": self.preset,
                         "options": game.public_options(self.preset, self.options),
                         "voice": dict(self.voice_options)},
            "phase": self.status,
            "state": self.status,  # docs/contracts.md's name for the same thing
            "preset": self.preset,
            "game": self.game_n,
            "max_players": self.settings.max_players,
            # Shared screens watching now (never who: a spectator has no name).
            "spectators": sum(1 for s in self.spectators.values() if s.online),
            # Every pass, watched or not, so the host can remove one (no token, no address).
            "passes": [{"id": s.id, "online": s.online}
                       for s in sorted(self.spectators.values(), key=lambda s: pass_number(s.id))],
            "evening": evening,
            "banned": list(self.banned),
        }

    def _room_text(self) -> str:
        return json.dumps(self._room_message(), separators=(",", ":"), ensure_ascii=False)

    def _broadcast_room(self) -> None:
        """The roster, host, settings or phase changed: everyone gets one `room` message.

        Coalesced: sent at the end of the actor's turn, and no more often than
        `room_broadcast_window`, so a burst of changes (a reconnect flood) is one
        message. Each socket is sent only a `room` that differs from its last one.
        """
        self._room_dirty = True

    def _end_of_turn(self) -> None:
        """After each command: send the pending `room` now or when the window allows."""
        if not self._room_dirty or self._room_flush is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._room_flushed_at + self.settings.room_broadcast_window - loop.time()
        if wait <= 0:
            self._flush_room()
        else:
            self._room_flush = loop.call_later(wait, self.post, self._flush_room)

    def _flush_room(self) -> None:
        if self._room_flush is not None:
            self._room_flush.cancel()
            self._room_flush = None
        if not self._room_dirty:
            return
        self._room_dirty = False
        self._room_flushed_at = asyncio.get_running_loop().time()
        text = self._room_text()
        for m in self._sockets():
            if m.conn is not None:
                m.conn.send_room(text)

    # Restore ----------------------------------------------------------------

    async def load(self) -> None:
        """Rebuild this room from the store (called once, before `start`)."""
        row = await self.store.room(self.code)
        assert row is not None
        self.created = row.created
        self.last_activity = max(row.updated, self.clock())
        self.preset = row.settings.get("preset", "intruso")
        self.options = row.settings.get("options") or game.default_options(self.preset)
        self.voice_options = {**VOICE_DEFAULTS, **(row.settings.get("voice") or {})}
        self.host = row.host
        self.results = await self.store.results(self.code)
        self.banned = await self.store.bans(self.code)
        self.banned_devices = await self.store.banned_devices(self.code)
        devices = await self.store.devices(self.code)
        now = self.clock()
        for p in await self.store.players(self.code):
            self.next_seat = max(self.next_seat, p.seat)
            if p.kicked == IN_ROOM:
                self.members[p.id] = Member(p.id, p.name, p.color, p.seat, p.joined,
                                            offline_since=now, device=devices.get(p.id, ""))
        for sid, joined in await self.store.spectators(self.code):
            # Whether a screen was on it is not stored: after a restart every pass has
            # `spectator_idle_ttl` from now to be watched again.
            self.spectators[sid] = Spectator(sid, joined, offline_since=now, seen=True,
                                             device=devices.get(sid, ""))
            self.next_spectator = max(self.next_spectator, int(sid[1:]))
        if self.host not in self.members:
            await self._set_host(self._next_host(after=None))
        g = await self.store.last_game(self.code)
        self.status = row.status if row.status in (LOBBY, PLAYING, OVER) else LOBBY
        if g is None:
            return
        self.game_n = g.n  # the next game is n + 1, whatever happens below
        if self.status == LOBBY:
            return
        log_rows = await self.store.actions(self.code, g.n)
        self.seq, self.game_players = len(log_rows), g.players
        self.last_now = max([g.started_at] + [a.t for a in log_rows])
        try:
            self.state = game.replay(g.preset, g.options, g.seed, g.players,
                                     [{"t": a.t, "player": a.player, "action": a.action}
                                      for a in log_rows], started_at=g.started_at,
                                     words=g.pair)
        except Exception:
            # A log that no longer replays (code changed under it): keep the room, drop the game.
            log.exception("room %s: game %d does not replay; back to the lobby", self.code, g.n)
            self.state, self.status = None, LOBBY
            await self.store.set_status(self.code, LOBBY, now)
            return
        if self.status == PLAYING:
            events: list[dict[str, Any]] = []
            d = game.next_deadline(self.state)
            if d is not None and d <= now:
                self.state, events = game.tick(self.state, self.now())
            await self._after_change(events)
        else:
            self.policy = game.audio_policy(self.state)
