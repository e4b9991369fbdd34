"""The room's whispers: the one place that knows who whispers to whom.

The room owns this set; the voice's routing is derived from it
(`apply(routing)`), so the room and the mixer cannot disagree about which
whispers exist. Every method returns the `whisper` notes to send, as
(recipient, message) pairs; the room delivers them to whoever is online.

A whisper that ends without its whisperer's say (the target left, lost
their voice connection, or the game no longer allows it) never puts the
whisperer back on the public bus: they may still be talking low, meaning it
for one ear. They are *hushed*, heard by nobody, and told at once
(`hushed: true`); the hush lasts until they let go (`whisper_stop`, which a
client sends when the finger lifts or on an explicit tap), start another
whisper, or a new game starts. A socket change is no gesture: the whisperer's
own socket closing ends their whisper and hushes them like the rest, and the
hush outlives it (their new socket's `welcome` says so); otherwise a blip
would put someone who is talking low on the public bus without their say.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

# Why a whisper ended (the `reason` of an inactive `whisper` note).
STOPPED = "stopped"  # the whisperer let go
TARGET_LEFT = "target_left"  # the target's socket closed, or they left the room
TARGET_NO_VOICE = "target_no_voice"  # the target's voice connection was lost
WHISPERER_LEFT = "whisperer_left"  # the whisperer's socket closed
NOT_ALLOWED = "not_allowed"  # the game does not allow it any more (phase, elimination)

Note = tuple[str, dict[str, Any]]


def _note(src: str, dst: str, active: bool, **extra: Any) -> dict[str, Any]:
    return {"type": "whisper", "from": src, "to": dst, "active": active, **extra}


class Whispers:
    """Whispers in progress (speaker -> target) and hushed whisperers (speaker -> old target)."""

    def __init__(self) -> None:
        self.active: dict[str, str] = {}
        self.hushed: dict[str, str] = {}

    def start(self, src: str, dst: str) -> list[Note]:
        """`src` whispers to `dst` (already checked against the game's policy)."""
        notes: list[Note] = []
        if self.active.get(src) == dst:
            return [(src, _note(src, dst, True))]
        if src in self.active:
            notes += self._end(src, STOPPED, hush=False)
        self.hushed.pop(src, None)
        self.active[src] = dst
        note = _note(src, dst, True)
        return notes + [(dst, note), (src, note)]

    def stop(self, src: str) -> list[Note]:
        """The whisperer let go: the whisper (or the hush that followed it) ends."""
        if src in self.active:
            return self._end(src, STOPPED, hush=False)
        dst = self.hushed.pop(src, None)
        if dst is not None:
            return [(src, _note(src, dst, False, reason=STOPPED, hushed=False))]
        return []

    def end_from(self, src: str, reason: str, hush: bool = True) -> list[Note]:
        """End `src`'s whisper without their say (hushed unless `hush` is False)."""
        return self._end(src, reason, hush) if src in self.active else []

    def end_to(self, dst: str, reason: str) -> list[Note]:
        """End every whisper aimed at `dst`; their whisperers are hushed."""
        notes: list[Note] = []
        for src in [s for s, d in self.active.items() if d == dst]:
            notes += self._end(src, reason, hush=True)
        return notes

    def keep_only(self, allowed) -> list[Note]:
        """End (and hush) every whisper for which `allowed(src, dst)` is false."""
        notes: list[Note] = []
        for src, dst in list(self.active.items()):
            if not allowed(src, dst):
                notes += self._end(src, NOT_ALLOWED, hush=True)
        return notes

    def release(self, src: str) -> None:
        """Forget `src`'s hush without a note (their seat is gone)."""
        self.hushed.pop(src, None)

    def forget(self, pid: str, reason: str) -> list[Note]:
        """`pid`'s socket closed or they left: no whisper to or from them any more (their
        own ends in a hush, which only `release` or their own gesture lifts)."""
        notes = self.end_to(pid, reason)
        if pid in self.active:
            notes += self._end(pid, WHISPERER_LEFT, hush=True)
        return notes

    def to(self, dst: str) -> list[str]:
        """Who is whispering to `dst` now."""
        return [s for s, d in self.active.items() if d == dst]

    def apply(self, routing: Any) -> Any:
        """`routing` (an audio.Routing) with these whispers in progress and the hushed
        taken off the public bus and every channel."""
        hushed = frozenset(self.hushed)
        if hushed:
            routing = replace(routing, public=frozenset(routing.public) - hushed,
                              channels=tuple(frozenset(c) - hushed for c in routing.channels))
        return replace(routing, whispering=dict(self.active))

    def _end(self, src: str, reason: str, hush: bool) -> list[Note]:
        dst = self.active.pop(src)
        if hush:
            self.hushed[src] = dst
        to_target = _note(src, dst, False, reason=reason)
        to_src = _note(src, dst, False, reason=reason, **({"hushed": True} if hush else {}))
        return [(dst, to_target), (src, to_src)]
