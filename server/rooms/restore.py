"""Rebuilding a room from the store: after a restart, or on another node (cluster mode).

The lobby comes from its tables, the game by `game.replay` of its action log,
then ticked to now. A log that no longer replays sends the room back to the
lobby rather than losing it.
"""

from __future__ import annotations

import logging
from typing import Any

import game
from server.rooms import membership, play
from server.rooms.hearing import VOICE_DEFAULTS
from server.rooms.play import LOBBY, OVER, PLAYING
from server.rooms.ports import StoredRoom
from server.rooms.seats import IN_ROOM, Member
from server.rooms.spectators import Spectator, pass_number

log = logging.getLogger(__name__)


async def load(room: StoredRoom) -> None:
    """Rebuild `room` from the store (called once, before `start`)."""
    store, code, table = room.store, room.code, room.table
    row = await store.room(code)
    assert row is not None
    room.created = row.created
    room.last_activity = max(row.updated, room.clock())
    room.preset = row.settings.get("preset", "intruso")
    room.options = row.settings.get("options") or game.default_options(room.preset)
    room.voice_options = {**VOICE_DEFAULTS, **(row.settings.get("voice") or {})}
    table.host = row.host
    room.results = await store.results(code)
    table.banned = await store.bans(code)
    table.banned_devices = await store.banned_devices(code)
    devices = await store.devices(code)
    now = room.clock()
    for p in await store.players(code):
        table.next_seat = max(table.next_seat, p.seat)
        if p.kicked == IN_ROOM:
            table.members[p.id] = Member(p.id, p.name, p.color, p.seat, p.joined,
                                         offline_since=now, device=devices.get(p.id, ""))
    for sid, joined in await store.spectators(code):
        # Whether a screen was on it is not stored: after a restart every pass has
        # `spectator_idle_ttl` from now to be watched again.
        table.spectators[sid] = Spectator(sid, joined, offline_since=now, seen=True,
                                          device=devices.get(sid, ""))
        table.next_spectator = max(table.next_spectator, pass_number(sid))
    if table.host not in table.members:
        await membership.set_host(room, table.next_host(after=None))
    g = await store.last_game(code)
    room.status = row.status if row.status in (LOBBY, PLAYING, OVER) else LOBBY
    if g is None:
        return
    room.game_n = g.n  # the next game is n + 1, whatever happens below
    if room.status == LOBBY:
        return
    log_rows = await store.actions(code, g.n)
    room.seq, room.game_players = len(log_rows), g.players
    room.last_now = max([g.started_at] + [a.t for a in log_rows])
    await play.ready_language(g.options)
    try:
        room.state = game.replay(g.preset, g.options, g.seed, g.players,
                                 [{"t": a.t, "player": a.player, "action": a.action}
                                  for a in log_rows], started_at=g.started_at, words=g.pair)
    except Exception:
        # A log that no longer replays (code changed under it): keep the room, drop the game.
        log.exception("room %s: game %d does not replay; back to the lobby", code, g.n)
        room.state, room.status = None, LOBBY
        await store.set_status(code, LOBBY, now)
        return
    if room.status == PLAYING:
        events: list[dict[str, Any]] = []
        d = game.next_deadline(room.state)
        if d is not None and d <= now:
            room.state, events = game.tick(room.state, room.now())
        await play.after_change(room, events)
    else:
        room.policy = game.audio_policy(room.state)
