"""Votes, shared by every engine: casting a vote, counting a ballot, finding the tie.

A ballot is a mapping voter -> candidate plus the list of candidates. A vote
can be changed until the ballot closes (the engine decides when: everyone
has voted, or the deadline); nobody votes for themselves; who has not voted
when it closes abstains. What a tie leads to is each game's own rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .errors import GameError


def cast(
    votes: dict[str, str],
    voter: str,
    target: Any,
    candidates: Sequence[str],
    exists: Callable[[str], bool],
) -> None:
    """Record (or change) `voter`'s vote; refused with a clear code, `votes` untouched."""
    if not isinstance(target, str):
        raise GameError("bad_action", "vote for a player id", field="target")
    if not exists(target):
        raise GameError("unknown_player", "no such player", target=target[:40])
    if target == voter:
        raise GameError("self_vote", "you cannot vote for yourself")
    if target not in candidates:
        raise GameError("not_a_candidate", "that player is not a candidate", target=target)
    votes[voter] = target


def tally(votes: dict[str, str], candidates: Sequence[str]) -> dict[str, int]:
    """Votes per candidate, every candidate listed (0 when nobody chose them)."""
    counts = Counter(votes.values())
    return {c: counts.get(c, 0) for c in candidates}


def most_voted(counts: dict[str, int]) -> list[str]:
    """The candidates with the most votes, in candidate order (all of them when nobody voted)."""
    if not counts:
        return []
    top = max(counts.values())
    return [c for c, n in counts.items() if n == top]


def all_voted(votes: dict[str, str], voters: Sequence[str]) -> bool:
    """True when every expected voter has a vote in."""
    return all(v in votes for v in voters)
