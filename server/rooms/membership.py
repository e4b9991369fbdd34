"""Joins and departures: seats and spectator passes taken, handed on and given back.

Each change is checked by the table (server/rooms/table.py), written to the
store, then applied and told: the store write comes before anyone hears of it.
"""

from __future__ import annotations

from server.rooms.codes import hash_token, new_token
from server.rooms.play import CLOSED, PLAYING
from server.rooms.ports import LiveRoom, Parts
from server.rooms.seats import IN_ROOM, KICKED, Member, RoomError
from server.rooms.spectators import Spectator
from server.rooms.whispers import TARGET_LEFT
from server.storage.seam import PlayerRow
from server.wire import protocol as P


async def add_member(room: LiveRoom, name: str, color: str | None, device: str) -> tuple[str, str]:
    """Seat a newcomer: (player id, token). Refused while a game runs or when full,
    and to a device a ban names (`device`: the hash of the browser's cookie)."""
    if room.status == CLOSED:
        raise RoomError(404, "unknown_room", "no such room")
    if room.status == PLAYING:
        raise RoomError(409, "game_running", "a game is running; wait for it to end")
    name, color = room.table.admit(name, color, device)
    now = room.now()
    member = room.table.new_member(name, color, device, now)
    token = new_token()
    await room.store.add_player(room.code, PlayerRow(member.id, name, color, member.seat,
                                                     IN_ROOM, now), hash_token(token))
    if device:
        await room.store.set_device(room.code, member.id, device)
    room.table.seat(member)
    room.last_activity = now
    room.outbox.room_changed()
    room.voice.refresh()  # a newcomer to the lobby is heard by all
    return member.id, token


async def add_spectator(room: LiveRoom, device: str) -> tuple[str, str]:
    """A spectator pass (a shared screen): (spectator id, token). Refused when the
    room has `max_spectators` passes already, or to a device a ban names; allowed in
    any phase (no seat is taken)."""
    if room.status == CLOSED:
        raise RoomError(404, "unknown_room", "no such room")
    room.table.admit_pass(device)
    now = room.now()
    spectator = room.table.new_pass(device, now)
    token = new_token()
    await room.store.add_spectator(room.code, spectator.id, hash_token(token), now)
    if device:
        await room.store.set_device(room.code, spectator.id, device)
    room.table.spectators[spectator.id] = spectator
    room.last_activity = now
    room.outbox.room_changed()
    room.schedule()  # it expires if no screen connects to it
    return spectator.id, token


async def set_host(room: Parts, pid: str | None) -> None:
    room.table.host = pid
    await room.store.set_host(room.code, pid)


async def remove(room: Parts, member: Member, why: int) -> None:
    """Kick or leave: the seat is freed, the token stops working."""
    table = room.table
    if member.id == table.host:
        await set_host(room, table.next_host(after=member.id, online_only=False))
    del table.members[member.id]
    await room.store.set_kicked(room.code, member.id, why)
    room.outbox.notes(room.whispers.forget(member.id, TARGET_LEFT))
    room.whispers.release(member.id)
    room.voice.drop(member.id)
    room.voice.set_volumes(member.id, {})
    room.outbox.forget(member.id)
    if member.conn is not None:
        if why == KICKED:
            member.conn.send(P.error(P.KICKED, "the host removed you from the room"))
            member.conn.close(P.CLOSE_KICKED, "kicked")
        else:
            member.conn.close(P.CLOSE_LEFT, "left")
        member.conn = None
    room.outbox.room_changed()
    room.voice.refresh()
    room.schedule()


async def remove_pass(room: LiveRoom, spectator: Spectator, close: int | None = None) -> None:
    """A pass ends: given back (`close` 4004), removed by the host (4003), or
    expired (no screen on it). Its token stops working and its place is free."""
    if room.table.spectators.get(spectator.id) is not spectator:
        return
    del room.table.spectators[spectator.id]
    await room.store.remove_spectator(room.code, spectator.id)
    room.voice.drop(spectator.id)  # an offer still being answered is dropped too
    room.offers.pop(spectator.id, None)
    room.outbox.forget(spectator.id)
    conn, spectator.conn = spectator.conn, None
    if conn is not None:
        if close == P.CLOSE_LEFT:
            conn.close(P.CLOSE_LEFT, "left")
        else:
            conn.send(P.error(P.KICKED, "the host removed this screen"))
            conn.close(P.CLOSE_KICKED, "removed")
    room.outbox.room_changed()
    room.schedule()
