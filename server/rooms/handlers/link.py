"""Handlers of a socket's upkeep: `hello` (the picture again), `ping`, `ice` (fresh TURN)."""

from __future__ import annotations

from server.rooms import roster
from server.rooms.ports import GameRoom, Parts
from server.rooms.seats import Member
from server.rooms.sockets import ice_servers, send_picture
from server.rooms.spectators import Spectator
from server.wire import protocol as P


def on_hello(room: GameRoom, member: Member | Spectator, msg: P.Hello) -> None:
    # No second welcome: a client starts its voice on welcome, once per socket.
    member.conn.send_room(roster.room_text(room), again=True)
    send_picture(room, member)


def on_ping(room: Parts, member: Member | Spectator, msg: P.Ping) -> None:
    member.conn.send({"type": "pong", "t": msg.t, "server_time": room.clock()})


def on_ice(room: Parts, member: Member | Spectator, msg: P.Ice) -> None:
    # Credentials live minutes: the client asks for fresh ones before they run out.
    member.conn.send({"type": "ice_servers", **({"ref": msg.ref} if msg.ref else {}),
                      "server_time": room.clock(), "ice_servers": ice_servers(room, member)})
