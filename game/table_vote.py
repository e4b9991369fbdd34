"""The table's vote, for a game played on one phone passed around (option `one_phone`).

With one phone on the table the players vote aloud: after a 3-2-1 countdown
each points at someone, and the phone records what the table saw in one
action, `table_vote {tally: {candidate: count}}`, which any seat may send.
The engine then closes its ballot with that tally exactly as if the votes
had been cast one by one: one most voted goes, a tie goes where the rules
send a tie (a revote, a runoff, a draw ...), an empty tally is a ballot
nobody voted in. Only the counts are known, never who pointed at whom.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import GameError

OPTION = "one_phone"


def check_one_phone(value: Any) -> bool:
    """The option's value (bool), or GameError bad_options."""
    if not isinstance(value, bool):
        raise GameError("bad_options", "one_phone must be true or false", field=OPTION)
    return value


def table_tally(options: dict[str, Any], raw: Any, candidates: Sequence[str],
                voters: int) -> dict[str, int]:
    """The table's tally over every candidate (0 for those not named), checked.

    Refused: not a one-phone game (`not_allowed`), a count that is not a whole
    number from 0 (`bad_action`), a name that is not a candidate
    (`not_a_candidate`), more votes than voters (`too_many_votes`).
    """
    if not options.get(OPTION):
        raise GameError("not_allowed", "the table votes in one go only in one-phone play")
    if not isinstance(raw, dict):
        raise GameError("bad_action", "tally must be an object", field="tally")
    for name, n in raw.items():
        if name not in candidates:
            raise GameError("not_a_candidate", "that player is not a candidate",
                            target=str(name)[:40])
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise GameError("bad_action", "a count is a whole number from 0", field="tally")
    total = sum(raw.values())
    if total > voters:
        raise GameError("too_many_votes", "more votes than voters", votes=total, voters=voters)
    return {c: int(raw.get(c, 0)) for c in candidates}
