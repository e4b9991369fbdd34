"""The whole state of an Impostore game (002) as plain dataclasses.

Players in seat order with their roles and what their card showed them, the
secret word and its reserves (for "Non conosco la parola"), the phase and its
deadline, the speaking order and turn, the ballots, the eliminations, the
guesses, and the one seeded random generator (`game.state_bytes` turns it all
into canonical bytes for replays).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field, replace
from typing import Any

from ..state import copy_rng
from ..table import Seats

INNOCENTE = "innocente"
IMPOSTORE = "impostore"
COMPLICE = "complice"
GEMELLO = "gemello"
PAGLIACCIO = "pagliaccio"
ROLES = (INNOCENTE, IMPOSTORE, COMPLICE, GEMELLO, PAGLIACCIO)

# The optional roles a room may add (the Gemelli are one option for two players).
OPTIONAL_ROLES = ("complice", "gemelli", "pagliaccio")

# Which side of the evening's statistics (game/evening.py) each role plays on.
SIDE = {INNOCENTE: "innocent", GEMELLO: "innocent", IMPOSTORE: "impostor",
        COMPLICE: "other", PAGLIACCIO: "other"}

PHASES = ("card", "word_vote", "clues", "vote", "runoff", "guess", "over")


@dataclass
class Player:
    """One seat: its role, whether it is still in play, and what its card told it."""

    id: str
    name: str
    role: str = INNOCENTE
    alive: bool = True
    revealed_role: str | None = None
    # Facts this player's card shows about others: {"player": id, "fact": str}.
    known: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Turn:
    """One spoken clue turn: who was called, in which clue phase and round, how it ended."""

    phase: int  # which clue phase of the game (elimination mode has several)
    round: int  # which round of clues within that phase (1..rounds)
    player: str
    ended: str  # "done" (the speaker tapped) | "timeout"


@dataclass(frozen=True)
class Elimination:
    """A player out of the game; their role is revealed to everyone."""

    player: str
    role: str
    round: int


@dataclass(frozen=True)
class Ballot:
    """A closed ballot: who voted whom (kept for the points; shown only if votes are open)."""

    round: int
    kind: str  # "vote" | "runoff"
    votes: dict[str, str]
    tally: dict[str, int]


@dataclass
class GameState(Seats):
    """An Impostore game (Classica, Caos, Esperti)."""

    preset: str
    options: dict[str, Any]
    seed: int
    players: list[Player]
    rng: random.Random
    game: str = "impostor"
    category: str = ""
    # The words of the game: the first is dealt, the others replace it on a "change" vote.
    # Each {"word": str, "hints": [str, ...]}.
    reserve: list[dict[str, Any]] = field(default_factory=list)
    word: str = ""
    hint: str | None = None  # the hint word the impostors see (hint mode)
    words_seen: list[str] = field(default_factory=list)  # every word dealt, in order
    impostor_count: int = 0
    roles_in_play: list[str] = field(default_factory=list)  # optional roles actually dealt
    phase: str = "card"
    round: int = 0  # clue phases so far (elimination mode plays several)
    clue_round: int = 0  # the round of clues within the current clue phase
    phase_started: float = 0.0
    deadline: float | None = None
    order: list[str] = field(default_factory=list)
    turn_index: int = 0
    known_innocent: list[str] = field(default_factory=list)  # first speakers, when innocent by rule
    turns: list[Turn] = field(default_factory=list)
    ready: list[str] = field(default_factory=list)  # card seen / free clues finished
    # "Non conosco la parola": requests left, who asked for the current word (never shown).
    requests_left: int = 0
    asked: list[str] = field(default_factory=list)
    word_votes: dict[str, bool] = field(default_factory=dict)
    # One-phone play: a request made on a private card screen waits for every card to be
    # seen, so the vote does not open right after the asker's turn with the phone.
    word_request: bool = False
    last_word_vote: dict[str, int] | None = None  # {"yes": n, "no": n, "changed": 0|1}
    votes: dict[str, str] = field(default_factory=dict)
    candidates: list[str] = field(default_factory=list)
    ballots: list[Ballot] = field(default_factory=list)
    eliminations: list[Elimination] = field(default_factory=list)
    acting: str | None = None  # the eliminated impostor who guesses
    guesses: list[dict[str, Any]] = field(default_factory=list)
    outcome: str | None = None  # innocents | impostors | pagliaccio
    winners: list[str] = field(default_factory=list)

    def clone(self) -> GameState:
        """A copy that shares nothing mutable with this state (turns, ballots and
        eliminations are frozen; the options are never changed after validation)."""
        new = copy.copy(self)
        new.players = [replace(p, known=[dict(k) for k in p.known]) for p in self.players]
        new.rng = copy_rng(self.rng)
        new.reserve = copy.deepcopy(self.reserve)
        new.words_seen = list(self.words_seen)
        new.roles_in_play = list(self.roles_in_play)
        new.order = list(self.order)
        new.known_innocent = list(self.known_innocent)
        new.turns = list(self.turns)
        new.ready = list(self.ready)
        new.asked = list(self.asked)
        new.word_votes = dict(self.word_votes)
        new.last_word_vote = dict(self.last_word_vote) if self.last_word_vote else None
        new.votes = dict(self.votes)
        new.candidates = list(self.candidates)
        new.ballots = list(self.ballots)
        new.eliminations = list(self.eliminations)
        new.guesses = [dict(g) for g in self.guesses]
        new.winners = list(self.winners)
        return new
