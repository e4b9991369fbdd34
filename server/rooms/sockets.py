"""A room's sockets: attaching one to a seat or a pass, its welcome, its going away.

A seat or pass holds at most one socket: a newer one replaces the older
(which is told and closed). Each socket is sent, in order, its `welcome`, the
`room` message, then its picture (its view and the whispers aimed at it).
"""

from __future__ import annotations

from typing import Any

from server.media.turn import seat_ice_servers
from server.rooms import membership, roster
from server.rooms.hearing import whisper_change
from server.rooms.play import whisper_targets
from server.rooms.ports import GameRoom, LiveRoom, Parts
from server.rooms.seats import Member
from server.rooms.spectators import Spectator
from server.rooms.voicelink import VoiceLink
from server.rooms.whispers import TARGET_LEFT, WHISPERER_LEFT
from server.wire import protocol as P
from server.wire.connection import Connection


async def attach(room: LiveRoom, pid: str, conn: Connection) -> bool:
    """A socket authenticated as `pid`: replace any older socket, send the full picture."""
    if pid in room.table.spectators:
        return _attach_spectator(room, pid, conn)
    member = room.table.members.get(pid)
    if member is None:
        conn.send(P.error(P.KICKED, "you are no longer in this room"))
        conn.close(P.CLOSE_KICKED, "not in the room")
        return False
    if member.conn is not None and member.conn is not conn:
        old = member.conn
        # A new tab holds no whisper: the old tab's ends, and the seat stays hushed
        # (heard by nobody) until the new page's own gesture, as after a socket blip.
        whisper_change(room, room.whispers.end_from(member.id, WHISPERER_LEFT))
        old.send(P.error(P.REPLACED, "this seat was opened in another tab"))
        old.close(P.CLOSE_REPLACED, "replaced")
    member.conn = conn
    # A hush is kept across sockets (the welcome tells the new page): releasing it
    # here would put a whisperer whose socket blipped on the public bus, unasked.
    was_away = member.offline_since is not None
    member.offline_since = None
    now = room.now()
    room.last_activity = now
    if not any(m.online for m in room.table.members.values() if m is not member):
        # Presence is written when it changes (the room's first socket), not at
        # every connect: a reconnect flood must not become a write flood.
        await room.store.touch(room.code, now)
    _send_welcome(room, member)
    conn.send_room(roster.room_text(room))  # this socket at once, before its view
    room.outbox.room_changed()  # everyone else sees the seat come online
    send_picture(room, member)
    conn.send(room.voice.links.message())  # every player's voice link, for the avatars
    if was_away:
        room.schedule()  # an away host's hand-over may be due now that someone is here
    return True


def _attach_spectator(room: LiveRoom, sid: str, conn: Connection) -> bool:
    spectator = room.table.spectators.get(sid)
    if spectator is None:  # the pass was given back
        conn.send(P.error(P.LEFT, "this spectator pass was given back"))
        conn.close(P.CLOSE_LEFT, "left")
        return False
    if conn.device and conn.device in room.table.banned_devices:
        # A pass taken elsewhere, opened in a banned browser: it ends here.
        room.post(membership.remove_pass, room, spectator, P.CLOSE_KICKED)
        conn.send(P.error(P.KICKED, "the host removed you from this room"))
        conn.close(P.CLOSE_KICKED, "banned")
        return False
    if spectator.conn is not None and spectator.conn is not conn:
        old = spectator.conn
        old.send(P.error(P.REPLACED, "this screen was opened in another tab"))
        old.close(P.CLOSE_REPLACED, "replaced")
    spectator.conn = conn
    spectator.offline_since, spectator.seen = None, True
    room.last_activity = room.now()
    room.schedule()  # a watched pass never expires
    _send_welcome(room, spectator)
    conn.send_room(roster.room_text(room))
    room.outbox.room_changed()  # the count of screens watching changed
    send_picture(room, spectator)
    conn.send(room.voice.links.message())
    return True


def detach(room: LiveRoom, pid: str, conn: Connection) -> None:
    """A socket closed. Only the member's current socket counts (a replaced one does not)."""
    spectator = room.table.spectators.get(pid)
    if spectator is not None:
        if spectator.conn is conn:
            spectator.conn = None
            spectator.offline_since = room.now()
            room.outbox.forget(pid)
            room.voice.drop(pid)
            room.outbox.room_changed()
            room.schedule()  # its idle time starts now
        return
    member = room.table.members.get(pid)
    if member is None or member.conn is not conn:
        return
    member.conn = None
    member.offline_since = room.last_activity = room.now()
    room.outbox.forget(pid)
    # Whispers to them end, their whisperers hushed; their own whisper too: its
    # frames still on the way must not reach the public bus either.
    room.outbox.notes(room.whispers.forget(pid, TARGET_LEFT))
    room.voice.refresh()
    room.voice.drop(pid)
    room.outbox.room_changed()
    room.schedule()


def send_picture(room: Parts, member: Member | Spectator) -> None:
    """The socket's view again, and the whispers aimed at a player."""
    room.outbox.picture(member, room.whispers.to(member.id))


def _send_welcome(room: LiveRoom, member: Member | Spectator) -> None:
    """Once per socket, first: who you are, the ICE servers, whether voice exists.
    A spectator's `player` is null and its `spectator` its pass id."""
    watching = isinstance(member, Spectator)
    member.conn.send({
        "type": "welcome",
        "player": None if watching else member.id,
        **({"spectator": member.id} if watching else {}),
        "room": room.code,
        "server_time": room.clock(),
        "ice_servers": ice_servers(room, member),
        "voice": VoiceLink.available(),
        **({} if watching else {"whisper": _whisper_state(room, member.id)}),
        **(room.welcome_extra() if room.welcome_extra else {}),
    })


def ice_servers(room: Parts, member: Member | Spectator) -> list[dict[str, Any]]:
    """The ICE servers of one socket, TURN credentials bound to its seat (fresh)."""
    conn = member.conn
    return seat_ice_servers(room.settings, room.code, conn.token_hash if conn else "",
                            room.clock(), spectator=isinstance(member, Spectator))


def _whisper_state(room: GameRoom, pid: str) -> dict[str, Any] | None:
    """What a new socket of `pid` must show of their whisper: null, or their hush and
    whether the old whisper may be resumed now (the page does so with a new
    `whisper_start` only while the finger that started it is still down)."""
    dst = room.whispers.hushed.get(pid)
    if dst is None:
        return None
    resumable = dst in room.table.members and dst in whisper_targets(room, pid)
    return {"to": dst, "hushed": True, "resumable": resumable}
