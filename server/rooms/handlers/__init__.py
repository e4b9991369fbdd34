"""A room's handlers of client messages, and the dispatcher: message type -> handler.

Each handler is `handler(room, who, msg)` (sync or async), run inside the
room's actor; `who` is the sender's seat (a Member) or, for the few types a
shared screen may send, its pass (a Spectator). A refusal is raised as a
RoomError or GameError and answered to the sender as an `error`, changing
nothing. A new message type: its schema in server/wire/protocol.py, one line
in HANDLERS, its handler in the module of its concern:

- lobby.py: the host's settings, kicks, bans and hand-over; leaving
- games.py: starting a game or a rematch; a player's game action
- whisper.py: whispers starting and stopping
- voice.py: WebRTC offers and candidates; one's own volumes
- link.py: a socket's upkeep (hello, ping, fresh ICE servers)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from game.errors import GameError
from server.rooms import membership
from server.rooms.handlers import games, link, lobby, voice, whisper
from server.rooms.ports import LiveRoom
from server.rooms.seats import RoomError
from server.rooms.spectators import SPECTATOR_MESSAGES, Spectator
from server.wire import protocol as P
from server.wire.connection import Connection

Handler = Callable[..., Any]

HANDLERS: dict[str, Handler] = {
    "hello": link.on_hello,
    "ping": link.on_ping,
    "ice": link.on_ice,
    "settings": lobby.on_settings,
    "kick": lobby.on_kick,
    "unban": lobby.on_unban,
    "pass_host": lobby.on_pass_host,
    "leave": lobby.on_leave,
    "start": games.on_start,
    "rematch": games.on_rematch,
    "action": games.on_action,
    "whisper_start": whisper.on_whisper_start,
    "whisper_stop": whisper.on_whisper_stop,
    "volumes": voice.on_volumes,
    "rtc_offer": voice.on_rtc_offer,
    "rtc_ice": voice.on_rtc_ice,
}


async def _give_back(room: LiveRoom, spectator: Spectator, msg: P.Leave) -> None:
    # The pass is given back: its token stops working, a place is free.
    await membership.remove_pass(room, spectator, P.CLOSE_LEFT)


# A spectator's socket watches and listens, nothing else.
SPECTATOR_HANDLERS: dict[str, Handler] = {
    **{t: HANDLERS[t] for t in SPECTATOR_MESSAGES}, "leave": _give_back}


async def dispatch(room: LiveRoom, pid: str, conn: Connection, msg: Any) -> None:
    """Handle one validated client message from `pid`'s socket `conn`."""
    spectator = room.table.spectators.get(pid)
    if spectator is not None:
        if spectator.conn is not conn:
            return
        who: Any = spectator
        handler = SPECTATOR_HANDLERS.get(msg.type)
        if handler is None:
            conn.send(P.error(P.SPECTATOR, "a spectator screen cannot do that", msg.ref))
            return
    else:
        who = room.table.members.get(pid)
        if who is None or who.conn is not conn:
            return  # a replaced or removed socket's late message
        handler = HANDLERS.get(msg.type)
        if handler is None:
            conn.send(P.error(P.UNKNOWN_TYPE, msg.type, msg.ref))
            return
    try:
        result = handler(room, who, msg)
        if isinstance(result, Awaitable):
            await result
    except GameError as exc:
        conn.send(P.error(exc.code, exc.message, msg.ref, exc.detail or None))
    except RoomError as exc:
        conn.send(P.error(exc.code, exc.message, msg.ref))
