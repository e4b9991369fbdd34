"""Who hears and sees whom in a room right now, as the voice link asks for it.

The game's audio policy while a game runs (all public otherwise), with the
room's whispers in progress and its hushed whisperers; the mouths a socket may
see; and the circle of seats when the room places voices around the table
(whom a player may whisper to is the game's say: server/rooms/play.py). A whisper change reaches the voice's routing before
its notes reach the sockets.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from server.rooms.play import PLAYING
from server.rooms.ports import GameRoom, Parts
from server.rooms.voicelink import routing
from server.rooms.whispers import Note

# The room's voice settings and their defaults: `spatial` places the voices around
# the table (off by default: some players listen with one earbud).
VOICE_DEFAULTS: dict[str, Any] = {"spatial": False}


def routing_now(room: GameRoom) -> Any:
    """The game's audio policy as a Routing (in the lobby and at the end, all public),
    with the room's whispers in progress and its hushed whisperers."""
    policy = room.policy if room.status == PLAYING else None
    return room.whispers.apply(routing(room.table.members, policy))


def layout(room: GameRoom) -> list[str] | None:
    """The circle of seats when the room places voices around the table, else None."""
    if not room.voice_options.get("spatial"):
        return None
    return [m.id for m in room.table.seated()]


def mouths_allowed(room: GameRoom) -> Collection[str]:
    if room.status == PLAYING and room.policy is not None:
        return room.policy.mouths
    return room.table.members.keys()


def whisper_change(room: Parts, notes: list[Note]) -> None:
    """The whisper set changed: the voice's routing first, then the notes."""
    if notes:
        room.voice.refresh()
        room.outbox.notes(notes)
