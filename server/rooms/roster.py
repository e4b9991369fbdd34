"""What a room shows of itself: the `room` message its sockets get, and its public info."""

from __future__ import annotations

import json
from typing import Any

import game
from server.rooms.ports import GameRoom
from server.rooms.spectators import pass_number


def room_message(room: GameRoom) -> dict[str, Any]:
    """The roster, host, settings, phase and evening, as every socket of the room sees them."""
    table = room.table
    evening = game.evening(room.results)
    return {
        "type": "room",
        "code": room.code,
        "host": table.host,
        "players": [
            {"id": m.id, "name": m.name, "color": m.color, "online": m.online,
             "host": m.id == table.host, "seat": m.seat,
             "points": evening["points"].get(m.id, 0)}
            for m in table.seated()
        ],
        # A custom word list is the host's secret: the table sees its size only.
        "settings": {"preset": room.preset,
                     "options": game.public_options(room.preset, room.options),
                     "voice": dict(room.voice_options)},
        "phase": room.status,
        "state": room.status,  # docs/contracts.md's name for the same thing
        "preset": room.preset,
        "game": room.game_n,
        "max_players": room.settings.max_players,
        # Shared screens watching now (never who: a spectator has no name).
        "spectators": sum(1 for s in table.spectators.values() if s.online),
        # Every pass, watched or not, so the host can remove one (no token, no address).
        "passes": [{"id": s.id, "online": s.online}
                   for s in sorted(table.spectators.values(), key=lambda s: pass_number(s.id))],
        "evening": evening,
        "banned": list(table.banned),
    }


def room_text(room: GameRoom) -> str:
    return json.dumps(room_message(room), separators=(",", ":"), ensure_ascii=False)


def public_info(room: GameRoom) -> dict[str, Any]:
    """What anyone with the code may see: no ids, tokens or game secrets."""
    return {
        "code": room.code,
        "phase": room.status,
        "preset": room.preset,
        "lang": room.options.get("lang"),
        "players": [{"name": m.name, "color": m.color, "online": m.online}
                    for m in room.table.seated()],
        "max_players": room.settings.max_players,
        "joinable": room.status != "playing"
        and len(room.table.members) < room.settings.max_players,
    }
