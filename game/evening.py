"""An evening of games in one room: points added up game after game.

The room keeps the `result` of every finished game (any engine); each
result carries the points of that game (`result["points"]`). `evening`
turns the list into what the room shows: the total per player and the
number of games.
"""

from __future__ import annotations

from typing import Any


def evening(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The evening so far from the finished games' results, oldest first (JSON-able)."""
    totals: dict[str, int] = {}
    for res in results:
        for pid, n in (res.get("points") or {}).items():
            totals[pid] = totals.get(pid, 0) + int(n)
    return {"games": len(results), "points": totals}
