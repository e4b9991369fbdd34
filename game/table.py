"""The table every game is played at: 3 to 16 seats, each an id and a name (RULES.md)."""

from __future__ import annotations

from typing import Any

from .errors import GameError

MIN_PLAYERS = 3
MAX_PLAYERS = 16


class Seats:
    """Who sits where, for a game state with a `players` list (each with `id`, `alive`)
    and the `ready` list of who is done (card seen, done talking ...).

    Mixed into every engine's GameState (it adds no field, so the state's bytes
    are unchanged)."""

    players: list[Any]
    ready: list[str]

    def player(self, pid: str) -> Any:
        """The player with id `pid` (KeyError if absent)."""
        for p in self.players:
            if p.id == pid:
                return p
        raise KeyError(pid)

    def has(self, pid: str) -> bool:
        """True if `pid` is a player of this game."""
        return any(p.id == pid for p in self.players)

    def living(self) -> list[Any]:
        return [p for p in self.players if p.alive]

    def living_ids(self) -> list[str]:
        return [p.id for p in self.players if p.alive]

    def all_ready(self) -> bool:
        """Every living player is ready."""
        return all(pid in self.ready for pid in self.living_ids())

    def mark_ready(self, pid: str) -> bool:
        """`pid` is ready (once); returns whether every living player now is."""
        if pid not in self.ready:
            self.ready.append(pid)
        return self.all_ready()


def check_players(players: Any, minimum: int = MIN_PLAYERS) -> list[dict[str, str]]:
    """The seats as [{id, name}] in seat order, or GameError (bad_action, too_few/many_players)."""
    if not isinstance(players, list) or not all(
        isinstance(x, dict) and isinstance(x.get("id"), str) and x.get("id") for x in players
    ):
        raise GameError("bad_action", "players must be a list of {id, name}")
    ids = [x["id"] for x in players]
    if len(set(ids)) != len(ids):
        raise GameError("bad_action", "duplicate player id")
    if len(players) < minimum:
        raise GameError("too_few_players", f"at least {minimum} players", min=minimum)
    check_size(len(players))
    return [{"id": x["id"], "name": str(x.get("name", x["id"]))} for x in players]


def check_size(n_players: int) -> None:
    """GameError too_many_players over MAX_PLAYERS seats."""
    if n_players > MAX_PLAYERS:
        raise GameError("too_many_players", f"at most {MAX_PLAYERS} players", max=MAX_PLAYERS)
