"""Handlers of whispers: a finger down (`whisper_start`) and up (`whisper_stop`).

The whisper set itself is server/rooms/whispers.py; these check the game
allows it and hand the change to the voice, then the notes to the sockets.
"""

from __future__ import annotations

from server.rooms.hearing import whisper_change
from server.rooms.play import whisper_targets
from server.rooms.ports import GameRoom, Parts
from server.rooms.seats import Member, RoomError
from server.wire import protocol as P


def on_whisper_start(room: GameRoom, member: Member, msg: P.WhisperStart) -> None:
    src, dst = member.id, msg.to
    if dst not in whisper_targets(room, src) or dst not in room.table.members:
        raise RoomError(403, P.WHISPER_NOT_ALLOWED, "you cannot whisper to them now")
    whisper_change(room, room.whispers.start(src, dst))


def on_whisper_stop(room: Parts, member: Member, msg: P.WhisperStop) -> None:
    whisper_change(room, room.whispers.stop(member.id))
