"""Who may be heard by whom in an undercover game right now (`AudioPolicy`).

- Public: every living player, except the Muto during the clues; the
  eliminated are muted unless the room lets them speak; at `over` everyone.
- Whispers: during the debate only, any living player to any other living one.
- Drunk: the Ubriacone's two victims, for the whole game once chosen.
- Mouths: everybody who may speak or whisper.
"""

from __future__ import annotations

from ..policy import AudioPolicy
from .state import GameState


def audio_policy(state: GameState) -> AudioPolicy:
    """The audio routing the rules allow in the current phase."""
    s = state
    everyone = [pl.id for pl in s.players]
    living = [pl.id for pl in s.players if pl.alive]
    muted: dict[str, str] = {}
    if s.phase == "over":
        public = set(everyone)
    else:
        public = set(living)
        if not s.options.get("eliminated_speak", False):
            for pl in s.players:
                if not pl.alive:
                    muted[pl.id] = "eliminated"
        else:
            public.update(everyone)
        if s.phase == "clues":
            for pl in s.players:
                if pl.alive and pl.power == "muto":
                    muted[pl.id] = "muto"
        public -= set(muted)
    whisper: dict[str, frozenset[str]] = {}
    if s.phase == "debate":
        for pid in living:
            whisper[pid] = frozenset(x for x in living if x != pid)
    return AudioPolicy(
        public=frozenset(public),
        channels=(),
        whisper=whisper,
        drunk=frozenset(s.drunk),
        floor=None,
        mouths=frozenset(public | set(whisper)),
        muted=muted,
    )
