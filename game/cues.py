"""Which sound cue a game event plays, and to whom (audio/cues has the sounds).

Shared by the engines: each engine's `cues(state, events)` starts from
`cues_for` with its own players and may add its own. The server plays what
the core says: the voice mix (`play_cue`) and the `cue {name}` socket message
the UI uses to chime or vibrate. Cue names are those of audio/cues.
"""

from __future__ import annotations

from typing import Any

CUE_NAMES = ("your_turn", "vote_open", "elimination", "victory", "defeat", "night", "day")


def cues_for(events: list[dict[str, Any]], everyone: list[str]) -> list[tuple[str, list[str]]]:
    """(cue, listeners) for each event the players should hear, in event order.

    `turn` -> your_turn to that player; `vote_open` -> everyone; `eliminated`
    -> elimination to everyone; `game_over` -> victory to the winners, defeat
    to the rest; a `phase` of night or day (werewolf) -> that cue to everyone.
    """
    out: list[tuple[str, list[str]]] = []
    for e in events:
        kind = e.get("type")
        if kind == "turn" and e.get("player"):
            out.append(("your_turn", [e["player"]]))
        elif kind == "vote_open":
            out.append(("vote_open", list(everyone)))
        elif kind == "eliminated":
            out.append(("elimination", list(everyone)))
        elif kind == "game_over":
            winners = set(e.get("winners", []))
            out.append(("victory", [p for p in everyone if p in winners]))
            out.append(("defeat", [p for p in everyone if p not in winners]))
        elif kind == "phase" and e.get("phase") in ("night", "day"):
            out.append((e["phase"], list(everyone)))
    return [(name, listeners) for name, listeners in out if listeners]
