"""Who hears whom: the `Routing` policy and its compilation into a gain matrix.

The matrix has one row per listener and one column per speaker (same player
order); entry [l, s] is 1.0 when listener l hears speaker s, else 0.0.
It is rebuilt only when the routing, the whispers or the players change.

Rules, in order:

- `floor`: when set, it is the only public speaker (the public set is
  intersected with it: the floor restricts, it never unmutes).
- A public speaker is heard by every listener except themselves.
- Channel members hear each other (werewolves at night), and nobody else
  hears them unless they are also public.
- A whispering speaker (`whispering`, the whispers in progress) is heard by
  the whisper's target ONLY: while the whisper lasts, their column is all
  zero except the target's row, so their voice leaves the public bus and
  their channels. Everybody else receives an exact zero of it, not a quieter
  copy. A whisperer whose target is not in the room's mix (gone, no voice)
  is heard by nobody: a whisper never falls back to the public bus.
- Anyone else (not public, in no channel, not whispering) reaches nobody.
- Nobody hears their own voice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Routing", "EFFECTS", "gain_matrix", "whisper_allowed"]

EFFECTS = frozenset({"drunk"})


@dataclass(frozen=True)
class Routing:
    """Audio policy as the mixer sees it (see docs/contracts.md)."""

    public: frozenset[str] = frozenset()
    channels: tuple[frozenset[str], ...] = ()
    whisper: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # The whispers in progress, speaker -> target. The routing's owner (the room)
    # keeps them and checks them against `whisper`; the mixer applies them as given.
    whispering: Mapping[str, str] = field(default_factory=dict)
    effects: Mapping[str, str] = field(default_factory=dict)  # speaker -> "drunk"
    floor: str | None = None

    @classmethod
    def from_policy(cls, policy) -> Routing:
        """Build from any object shaped like `game.AudioPolicy` (no import of `game`)."""
        return cls(
            public=frozenset(policy.public),
            channels=tuple(frozenset(c) for c in policy.channels),
            whisper={src: frozenset(dsts) for src, dsts in dict(policy.whisper).items()},
            effects={pid: "drunk" for pid in policy.drunk},
            floor=policy.floor,
        )

    def public_speakers(self) -> frozenset[str]:
        """The speakers heard by everyone, after floor control."""
        if self.floor is None:
            return frozenset(self.public)
        return frozenset(self.public) & {self.floor}


def whisper_allowed(routing: Routing, src: str, dst: str) -> bool:
    """True if the routing lets `src` whisper to `dst` right now."""
    return src != dst and dst in routing.whisper.get(src, frozenset())


def gain_matrix(players: Sequence[str], routing: Routing) -> np.ndarray:
    """(listeners x speakers) float32 matrix of 0/1 gains; both axes in `players` order.

    `routing.whispering` maps a whispering speaker to their target (already
    checked against `routing.whisper` by the routing's owner).
    """
    index = {pid: i for i, pid in enumerate(players)}
    n = len(players)
    gains = np.zeros((n, n), dtype=np.float32)
    public = [index[p] for p in routing.public_speakers() if p in index]
    gains[:, public] = 1.0
    for channel in routing.channels:
        members = [index[p] for p in channel if p in index]
        gains[np.ix_(members, members)] = 1.0
    np.fill_diagonal(gains, 0.0)
    for src, dst in routing.whispering.items():
        if src not in index:
            continue
        gains[:, index[src]] = 0.0  # off the bus and the channels, target or not
        if dst in index and dst != src:
            gains[index[dst], index[src]] = 1.0
    return gains
