"""Who may be heard by whom in an Impostore game right now (`AudioPolicy`).

- Public: every living player (clues are spoken aloud, 002 §3); the
  eliminated are muted unless the room lets them speak; at `over` everyone.
- Floor control (option `floor`, guided turns): during a clue turn only the
  called player is heard; the others' screens say why their mic is shut.
- No whispers, channels or drunk voices in this game.
"""

from __future__ import annotations

from ..policy import AudioPolicy
from .state import GameState


def audio_policy(state: GameState) -> AudioPolicy:
    """The audio routing the rules allow in the current phase."""
    s = state
    everyone = [pl.id for pl in s.players]
    if s.phase == "over":
        return AudioPolicy(public=frozenset(everyone), mouths=frozenset(everyone))
    muted: dict[str, str] = {}
    public = {pl.id for pl in s.players if pl.alive}
    if s.options.get("eliminated_speak", False):
        public = set(everyone)
    else:
        muted = {pl.id: "eliminated" for pl in s.players if not pl.alive}
    floor = None
    mouths = frozenset(public)
    if s.phase == "clues" and s.options["turns"] == "guided" and s.options["floor"]:
        floor = s.order[s.turn_index]
        mouths = frozenset({floor}) & mouths
        for pid in public:
            if pid != floor:
                muted[pid] = "floor"
    return AudioPolicy(public=frozenset(public), floor=floor, mouths=mouths, muted=muted)
