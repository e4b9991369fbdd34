"""Who may be heard by whom in a werewolf game right now (`AudioPolicy`).

- Night (`night`, `seer`, `wolves`): every public microphone is shut; only a
  human moderator is heard (they call the phases aloud).
- The wolves' phase: the living wolves talk on a private channel; the human
  moderator is in it too (004: the moderator watches the wolves agree), so
  they hear the wolves and see their mouths.
- Day (`day`, `nomination`, `lynch`): the living and the moderator talk.
- A `defence`: the nominee who has the floor alone (`floor`).
- Ghosts never speak again: muted for the rest of the game.
- At `over` everyone may speak again.

No whispers and no effects in this game. Mouths: whoever the policy lets be
heard publicly; channel mates see each other's (the server derives that from
`channels`).
"""

from __future__ import annotations

from ..policy import AudioPolicy
from .state import NIGHT_PHASES, GameState


def audio_policy(state: GameState) -> AudioPolicy:
    """The audio routing the rules allow in the current phase."""
    s = state
    mod = [s.moderator["id"]] if s.moderator else []
    everyone = [pl.id for pl in s.players] + mod
    if s.phase == "over":
        return AudioPolicy(public=frozenset(everyone), mouths=frozenset(everyone))
    muted: dict[str, str] = {pl.id: "ghost" for pl in s.players if not pl.alive}
    channels: tuple[frozenset[str], ...] = ()
    floor = None
    if s.phase in NIGHT_PHASES:
        public = set(mod)
        for pl in s.living():
            muted[pl.id] = "night"
        if s.phase == "wolves":
            pack = s.wolves()
            for pid in pack:
                del muted[pid]  # heard by the pack only
            channels = (frozenset(pack + mod),)
    elif s.phase == "defence":
        floor = s.defending()
        public = {floor}
        for pid in s.living_ids() + mod:
            if pid != floor:
                muted[pid] = "floor"
    else:
        public = set(s.living_ids()) | set(mod)
    return AudioPolicy(
        public=frozenset(public),
        channels=channels,
        floor=floor,
        mouths=frozenset(public),
        muted=muted,
    )
