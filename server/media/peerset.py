"""A room's WebRTC peers, one per player: offers answered, peers replaced, dropped and lost.

The voice loop (server/media/voice.py) reads `peers` each tick and wires a new
player into its mixer; this module only opens and closes the connections
(server/media/rtc.py) and counts what they took in and sent out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from server.media.linkstate import LinkWatch
from server.media.rtc import MicBatch, Peer, VoiceError, open_peer


class PeerSet:
    """The live peers of one room, keyed by player id; all methods run on its event loop."""

    def __init__(self, room_code: str, *, ice_servers: list[dict], max_candidates: int | None,
                 mic: MicBatch, on_pcm: Callable[..., None],
                 on_lost: Callable[[str], None]) -> None:
        """`on_pcm`: each decoded mic frame; `on_lost(pid)`: a current peer failed or was
        closed by the other end (not by `drop`, nor by a newer offer)."""
        self.room_code = room_code
        self.peers: dict[str, Peer] = {}
        self.listen_only: set[str] = set()  # peers whose sound never enters the mix
        self.refused = 0  # offers refused (VoiceError)
        self._ice_servers = ice_servers
        self._max_candidates = max_candidates
        self._mic = mic
        self._on_pcm = on_pcm
        self._on_lost = on_lost
        self._locks: dict[str, asyncio.Lock] = {}
        # each player's link as their avatar shows it (server/media/linkstate.py)
        self.links = LinkWatch()

    async def open(self, pid: str, sdp: str, *, listen_only: bool = False) -> tuple[str, bool]:
        """Answer `pid`'s offer with a new peer, closing the one it replaces: (the answer,
        True if `pid` had no peer). One offer of a player at a time.

        Raises VoiceError and leaves every peer, this player's current one too, untouched.
        """
        lock = self._locks.setdefault(pid, asyncio.Lock())
        async with lock:
            try:
                limits = {} if self._max_candidates is None else {
                    "max_candidates": self._max_candidates}
                peer, answer = await open_peer(
                    pid, sdp, ice_servers=self._ice_servers, on_pcm=self._on_pcm,
                    on_closed=self._closed, mic_batch=self._mic, **limits,
                )
            except VoiceError:
                self.refused += 1
                raise
            old = self.peers.get(pid)
            self.peers[pid] = peer
            if listen_only:
                self.listen_only.add(pid)
            if old is not None:
                await old.close()
            # (the caller's wiring runs before any other offer of pid: no await between
            # this lock's release and it)
            return answer, old is None

    async def drop(self, pid: str) -> None:
        """Close `pid`'s peer, if any."""
        peer = self.peers.pop(pid, None)
        self.links.forget(pid)
        if peer is not None:
            await peer.close()

    async def close_all(self) -> None:
        """Close every peer (the voice stops)."""
        peers = list(self.peers.values())
        self.peers.clear()
        self.links = LinkWatch()
        await asyncio.gather(*(p.close() for p in peers), return_exceptions=True)

    def _closed(self, pid: str, peer: Peer) -> None:
        # ICE/DTLS failure: forget the peer if it is still the current one; the
        # client reconnects with a new offer.
        if self.peers.get(pid) is peer:
            self.peers.pop(pid, None)
            asyncio.ensure_future(peer.close())
            self.links.lose(pid)
            self._on_lost(pid)

    def link_changes(self, now: float) -> dict[str, str | None]:
        """Each player's link state now (`LinkWatch.sample`; listen-only peers have
        none): what changed since the last call."""
        return self.links.sample(self.peers, now, self.listen_only)

    def figures(self) -> dict[str, float | int]:
        """How many peers, offers refused, and what the peers took in and sent out
        (`VoiceFigures.report` places them)."""
        peers = self.peers.values()
        received = [p.rtp_in for p in peers if p.rtp_in is not None]
        return {
            "peers": len(self.peers),
            "refused_offers": self.refused,
            # the mic packets from the socket to the batch (SRTP, header, RTCP
            # statistics; peers present only): bench/ROOM.md, "compiled sender"
            "mic_in_cpu_s": round(sum(r.cpu_ns for r in received) / 1e9, 4),
            "mic_in_packets": sum(r.taken for r in received),
            "track_drops": sum(p.track.dropped for p in peers),
            # listeners whose packets the compiled sender sends (server/media/fastrtp.py)
            "native_senders": sum(1 for p in peers if p.track.native),
            # peers whose mic packets the compiled receiver takes (server/media/fastrtp.py)
            "native_receivers": sum(1 for r in received if r.native is not None),
            "frames_in": sum(p.frames_in for p in peers),
            "silent_frames_in": sum(p.silent_in for p in peers),
        }

