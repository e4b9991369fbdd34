"""Scripted Impostore games: fixed words, a fixed deal, and a driver over the public API."""

from __future__ import annotations

from typing import Any

import pytest

from game import GameError, apply, new_game, state_bytes, tick, view

# The game's words, fixed: the first is dealt, the others are the reserve of
# "Non conosco la parola". No word file is read for them.
WORDS = {
    "category": "animals",
    "words": [
        {"word": "gatto", "hints": ["fusa"]},
        {"word": "cane", "hints": ["osso"]},
        {"word": "leone", "hints": ["criniera"]},
        {"word": "tigre", "hints": ["strisce"]},
    ],
}


def players(n: int) -> list[dict[str, str]]:
    return [{"id": f"p{i}", "name": f"Name{i}"} for i in range(n)]


def start(
    preset: str = "classica",
    n: int = 5,
    roles: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
    seed: int = 1,
    now: float = 0.0,
    words: dict[str, Any] | None = None,
):
    """A game with a fixed deal: by default p4 is the impostor, everyone else innocent."""
    deal = {"roles": {"p4": "impostore"} if roles is None else roles}
    return new_game(preset, options or {}, seed, players(n), now, deal=deal,
                    words=words or WORDS)


class Play:
    """Drive a game step by step; every accepted action advances the clock by one second."""

    def __init__(self, state, t: float = 0.0) -> None:
        self.s = state
        self.t = t
        self.events: list[dict] = []

    def act(self, pid: str, **action: Any) -> list[dict]:
        self.t += 1.0
        self.s, ev = apply(self.s, pid, action, self.t)
        self.events += ev
        return ev

    def fail(self, pid: str, code: str, **action: Any) -> GameError:
        """The action is refused with `code` and the state is byte for byte unchanged."""
        before = state_bytes(self.s)
        with pytest.raises(GameError) as info:
            apply(self.s, pid, action, self.t)
        assert info.value.code == code, (info.value.code, info.value.message)
        assert state_bytes(self.s) == before
        return info.value

    def timeout(self) -> list[dict]:
        """Let the current deadline pass."""
        assert self.s.deadline is not None
        self.t = self.s.deadline
        self.s, ev = tick(self.s, self.t)
        self.events += ev
        return ev

    def view(self, pid: str | None) -> dict:
        return view(self.s, pid)

    def seen(self) -> None:
        """Everyone has looked at their card: the clues start."""
        assert self.s.phase == "card"
        for pid in self.s.living_ids():
            if self.s.phase == "card" and pid not in self.s.ready:
                self.act(pid, type="seen")
        assert self.s.phase == "clues"

    def clues(self) -> None:
        """Every turn of every round ends (guided: the speaker taps done; free: all ready)."""
        assert self.s.phase == "clues"
        while self.s.phase == "clues":
            if self.s.options["turns"] == "guided":
                self.act(self.s.order[self.s.turn_index], type="done")
            else:
                for pid in self.s.living_ids():
                    if self.s.phase == "clues":
                        self.act(pid, type="ready")

    def to_vote(self) -> None:
        if self.s.phase == "card":
            self.seen()
        self.clues()
        assert self.s.phase == "vote"

    def votes(self, ballot: dict[str, str]) -> None:
        for voter, target in ballot.items():
            self.act(voter, type="vote", target=target)

    def everyone_votes(self, target: str, fallback: str) -> None:
        """All living vote `target` (and `target` votes `fallback`)."""
        for pid in self.s.living_ids():
            if self.s.phase not in ("vote", "runoff"):
                break
            self.act(pid, type="vote", target=fallback if pid == target else target)

    def eliminate(self, target: str, fallback: str) -> None:
        """A clue phase and a vote in which `target` is voted out unanimously."""
        self.to_vote()
        self.everyone_votes(target, fallback)
