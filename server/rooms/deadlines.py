"""What a room's one timer waits for, and what it does when it fires.

Three kinds of deadline: the running game's next one (a phase timer), the
end of an away host's grace (the host's role passes to the next online
seat), and a spectator pass nobody watches (it expires).
"""

from __future__ import annotations

from server.rooms import membership, play
from server.rooms.ports import LiveRoom


def wake_at(room: LiveRoom) -> float | None:
    """The room's next deadline, if any."""
    times = []
    d = play.next_deadline(room)
    if d is not None:
        times.append(d)
    table = room.table
    host = table.members.get(table.host or "")
    if host is not None and host.offline_since is not None and table.any_online():
        times.append(host.offline_since + room.settings.host_grace)
    times += [t for t in (table.pass_expiry(s) for s in table.spectators.values())
              if t is not None]
    return min(times) if times else None


async def wake(room: LiveRoom) -> None:
    """A deadline passed: tick the game, hand over an absent host's role, end idle passes."""
    now = room.now()
    await play.tick_if_due(room, now)
    table = room.table
    host = table.members.get(table.host or "")
    if (host is not None and host.offline_since is not None
            and now >= host.offline_since + room.settings.host_grace):
        nxt = table.next_host(after=host.id, online_only=True)
        if nxt is not None:
            await membership.set_host(room, nxt)
            room.outbox.room_changed()
    # A pass nobody watches on does not hold a place for ever.
    for spectator in list(table.spectators.values()):
        at = table.pass_expiry(spectator)
        if at is not None and now >= at:
            await membership.remove_pass(room, spectator)
    room.schedule()
