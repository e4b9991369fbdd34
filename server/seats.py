"""Seats of a room: who sits where, their names and colours, and the room's refusal type."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from server.connection import Connection

# players.kicked in the store: still seated, removed by the host, gone by choice.
IN_ROOM, KICKED, LEFT = 0, 1, 2

# Sixteen distinct colours, one per seat unless the player picks one.
PALETTE = (
    "#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
    "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3",
)  # fmt: skip
COLOR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")
MAX_NAME = 24


class RoomError(Exception):
    """A refused request with an HTTP status and a stable code (also sent as a WS error)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Member:
    """A seated player of the room (kicked and departed players are not members)."""

    id: str
    name: str
    color: str
    seat: int
    joined: float
    conn: Connection | None = None
    offline_since: float | None = None

    @property
    def online(self) -> bool:
        return self.conn is not None


def clean_name(name: str) -> str:
    """A display name: NFC, control characters removed, spaces collapsed, 1..24 characters."""
    name = "".join(c for c in unicodedata.normalize("NFC", name or "")
                   if unicodedata.category(c)[0] != "C").strip()
    name = re.sub(r"\s+", " ", name)
    if not 1 <= len(name) <= MAX_NAME:
        raise RoomError(422, "bad_name", f"a name has 1 to {MAX_NAME} characters")
    return name


def name_key(name: str) -> str:
    """The form two names are compared in: names with the same key are the same seat name."""
    return name.casefold()


def pick_color(wanted: str | None, used: set[str], seat: int) -> str:
    """The colour asked for (#rrggbb), else the first palette colour nobody uses."""
    if wanted is not None:
        if not COLOR_RE.match(wanted):
            raise RoomError(422, "bad_color", "a colour is #rrggbb")
        return wanted.lower()
    for c in PALETTE:
        if c not in used:
            return c
    return PALETTE[seat % len(PALETTE)]
