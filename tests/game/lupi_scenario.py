"""Scripted werewolf games for the rule tests: a fixed deal and a small driver."""

from __future__ import annotations

from typing import Any

import pytest

from game import GameError, apply, audio_policy, new_game, state_bytes, tick, view

# The default deal of these tests: two wolves, the veggente, five contadini.
WOLVES = ("p0", "p1")
SEER = "p2"
MOD = "pm"


def players(n: int, moderator: bool = False) -> list[dict[str, str]]:
    seats = [{"id": f"p{i}", "name": f"Name{i}"} for i in range(n)]
    if moderator:
        seats.insert(3, {"id": MOD, "name": "Mod"})  # any seat may be the moderator's
    return seats


def start(n: int = 8, roles: dict[str, str] | None = None, options: dict[str, Any] | None = None,
          seed: int = 1, now: float = 0.0, moderator: bool = False):
    """A game with a fixed deal: p0 and p1 wolves, p2 the veggente, the rest contadini."""
    opts: dict[str, Any] = dict(options or {})
    if moderator:
        opts["moderator"] = MOD
    if roles is None:
        roles = {"p0": "lupo", "p1": "lupo", "p2": "veggente"}
    return new_game("lupi", opts, seed, players(n, moderator), now, deal={"roles": roles})


class Play:
    """Drive a game; every accepted action advances the clock by one second."""

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

    def until(self, phase: str) -> None:
        """Let deadlines pass until the game is in `phase`."""
        for _ in range(20):
            if self.s.phase == phase:
                return
            self.timeout()
        raise AssertionError(f"never reached {phase}, now {self.s.phase}")

    def view(self, pid: str | None) -> dict:
        return view(self.s, pid)

    def policy(self):
        return audio_policy(self.s)

    def night(self, victim: str, peek: str | None = None) -> None:
        """From nightfall to the day: the seer looks at `peek`, every wolf picks `victim`."""
        self.until("night")
        self.timeout()
        if self.s.phase == "seer":
            seer = self.s.seer()
            if peek is not None and seer is not None and seer.alive:
                self.act(seer.id, type="peek", target=peek)
            self.timeout()
        assert self.s.phase == "wolves"
        for wolf in self.s.wolves():
            self.act(wolf, type="bite", target=victim)
        self.timeout()

    def nominate(self, first: str, second: str) -> None:
        """From the day to the first defence: everyone, ghosts too, names `first`;
        `first` names `second`, who comes second with that one vote."""
        self.until("day")
        self.timeout()
        assert self.s.phase == "nomination"
        for pid in [pl.id for pl in self.s.players]:
            self.act(pid, type="vote", target=second if pid == first else first)
        assert self.s.phase == "defence", self.s.phase
        assert self.s.nominees == [first, second]

    def lynch(self, victim: str, other: str) -> None:
        """A whole day in which `victim` is nominated with `other` and lynched."""
        self.nominate(victim, other)
        while self.s.phase == "defence":
            self.timeout()
        for pid in self.s.lynch_voters():
            self.act(pid, type="vote", target=victim)
