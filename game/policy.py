"""Who may be heard by whom right now, as plain data: `AudioPolicy`.

Every engine's `audio_policy(state)` returns one; the server hands it to the
mixer (audio.Routing.from_policy) and never decides these things itself.

- `public`: heard by every listener (already without the muted);
- `channels`: groups whose members hear each other and nobody else does
  (werewolves at night); a member also sees the others' mouths;
- `whisper`: who may whisper to whom right now (speaker -> allowed targets);
- `drunk`: speakers heard through the drunk-voice effect;
- `floor`: when set, the only public speaker (a called turn, a defence);
- `mouths`: speakers whose mouths everybody may see move (public speakers and
  whisperers: a whisper is heard by one, seen by all);
- `muted`: player -> why their mic is shut (`muto`, `eliminated`, `night`, ...),
  for their own screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class AudioPolicy:
    """docs/contracts.md: the routing the server gives the mixer."""

    public: frozenset[str] = frozenset()
    channels: tuple[frozenset[str], ...] = ()
    whisper: Mapping[str, frozenset[str]] = field(default_factory=dict)
    drunk: frozenset[str] = frozenset()
    floor: str | None = None
    mouths: frozenset[str] = frozenset()
    muted: Mapping[str, str] = field(default_factory=dict)
