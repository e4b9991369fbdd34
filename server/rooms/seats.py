"""Seats of a room: who sits where, their names and colours, and the room's refusal type."""

from __future__ import annotations

import re
from dataclasses import dataclass

from game.unicode_text import clean, has_letter_or_digit, skeleton
from server.wire.connection import Connection

# players.kicked in the store: still seated, removed by the host, gone by choice.
IN_ROOM, KICKED, LEFT = 0, 1, 2

# Sixteen distinct colours, one per seat unless the player picks one.
PALETTE = (
    "#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
    "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3",
)  # fmt: skip
# \A...\Z (and fullmatch wherever it is used): "$" would also match before a
# trailing newline ("#aabbcc\n").
COLOR_RE = re.compile(r"\A#[0-9a-fA-F]{6}\Z")
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
    device: str = ""  # the hash of the device cookie it joined with ("" when none)

    @property
    def online(self) -> bool:
        return self.conn is not None


def clean_name(name: str) -> str:
    """A display name as stored and shown: `game.unicode_text.clean` (NFKC, invisible
    characters removed, blank-looking ones turned into spaces, spaces collapsed),
    1 to 24 characters, at least one of them a letter or a digit."""
    name = clean(name or "")
    if not 1 <= len(name) <= MAX_NAME or not has_letter_or_digit(name):
        raise RoomError(
            422, "bad_name", f"a name has 1 to {MAX_NAME} characters, a letter or digit among them"
        )
    return name


def name_keys(name: str) -> frozenset[str]:
    """The forms a name is compared in: two names that share one are the same seat name.

    Their look-alike skeleton (`game.unicode_text.skeleton`): case, accents,
    invisible characters, full-width forms and letters of other scripts that
    look like Latin ones are ignored, so "Ada", "ADA", "Аda" (Cyrillic А),
    "Ａｄａ" and "Ada" + a Hangul filler are one name. The skeleton maps a
    capital I to l before case is folded ("AI" and "Al" collide), so the
    skeleton of the case-folded name is a key too: "Ivan" and "ivan" collide.
    """
    return frozenset((skeleton(name), skeleton(name.casefold())))


def same_name(a: str, b: str) -> bool:
    """Whether two names would be taken for one another at the table."""
    return not name_keys(a).isdisjoint(name_keys(b))


def pick_color(wanted: str | None, used: set[str], seat: int) -> str:
    """The colour asked for (#rrggbb), else the first palette colour nobody uses."""
    if wanted is not None:
        if not isinstance(wanted, str) or not COLOR_RE.fullmatch(wanted):
            raise RoomError(422, "bad_color", "a colour is #rrggbb")
        return wanted.lower()
    for c in PALETTE:
        if c not in used:
            return c
    return PALETTE[seat % len(PALETTE)]
