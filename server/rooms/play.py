"""The game on a room's table: starting one, what follows each new state, its end.

The room's phase (lobby, playing, over, closed) and its current game (state,
action count, players, audio policy) live on the Room; these functions move
them on. Every new state is followed by the same steps (`after_change`): the
result stored if the game ended, the audio policy and the whispers it still
allows handed to the voice (routing before notes), then cues, then views.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import game
from server.rooms.codes import new_seed
from server.rooms.ports import Game, GameRoom
from server.storage.seam import GameRow

log = logging.getLogger(__name__)

# The room's phase (rooms.status in the store).
LOBBY, PLAYING, OVER, CLOSED = "lobby", "playing", "over", "closed"


def plays(room: Game, pid: str) -> bool:
    """Whether `pid` is a player of the current (or last) game."""
    return any(p["id"] == pid for p in room.game_players)


def whisper_targets(room: Game, src: str) -> frozenset[str]:
    """Whom `src` may whisper to now (nobody outside a game)."""
    if room.status != PLAYING or room.policy is None:
        return frozenset()
    return frozenset(room.policy.whisper.get(src, frozenset()))


async def ready_language(options: dict[str, Any]) -> None:
    """The game's language's dictionaries read in a worker thread, not on the loop that
    carries every room's voice (once per process and language; at once after that)."""
    lang = options.get("lang")
    if isinstance(lang, str):
        await asyncio.to_thread(game.warm_up, (lang,))


async def start_game(room: GameRoom) -> None:
    """Deal a new game to the seated members (a first game or a rematch)."""
    players = [{"id": m.id, "name": m.name} for m in room.table.seated()]
    options = game.validate_options(room.preset, room.options, len(players))
    await ready_language(options)
    seed = new_seed()
    now = room.now()
    # The words are drawn apart and stored with the game: a replay after a
    # restart then deals the same ones even if the word files changed.
    words = game.draw_words(room.preset, options, seed)
    state = game.new_game(room.preset, options, seed, players, now, words=words)
    n = room.game_n + 1
    await room.store.start_game(room.code, GameRow(n, room.preset, options, seed, players,
                                                   now, None, None, words))
    room.game_n, room.state, room.seq = n, state, 0
    room.game_players = players
    room.status = PLAYING
    room.outbox.forget_all()
    room.whispers.hushed.clear()  # a new game: everyone starts heard as the rules say
    room.outbox.room_changed()
    # new_game returns no events: the core says how the game starts (the first turn).
    await after_change(room, game.opening_events(state))


async def tick_if_due(room: GameRoom, now: float) -> None:
    """The game's deadline passed: tick it (a failing tick is retried later, not spun)."""
    if room.status != PLAYING or room.state is None:
        return
    d = game.next_deadline(room.state)
    if d is None or d > now:
        return
    try:
        room.state, events = game.tick(room.state, now)
    except Exception:
        # A core bug: keep the room alive and retry later rather than spin.
        log.exception("room %s: tick failed", room.code)
        room.retry_tick_at = now + 5.0
    else:
        await after_change(room, events)


def next_deadline(room: GameRoom) -> float | None:
    """When the running game needs a tick (never before a failed tick's retry time)."""
    if room.status != PLAYING or room.state is None:
        return None
    d = game.next_deadline(room.state)
    return None if d is None else max(d, room.retry_tick_at)


async def after_change(room: GameRoom, events: list[dict[str, Any]]) -> None:
    """Everything that follows a new game state: bookkeeping, audio, cues, views."""
    if room.status == PLAYING and game.result(room.state) is not None:
        await finish(room)
    room.policy = game.audio_policy(room.state) if room.state is not None else None
    ended = room.whispers.keep_only(lambda src, dst: dst in whisper_targets(room, src))
    room.voice.refresh()
    room.outbox.notes(ended)
    for name, listeners in game.cues(room.state, events):
        room.outbox.cue(name, listeners)
    room.outbox.views()
    room.schedule()


async def finish(room: GameRoom) -> None:
    """The game is over: store its result (its points with it); it joins the evening."""
    now = room.now()
    result = game.result(room.state)
    await room.store.end_game(room.code, room.game_n, now, result)
    room.results.append(result)
    room.status = OVER
    room.outbox.room_changed()
