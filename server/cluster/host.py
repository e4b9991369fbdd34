"""What the cluster needs of a node's rooms: the `RoomHost` interface.

server/rooms/registry.py implements it; the cluster's modules (the node's beat
and sweep, the drain's hand-overs) know the rooms through it alone, so that
neither the cluster nor the rooms import each other.
"""

from __future__ import annotations

from typing import Protocol


class RoomHost(Protocol):
    """What the cluster needs of the node's rooms (server/rooms/registry.py implements it)."""

    def loaded(self) -> list[str]:
        """Codes of the rooms running here."""

    def figures(self) -> tuple[int, int]:
        """(rooms, voice peers) for the registry."""

    async def adopt(self, code: str) -> bool:
        """Load a room this node has just claimed (replay its log) and serve it."""

    async def freeze(self, code: str) -> None:
        """Stop a room's actor, timers and voice; its sockets stay open until `evict`."""

    async def evict(self, code: str, url: str | None) -> None:
        """Send a (frozen or running) room's clients to `url` (None: anywhere) and forget it."""

    def nodes_changed(self, urls: list[str]) -> None:
        """The live nodes changed: tell the clients where to look if their node goes."""
