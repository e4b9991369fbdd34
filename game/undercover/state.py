"""The whole state of an undercover game as plain dataclasses.

Everything a game is lives here: players in seat order, their roles, words and
powers, the phase and its deadline, the clue board, the ballots, the
eliminations, the chained effects still to resolve, and the one seeded random
generator (`game.state_bytes` turns it into canonical bytes for replays).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field, replace
from typing import Any

from ..state import copy_rng
from ..table import Seats

CIVILE = "civile"
INTRUSO = "intruso"
FANTASMA = "fantasma"
ROLES = (CIVILE, INTRUSO, FANTASMA)

POWERS = (
    "muto",
    "pappagallo",
    "buffone",
    "gemelli",
    "vendicatore",
    "giudice",
    "spia",
    "cupido",
    "ubriacone",
    "sabotatore",
)

PHASES = ("powers", "clues", "debate", "vote", "revote", "judge", "avenge", "guess", "over")


@dataclass
class Player:
    """One seat. `role` is the player's current team: it follows the word (Sabotatore)."""

    id: str
    name: str
    role: str = CIVILE
    word: str | None = None
    power: str | None = None
    alive: bool = True
    revealed_role: str | None = None
    # Private facts this player was shown: {"player": id | None, "fact": str}.
    known: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Clue:
    """One entry of the clue board; a timed-out turn is kept as `skipped`; a clue said
    aloud in one-phone play is `spoken` (its text is the table's, not the phone's)."""

    round: int
    player: str
    text: str
    skipped: bool = False
    spoken: bool = False


@dataclass(frozen=True)
class Elimination:
    """A player out of the game; `role` is what was revealed (never the word)."""

    player: str
    role: str
    round: int
    cause: str  # vote | cupid | avenger
    session: int  # which vote session (1 = the very first vote of the game)


@dataclass
class GameState(Seats):
    """An undercover game (Intruso, Infiltré, Sosia)."""

    preset: str
    options: dict[str, Any]
    seed: int
    players: list[Player]
    rng: random.Random
    game: str = "undercover"
    word_civili: str = ""
    word_intrusi: str = ""
    category: str = ""
    phase: str = "powers"
    round: int = 0
    phase_started: float = 0.0
    deadline: float | None = None
    order: list[str] = field(default_factory=list)
    turn_index: int = 0
    reading: bool = False  # the players are reading their cards: the first clue's timer waits
    clues: list[Clue] = field(default_factory=list)
    ready: list[str] = field(default_factory=list)
    votes: dict[str, str] = field(default_factory=dict)
    candidates: list[str] = field(default_factory=list)
    vote_session: int = 0  # ballots sessions opened so far (vote + its revote/judge)
    last_tally: dict[str, int] | None = None  # counts of the last closed ballot (public)
    ballots: list[dict[str, str]] = field(default_factory=list)  # closed ballots' votes (secret)
    eliminations: list[Elimination] = field(default_factory=list)
    # Chained effects still to resolve, in order: {"do": "eliminate"|"guess"|"avenge"|"check", ...}
    pending: list[dict[str, Any]] = field(default_factory=list)
    acting: str | None = None  # who must act in judge / avenge / guess
    powers_waiting: list[str] = field(default_factory=list)  # start choices still open
    cupid: list[str] = field(default_factory=list)  # [cupido, bound] once bound
    drunk: list[str] = field(default_factory=list)  # the Ubriacone's two victims
    swap_used: bool = False
    outcome: str | None = None  # civili | infiltrati | fantasma | buffone
    winners: list[str] = field(default_factory=list)
    guesses: list[dict[str, Any]] = field(default_factory=list)

    def clone(self) -> GameState:
        """A copy that shares nothing mutable with this state (a fast deep copy).

        Clues and eliminations are frozen and the options are never changed
        after validation, so those are shared.
        """
        new = copy.copy(self)
        new.players = [replace(p, known=[dict(k) for k in p.known]) for p in self.players]
        new.rng = copy_rng(self.rng)
        new.order = list(self.order)
        new.clues = list(self.clues)
        new.ready = list(self.ready)
        new.votes = dict(self.votes)
        new.candidates = list(self.candidates)
        new.last_tally = dict(self.last_tally) if self.last_tally is not None else None
        new.eliminations = list(self.eliminations)
        new.ballots = [dict(b) for b in self.ballots]
        new.pending = [dict(x) for x in self.pending]
        new.powers_waiting = list(self.powers_waiting)
        new.cupid = list(self.cupid)
        new.drunk = list(self.drunk)
        new.winners = list(self.winners)
        new.guesses = [dict(g) for g in self.guesses]
        return new
