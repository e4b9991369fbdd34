"""Handlers of the room between and around games: the host's settings, kicks, bans and
hand-over, and a player leaving. Only the host may change the room (`require_host`)."""

from __future__ import annotations

from typing import Any

import game
from game.errors import GameError
from server.rooms import membership
from server.rooms.play import PLAYING
from server.rooms.ports import Choices, GameRoom, LiveRoom, Parts
from server.rooms.seats import KICKED, LEFT, Member, RoomError
from server.rooms.spectators import Spectator
from server.wire import protocol as P


def require_host(room: Parts, member: Member) -> None:
    if member.id != room.table.host:
        raise RoomError(403, P.NOT_HOST, "only the host can do that")


async def on_settings(room: GameRoom, member: Member, msg: P.SettingsMsg) -> None:
    require_host(room, member)
    if msg.voice is not None and not msg.options and msg.preset is None:
        # The voice's settings are no game rule: they may change during a game.
        await _set_voice_options(room, msg.voice)
        return
    if room.status == PLAYING:
        raise RoomError(409, P.WRONG_PHASE, "settings change between games only")
    preset = msg.preset or room.preset
    if preset not in game.PRESETS:
        raise GameError("bad_options", f"unknown preset {preset!r}", field="preset")
    base = dict(room.options) if preset == room.preset else game.default_options(preset)
    for key, value in msg.options.items():
        # A patch: {"timers": {"clue": 30}} changes one timer, not all of them.
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = {**base[key], **value}
        else:
            base[key] = value
    if base.get("one_phone"):
        # One phone for the whole table is the offline page's game: in a room every
        # player has their own, and a table vote would let one seat decide for all.
        raise GameError("bad_options", "a room plays with a phone per player",
                        field="one_phone")
    options = game.validate_options(preset, base, len(room.table.members))
    room.preset, room.options = preset, options
    if msg.voice is not None:
        await _set_voice_options(room, msg.voice)
        return
    await room.store.set_settings(room.code, _settings_json(room))
    room.outbox.room_changed()


def _settings_json(room: Choices) -> dict[str, Any]:
    """The room's settings as stored."""
    return {"preset": room.preset, "options": room.options, "voice": room.voice_options}


async def _set_voice_options(room: GameRoom, voice: P.VoiceOptions) -> None:
    patch = {k: v for k, v in voice.model_dump().items() if v is not None}
    room.voice_options = {**room.voice_options, **patch}
    await room.store.set_settings(room.code, _settings_json(room))
    room.voice.refresh()
    room.outbox.room_changed()


async def on_kick(room: LiveRoom, member: Member, msg: P.Kick) -> None:
    require_host(room, member)
    table = room.table
    spectator = table.spectators.get(msg.player)
    if spectator is not None:
        # A pass holds no seat: the host may remove one in any phase. No ban: a pass
        # has no name, and the real TV may come back by asking for a new one.
        await membership.remove_pass(room, spectator, P.CLOSE_KICKED)
        return
    if room.status == PLAYING:
        raise RoomError(409, P.WRONG_PHASE, "players can be kicked between games only")
    target = table.members.get(msg.player)
    if target is None or target.id == member.id:
        raise RoomError(404, P.UNKNOWN_PLAYER, "no such player to kick")
    # The token stays out, and so does the name (its folded form) for the room's life:
    # a kicked player cannot take a new seat under it unless the host lets them back.
    name, devices = table.ban(target)
    await room.store.add_ban(room.code, name, room.now(), sorted(devices))
    # Every socket of that browser ends with the seat (4003, its voice with it): each
    # pass it took or has open, whoever took it, and any other seat open there or
    # taken from it. The host's own seat is never removed by their kick.
    for spectator in [s for s in table.spectators.values() if _in_browser(s, devices)]:
        await membership.remove_pass(room, spectator, P.CLOSE_KICKED)
    await membership.remove(room, target, KICKED)
    for other in [m for m in table.members.values()
                  if m.id != member.id and _in_browser(m, devices)]:
        await membership.remove(room, other, KICKED)


def _in_browser(holder: Member | Spectator, devices: set[str]) -> bool:
    """Whether `holder` (a seat or a pass) was taken from, or is open in, one of `devices`."""
    return holder.device in devices or (holder.conn is not None
                                        and holder.conn.device in devices)


async def on_unban(room: Parts, member: Member, msg: P.Unban) -> None:
    require_host(room, member)
    name = room.table.unban(msg.name)
    if name is None:
        raise RoomError(404, P.NOT_BANNED, "nobody of that name was removed")
    await room.store.remove_ban(room.code, name)
    room.outbox.room_changed()


async def on_pass_host(room: Parts, member: Member, msg: P.PassHost) -> None:
    require_host(room, member)
    target = room.table.members.get(msg.player)
    if target is None or target.id == member.id:
        raise RoomError(404, P.UNKNOWN_PLAYER, "no such player to pass the host to")
    await membership.set_host(room, target.id)
    room.outbox.room_changed()


async def on_leave(room: Parts, member: Member, msg: P.Leave) -> None:
    await membership.remove(room, member, LEFT)
