"""Handlers of a socket's voice: WebRTC offers and candidates, and one's own volumes."""

from __future__ import annotations

from server.rooms.ports import LiveRoom, Parts
from server.rooms.seats import Member, RoomError
from server.rooms.spectators import Spectator
from server.rooms.voicelink import VoiceLink
from server.throttle import TokenBucket
from server.wire import protocol as P


def on_rtc_offer(room: LiveRoom, member: Member | Spectator, msg: P.RtcOffer) -> None:
    if not VoiceLink.available():
        raise RoomError(503, P.VOICE_UNAVAILABLE, "voice is not available on this server")
    # Each offer makes the server gather and send ICE checks: a few a minute per seat.
    per_minute = room.settings.rtc_offers_per_minute
    bucket = room.offers.setdefault(member.id, TokenBucket(per_minute / 60, per_minute))
    if not bucket.take():
        raise RoomError(429, P.RATE_LIMITED, "too many voice offers; wait a little")
    conn = member.conn
    listening = isinstance(member, Spectator)
    seats = room.table.spectators if listening else room.table.members
    # A spectator's peer only listens: its microphone, if any, never reaches the mix.
    room.voice.offer(member.id, conn, msg.sdp, msg.ref,
                     lambda: seats.get(member.id) is member and member.conn is conn,
                     listen_only=listening)


def on_rtc_ice(room: Parts, member: Member | Spectator, msg: P.RtcIce) -> None:
    # The server answers with every candidate gathered (no trickle): clients
    # send complete offers; stray candidates are accepted and ignored.
    return None


def on_volumes(room: Parts, member: Member, msg: P.Volumes) -> None:
    """Your own mix: a gain (0 mutes) for some players' voices, and mono for yourself (not
    placed by seat), answered with the result."""
    named = set(msg.gains) | set(msg.muted)
    if member.id in named:
        raise RoomError(400, P.BAD_MESSAGE, "your own voice has no volume in your mix")
    unknown = sorted(named - set(room.table.members))
    if unknown:
        raise RoomError(404, P.UNKNOWN_PLAYER, f"no player {unknown[0]!r} in this room")
    gains = {pid: float(g) for pid, g in msg.gains.items()}
    gains.update({pid: 0.0 for pid in msg.muted})
    room.voice.set_volumes(member.id, {pid: g for pid, g in gains.items() if g != 1.0}, msg.mono)
    muted = sorted(pid for pid, g in gains.items() if g == 0.0)
    member.conn.send({"type": "volumes", "ref": msg.ref, "muted": muted, "mono": msg.mono,
                      "gains": {pid: g for pid, g in sorted(gains.items()) if g != 0.0}})
