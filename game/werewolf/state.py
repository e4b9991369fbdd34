"""The whole state of a werewolf game (Lupi Mannari, 004) as plain dataclasses.

Everything a game is lives here: the role holders in seat order, the seated
moderator if any (no role), the phase and its deadline, the night's choices
(the seer's look, each wolf's pick), the day's ballots, the deaths, and the
one seeded random generator (`game.state_bytes` turns it into canonical bytes).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field, replace
from typing import Any

from ..state import copy_rng
from ..table import Seats

LUPO = "lupo"
CONTADINO = "contadino"
VEGGENTE = "veggente"
ROLES = (LUPO, CONTADINO, VEGGENTE)

# The factions of 004: the wolves, and the humans (contadini and the veggente).
LUPI = "lupi"
UMANI = "umani"

# A night: `night` (everyone closes their eyes), `seer`, `wolves`; a day: `day`
# (the victim is announced, then the discussion), `nomination`, two `defence`s, `lynch`.
PHASES = ("night", "seer", "wolves", "day", "nomination", "defence", "lynch", "over")
NIGHT_PHASES = ("night", "seer", "wolves")


@dataclass
class Player:
    """One role holder. A dead player is a ghost (`alive` False) until the end."""

    id: str
    name: str
    role: str = CONTADINO
    alive: bool = True


@dataclass(frozen=True)
class Death:
    """A player who became a ghost; the role is never part of it (004: cards stay covered)."""

    player: str
    day: int
    cause: str  # devoured | lynched


@dataclass(frozen=True)
class Peek:
    """One night's look by the veggente: whom, and whether that player is a wolf."""

    night: int
    player: str
    wolf: bool


@dataclass
class GameState(Seats):
    """A werewolf game. `day` counts the nights (night n is followed by day n)."""

    preset: str
    options: dict[str, Any]
    seed: int
    players: list[Player]
    rng: random.Random
    game: str = "werewolf"
    moderator: dict[str, str] | None = None  # {id, name} of a seated human moderator
    phase: str = "night"
    day: int = 1
    phase_started: float = 0.0
    deadline: float | None = None
    # The day's ballots: who is ready to stop talking, the open ballot, its candidates.
    ready: list[str] = field(default_factory=list)
    votes: dict[str, str] = field(default_factory=dict)
    candidates: list[str] = field(default_factory=list)
    nominees: list[str] = field(default_factory=list)  # in defence order
    defender: int = 0  # index into nominees during `defence`
    last_tally: dict[str, int] | None = None  # counts of the last closed ballot (public)
    last_nomination: dict[str, str] | None = None  # who named whom, last nomination (public)
    # The night: each living wolf's pick (changeable until the deadline) and the seer's look.
    bites: dict[str, str] = field(default_factory=dict)
    peeks: list[Peek] = field(default_factory=list)
    deaths: list[Death] = field(default_factory=list)
    outcome: str | None = None  # lupi | umani
    winners: list[str] = field(default_factory=list)
    # Ballots cast over the game, for the result's stats: (stage, day, voter, target).
    ballots: list[tuple[str, int, str, str]] = field(default_factory=list)

    @property
    def round(self) -> int:
        """The day number under the name every engine's reports use (game.simulate)."""
        return self.day

    def clone(self) -> GameState:
        """A copy that shares nothing mutable with this state (a fast deep copy).

        Deaths, peeks and ballots are frozen or tuples, and the options are never
        changed after validation, so those are shared.
        """
        new = copy.copy(self)
        new.players = [replace(p) for p in self.players]
        new.rng = copy_rng(self.rng)
        new.ready = list(self.ready)
        new.votes = dict(self.votes)
        new.candidates = list(self.candidates)
        new.nominees = list(self.nominees)
        new.last_tally = dict(self.last_tally) if self.last_tally is not None else None
        new.last_nomination = (
            dict(self.last_nomination) if self.last_nomination is not None else None
        )
        new.bites = dict(self.bites)
        new.peeks = list(self.peeks)
        new.deaths = list(self.deaths)
        new.winners = list(self.winners)
        new.ballots = list(self.ballots)
        new.moderator = copy.copy(self.moderator)
        return new

    # ------------------------------------------------------------ who is who

    # `player`, `has`, `living`, `living_ids` (game.table.Seats) know the role holders
    # only: the moderator is not in `players`.

    def is_moderator(self, pid: Any) -> bool:
        return self.moderator is not None and pid == self.moderator["id"]

    def seated(self, pid: Any) -> bool:
        """A role holder or the moderator."""
        return isinstance(pid, str) and (self.has(pid) or self.is_moderator(pid))

    def wolves(self, alive_only: bool = True) -> list[str]:
        return [p.id for p in self.players if p.role == LUPO and (p.alive or not alive_only)]

    def humans(self, alive_only: bool = True) -> list[str]:
        return [p.id for p in self.players if p.role != LUPO and (p.alive or not alive_only)]

    def seer(self) -> Player | None:
        return next((p for p in self.players if p.role == VEGGENTE), None)

    def defending(self) -> str | None:
        """The nominee who has the floor now (None outside `defence`)."""
        if self.phase != "defence" or self.defender >= len(self.nominees):
            return None
        return self.nominees[self.defender]

    def lynch_voters(self) -> list[str]:
        """Who votes in the lynch: the living who are not nominated (004)."""
        return [pid for pid in self.living_ids() if pid not in self.nominees]
