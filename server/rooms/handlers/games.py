"""Handlers of the game: the host starts one (`start`, `rematch`), a player acts (`action`)."""

from __future__ import annotations

import game
from server.rooms.handlers.lobby import require_host
from server.rooms.play import OVER, PLAYING, after_change, plays, start_game
from server.rooms.ports import GameRoom
from server.rooms.seats import Member, RoomError
from server.storage.seam import ActionRow
from server.wire import protocol as P


async def on_start(room: GameRoom, member: Member, msg: P.Start) -> None:
    require_host(room, member)
    if room.status == PLAYING:
        raise RoomError(409, P.WRONG_PHASE, "the game has already started")
    await start_game(room)  # after a game's end, the same as a rematch


async def on_rematch(room: GameRoom, member: Member, msg: P.Rematch) -> None:
    require_host(room, member)
    if room.status != OVER:
        raise RoomError(409, P.WRONG_PHASE, "a rematch follows a finished game")
    await start_game(room)


async def on_action(room: GameRoom, member: Member, msg: P.ActionMsg) -> None:
    """A player's game action: applied, logged, then its effects sent."""
    if room.status != PLAYING or room.state is None:
        raise RoomError(409, P.WRONG_PHASE, "no game is running")
    if not plays(room, member.id):
        raise RoomError(409, P.WRONG_PHASE, "you are not in this game")
    action = P.action_dict(msg)
    now = room.now()
    new_state, events = game.apply(room.state, member.id, action, now)
    # The log is the truth: commit before anyone sees the effect.
    await room.store.append_action(room.code, room.game_n,
                                   ActionRow(room.seq, now, member.id, action))
    room.seq += 1
    room.state = new_state
    await after_change(room, events)
