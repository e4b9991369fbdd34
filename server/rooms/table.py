"""A room's table: its seats, its host, its bans and its spectator passes, in memory.

The table decides who may sit or watch and who hosts next; it writes nothing
and sends nothing: the room stores each change (server/rooms/membership.py)
and tells the sockets.
"""

from __future__ import annotations

from server.config import Settings
from server.rooms.seats import Member, RoomError, clean_name, pick_color, same_name
from server.rooms.spectators import Spectator, spectator_id
from server.wire import protocol as P


class Table:
    """Seated members, the host, banned names and devices, and spectator passes."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.members: dict[str, Member] = {}
        # Spectator passes (server/rooms/spectators.py): no seat, the public view and voice.
        self.spectators: dict[str, Spectator] = {}
        self.next_spectator = 0
        self.host: str | None = None
        self.next_seat = 0
        # Names the host kicked (as shown), kept out for the room's life unless let back in,
        # and the devices (cookie hashes) of their seats: device -> name. No seat, no pass.
        self.banned: list[str] = []
        self.banned_devices: dict[str, str] = {}

    # Who is here ------------------------------------------------------------

    def seated(self) -> list[Member]:
        """The members in seat order."""
        return sorted(self.members.values(), key=lambda m: m.seat)

    def sockets(self) -> list[Member | Spectator]:
        """Every seat and spectator pass (each may hold a socket)."""
        return [*self.members.values(), *self.spectators.values()]

    def any_online(self) -> bool:
        return any(m.online for m in self.members.values())

    def next_host(self, after: str | None, online_only: bool = False) -> str | None:
        """The next member in seat order after `after` (wrapping), optionally online."""
        seated = [m for m in self.seated() if m.id != after]
        if not seated:
            return None
        seat = self.members[after].seat if after in self.members else 0
        ordered = [m for m in seated if m.seat > seat] + [m for m in seated if m.seat < seat]
        for m in ordered:
            if m.online or not online_only:
                return m.id
        return None

    def pass_expiry(self, spectator: Spectator) -> float | None:
        """When `spectator`'s pass ends if no screen watches it (None while one does)."""
        return spectator.expires_at(self.settings.spectator_idle_ttl,
                                    self.settings.spectator_claim_ttl)

    # Newcomers --------------------------------------------------------------

    def admit(self, name: str, color: str | None, device: str) -> tuple[str, str]:
        """A newcomer's name and colour as seated. Refused when full, to a banned device
        or name, or to a name already here."""
        if len(self.members) >= self.settings.max_players:
            raise RoomError(409, "room_full", f"the room holds {self.settings.max_players}")
        name = clean_name(name)
        self.refuse_banned_device(device)
        if self.banned_name(name) is not None:
            raise RoomError(403, P.NAME_BANNED, "the host removed a player of that name")
        if any(same_name(m.name, name) for m in self.members.values()):
            raise RoomError(409, "name_taken", "someone in the room already has that name")
        return name, pick_color(color, {m.color for m in self.members.values()}, self.next_seat)

    def new_member(self, name: str, color: str, device: str, now: float) -> Member:
        """The next seat, for an admitted newcomer (seated by `seat` once stored)."""
        self.next_seat += 1
        return Member(id=f"p{self.next_seat}", name=name, color=color, seat=self.next_seat,
                      joined=now, offline_since=now, device=device)

    def seat(self, member: Member) -> None:
        """Seat `member`; the first one hosts."""
        self.members[member.id] = member
        if self.host is None:
            self.host = member.id

    def admit_pass(self, device: str) -> None:
        """Refuse a new spectator pass to a banned device, or when the room has
        `max_spectators` passes already."""
        self.refuse_banned_device(device)
        limit = self.settings.max_spectators
        if len(self.spectators) >= limit:
            raise RoomError(409, P.SPECTATORS_FULL, f"the room has its {limit} spectator screens")

    def new_pass(self, device: str, now: float) -> Spectator:
        """The next spectator pass (listed by the room once stored)."""
        self.next_spectator += 1
        return Spectator(spectator_id(self.next_spectator), now, device=device)

    # Bans -------------------------------------------------------------------

    def refuse_banned_device(self, device: str) -> None:
        if device and device in self.banned_devices:
            raise RoomError(403, P.BANNED, "the host removed you from this room")

    def banned_name(self, name: str) -> str | None:
        """The banned name `name` folds to, if any."""
        return next((b for b in self.banned if same_name(b, name)), None)

    def ban(self, target: Member) -> tuple[str, set[str]]:
        """Keep `target`'s name (its folded form) and devices out: (name, devices).

        The devices are the one the seat joined from and the one its socket is open
        in: no pass, no seat under another name, for that browser."""
        name = self.banned_name(target.name) or target.name
        devices = {target.device, target.conn.device if target.conn else ""} - {""}
        if name not in self.banned:
            self.banned.append(name)
        self.banned_devices.update((d, name) for d in devices)
        return name, devices

    def unban(self, name: str) -> str | None:
        """Let the banned name `name` folds to back in, with its devices: that name, or None."""
        banned = self.banned_name(name)
        if banned is not None:
            self.banned.remove(banned)
            self.banned_devices = {d: n for d, n in self.banned_devices.items() if n != banned}
        return banned
