"""Scripted games for the rule tests: a fixed deal and a small driver over the public API."""

from __future__ import annotations

from typing import Any

import pytest

from game import GameError, apply, new_game, state_bytes, tick, view
from game.simulate import nonsense  # noqa: F401  (re-exported for tests)


def _letters(n: int) -> str:
    """A distinct short letter tag for every n (clues must stay words, not numbers)."""
    out = ""
    while True:
        n, r = divmod(n, 26)
        out += "abcdefghijklmnopqrstuvwxyz"[r]
        if n == 0:
            return out


def players(n: int) -> list[dict[str, str]]:
    return [{"id": f"p{i}", "name": f"Name{i}"} for i in range(n)]


def start(
    preset: str = "intruso",
    n: int = 5,
    roles: dict[str, str] | None = None,
    powers: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
    seed: int = 1,
    now: float = 0.0,
):
    """A game with a fixed deal: by default p4 is the Intruso, everyone else a Civile."""
    # No moment to read one's card (issue 31 item 11, tests/game/test_000_reading.py): the
    # scripted games start on the first clue's timer.
    opts: dict[str, Any] = {"powers": [], "fantasmi": 0, "intrusi": 1, "reading_time": 0}
    if preset == "sosia":
        opts.pop("fantasmi")
    opts.update(options or {})
    deal = {"roles": {"p4": "intruso"} if roles is None else roles, "powers": powers or {}}
    return new_game(preset, opts, seed, players(n), now, deal=deal)


class Play:
    """Drive a game step by step; every accepted action advances the clock by one second."""

    def __init__(self, state, t: float = 0.0) -> None:
        self.s = state
        self.t = t
        self.events: list[dict] = []
        self.n = 0

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

    def view(self, pid: str) -> dict:
        return view(self.s, pid)

    def clue_for(self, pid: str) -> str:
        pl = self.s.player(pid)
        self.n += 1
        if pl.power == "muto":
            return "🐱🌊"
        if pl.power == "pappagallo":
            prev = next((c.text for c in reversed(self.s.clues) if not c.skipped), None)
            if prev:
                return prev.split()[0] + f" qux{_letters(self.n)}"
        return f"zorp{_letters(self.n)}"

    def clues(self) -> None:
        """Every living player gives a valid clue in the drawn order."""
        assert self.s.phase == "clues"
        for pid in list(self.s.order):
            self.act(pid, type="clue", text=self.clue_for(pid))

    def ready(self) -> None:
        assert self.s.phase == "debate"
        for pid in self.s.living_ids():
            if self.s.phase == "debate":
                self.act(pid, type="ready")

    def to_vote(self) -> None:
        if self.s.phase == "powers":
            while self.s.phase == "powers":
                self.timeout()
        self.clues()
        self.ready()
        assert self.s.phase == "vote"

    def votes(self, ballot: dict[str, str]) -> None:
        for voter, target in ballot.items():
            self.act(voter, type="vote", target=target)

    def everyone_votes(self, target: str, fallback: str) -> None:
        """All living vote `target` (and `target` votes `fallback`)."""
        for pid in self.s.living_ids():
            if self.s.phase not in ("vote", "revote"):
                break
            self.act(pid, type="vote", target=fallback if pid == target else target)

    def eliminate(self, target: str, fallback: str) -> None:
        """A whole round in which `target` is voted out unanimously."""
        self.to_vote()
        self.everyone_votes(target, fallback)
