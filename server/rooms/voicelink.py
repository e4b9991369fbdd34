"""A room's link to its voice (server/media/voice.py): created at the first offer, optional.

The room decides who may hear whom (from the game's audio policy) and hands
the routing here; this module owns the `RoomVoice` object, answers WebRTC
offers beside the room's actor (ICE gathering can take a while), and fans
the voice's mouth levels out to the sockets as `mouths` messages.
A server without the voice layer still plays: offers get `voice_unavailable`.
It also samples each player's link state for the avatars (`links`,
server/rooms/links.py).

Mouths: every listener sees the mouths the game's policy shows everyone
(`policy.mouths`); a member of a private channel (the routing's `channels`,
e.g. werewolves at night) also sees the mouths of its channel mates. A message
lists the open mouths it may show; every other mouth, hidden or silent alike, is
left out and reads closed. Without channels everybody sees the
same levels: one message for all. With channels, one message per distinct
set of visible mouths, shared by every listener who sees that set.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Collection, Iterable
from typing import Any

from server.rooms.codes import new_seed
from server.rooms.links import SAMPLE_EVERY, LinkBoard
from server.wire import protocol as P
from server.wire.connection import Connection

log = logging.getLogger(__name__)

# Every connected socket as (player id, send_text).
Listeners = Callable[[], Iterable[tuple[str, Callable[[str], None]]]]


def voice_module() -> Any:
    """server.media.voice if the voice layer is installed, else None."""
    try:
        from server.media import voice
    except ImportError:
        return None
    return voice


def routing(public: Iterable[str], policy: Any = None) -> Any:
    """audio.Routing for a game policy, or everyone public (lobby, game over)."""
    from audio import Routing

    if policy is None:
        return Routing(public=frozenset(public))
    return Routing.from_policy(policy)


class VoiceLink:
    """One room's voice, if any; every method is called from the room's actor."""

    def __init__(self, code: str, ice_servers: Iterable[dict[str, Any]],
                 send_all: Callable[[str], None],
                 mouths_allowed: Callable[[], Collection[str]],
                 routing_now: Callable[[], Any], listeners: Listeners | None = None,
                 on_peer_lost: Callable[[str], None] | None = None,
                 max_candidates: int | None = None,
                 layout_now: Callable[[], list[str] | None] | None = None,
                 codec: str = "celt", may_send: Callable[[], bool] | None = None) -> None:
        """`routing_now()` is the room's current audio.Routing (whispers in progress
        included), asked whenever it may be stale; `on_peer_lost(pid)`: a player's voice
        connection dropped by itself.

        `listeners()` gives every connected socket as (player id, send_text); without it
        channel mates do not see each other's mouths (everyone gets `send_all`'s message).
        `layout_now()` is the circle of seats when the room places voices around the
        table, else None. `codec`: `Settings.voice_codec`. `may_send()`: whether this
        node may still speak for the room (cheap: asked every tick); while False neither
        voice nor mouths leave (cluster mode: claims not renewed within their life).
        """
        self.code = code
        self.ice_servers = list(ice_servers)
        self.voice: Any = None
        self._send_all = send_all
        self._mouths_allowed = mouths_allowed
        self._routing_now = routing_now
        self._on_peer_lost = on_peer_lost
        self._max_candidates = max_candidates
        self._codec = codec
        self._listeners = listeners
        self._layout_now = layout_now
        self._may_send = may_send
        # Each listener's own volumes (speaker -> gain, 0 muted), kept here so that they
        # outlive the voice (it starts and stops with the room's peers) and reconnects.
        self._volumes: dict[str, dict[str, float]] = {}
        self._mono: set[str] = set()  # listeners who chose mono for themselves (one earbud)
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._quiet = False  # one message for all: the last one was all silent
        self._quiet_of: dict[str, bool] | None = None  # per listener, while channels exist
        self._regime: tuple | None = None  # (mouths allowed, channels) when last sent
        # Peers that only listen (spectator screens): never a speaker, never a mouth.
        self._listen_only: set[str] = set()
        # Each player's link as the avatars show it, sampled while the voice exists.
        self.links = LinkBoard(lambda text: send_all(text, "links"))

    @staticmethod
    def available() -> bool:
        return voice_module() is not None

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # Peers ------------------------------------------------------------------

    def offer(self, pid: str, conn: Connection, sdp: str, ref: Any,
              still_current: Callable[[], bool], listen_only: bool = False) -> None:
        """Answer `pid`'s offer in the background; `rtc_answer` or an error goes to `conn`.

        `listen_only`: a spectator's peer. It hears what the routing gives a listener
        it does not name (the public bus); whatever it sends is dropped before the mix.
        """
        if listen_only:
            self._listen_only.add(pid)
        self._spawn(self._negotiate(pid, conn, sdp, ref, still_current, listen_only))

    async def _ensure(self) -> Any:
        async with self._lock:
            if self.voice is None:
                voice = voice_module().RoomVoice(
                    self.code, ice_servers=self.ice_servers, on_mouths=self._on_mouths,
                    on_peer_lost=self._peer_lost, seed=new_seed() % (2**31),
                    max_candidates=self._max_candidates,
                    opus=voice_module().OpusSettings.for_codec(self._codec),
                    may_send=self._may_send)
                await voice.start()
                self.voice = voice
                self.refresh()
                self._spawn(self._watch_links())
            return self.voice

    async def _negotiate(self, pid: str, conn: Connection, sdp: str, ref: Any,
                         still_current: Callable[[], bool], listen_only: bool = False) -> None:
        mod = voice_module()
        try:
            # Checked before anything is built: a refused offer starts no voice loop.
            if self._max_candidates is None:
                mod.validate_offer(sdp)
            else:
                mod.validate_offer(sdp, self._max_candidates)
            voice = await self._ensure()
            answer = await voice.offer(pid, sdp, listen_only=listen_only)
        except Exception as exc:
            code = getattr(exc, "code", None) if isinstance(exc, mod.VoiceError) else None
            if code is None:
                log.exception("room %s: offer from %s failed", self.code, pid)
            conn.send(P.error(code or "rtc_failed", str(exc) or "offer refused", ref))
            return
        if not still_current():
            with contextlib.suppress(Exception):
                await voice.drop(pid)  # the socket went away while negotiating
            return
        conn.send({"type": "rtc_answer", "sdp": answer})
        self.refresh()  # the routing may predate this peer: apply it again so it counts now

    def drop(self, pid: str) -> None:
        """Close `pid`'s peer, if any."""
        if self.voice is not None:
            self._spawn(self._drop(self.voice, pid))

    async def _drop(self, voice: Any, pid: str) -> None:
        await voice.drop(pid)
        self.sample_links()  # no voice, no state

    def _peer_lost(self, pid: str) -> None:
        self.sample_links()  # gone, at once
        if self._on_peer_lost is not None:
            self._on_peer_lost(pid)

    # Links ------------------------------------------------------------------

    async def _watch_links(self) -> None:
        while True:
            await asyncio.sleep(SAMPLE_EVERY)
            self.sample_links()

    def sample_links(self) -> None:
        """Each player's link state now (the voice's); a `links` message if one changed."""
        if self.voice is None or (self._may_send is not None and not self._may_send()):
            return
        try:
            self.links.update(self.voice.link_changes(time.monotonic()))
        except Exception:
            log.exception("room %s: link states failed", self.code)

    # Routing, whispers, cues -------------------------------------------------

    def refresh(self) -> None:
        """Give the voice the room's current routing, seats and volumes (after any change
        of state or roster)."""
        if self.voice is not None:
            try:
                self.voice.set_routing(self._routing_now())
                if self._layout_now is not None:
                    self.voice.set_layout(self._layout_now())
                for pid, gains in self._volumes.items():
                    self.voice.set_volumes(pid, gains)  # a no-op when unchanged
                for pid in self._mono:
                    self.voice.set_mono(pid, True)
            except Exception:
                log.exception("room %s: set_routing failed", self.code)

    def set_volumes(self, pid: str, gains: dict[str, float], mono: bool = False) -> None:
        """`pid`'s own gains (checked by the caller), the whole set, and whether they chose
        mono for themselves; ({}, False) forgets them."""
        if gains:
            self._volumes[pid] = dict(gains)
        else:
            self._volumes.pop(pid, None)
        if mono:
            self._mono.add(pid)
        else:
            self._mono.discard(pid)
        if self.voice is not None:
            try:
                self.voice.set_volumes(pid, gains)
                self.voice.set_mono(pid, mono)
            except Exception:
                log.exception("room %s: set_volumes failed", self.code)

    def play_cue(self, name: str, listeners: list[str]) -> None:
        if self.voice is not None:
            try:
                self.voice.play_cue(name, listeners)
            except Exception:
                log.exception("room %s: cue %s failed", self.code, name)

    # Mouths ------------------------------------------------------------------

    def _on_mouths(self, levels: dict[str, float]) -> None:
        """From the voice, >= 15 times a second: `mouths` messages to the sockets."""
        if self._may_send is not None and not self._may_send():
            return  # the closing all-silent levels too: the room may be another node's
        if self._listen_only:
            levels = {p: v for p, v in levels.items() if p not in self._listen_only}
        allowed = frozenset(self._mouths_allowed())
        channels = self._channels()
        if (allowed, channels) != self._regime:
            # Who may see which mouths changed (a phase began; the client closes
            # every mouth on a new phase): from here on, everyone counts as having
            # been sent silence, whatever was sent before. What was last sent
            # depends on who spoke; a silent message that followed only then would,
            # seen from the phase's start, tell roles apart (and race the view).
            first, self._regime = self._regime is None, (allowed, channels)
            if first:
                pass  # the voice's first message: everyone gets it
            elif channels and self._listeners is not None:
                self._quiet_of = {pid: True for pid, _ in self._listeners()}
            else:
                self._quiet_of, self._quiet = None, True
        if not channels or self._listeners is None:
            if self._quiet_of is not None:
                self._quiet_of, self._quiet = None, False  # back to one message: send it
            text = _mouths_text(levels, allowed)
            if text is not None or not self._quiet:
                self._quiet = text is None
                self._send_all(text or _mouths_text(levels, allowed, quiet=True))
            return
        self._send_grouped(levels, allowed, channels)

    def _channels(self) -> tuple[frozenset[str], ...]:
        try:
            return tuple(getattr(self._routing_now(), "channels", ()) or ())
        except Exception:
            log.exception("room %s: routing for mouths failed", self.code)
            return ()

    def _send_grouped(self, levels: dict[str, float], allowed: frozenset[str],
                      channels: tuple[frozenset[str], ...]) -> None:
        """One message per distinct set of visible mouths, shared by its listeners."""
        if self._quiet_of is None:
            self._quiet_of = {}  # a new regime: everyone gets its first message
        groups: dict[frozenset[str], list[tuple[str, Callable[[str], None]]]] = {}
        for pid, send in self._listeners():
            seen = allowed
            for channel in channels:
                if pid in channel:
                    seen = seen | channel
            groups.setdefault(seen, []).append((pid, send))
        quiet_of: dict[str, bool] = {}
        for seen, members in groups.items():
            text = _mouths_text(levels, seen)
            quiet = text is None
            for pid, send in members:
                if not (quiet and self._quiet_of.get(pid)):
                    text = text or _mouths_text(levels, seen, quiet=True)
                    send(text)
                quiet_of[pid] = quiet
        self._quiet_of = quiet_of  # listeners gone are forgotten: back, they get a message

    # Lifecycle ----------------------------------------------------------------

    def stats(self) -> dict[str, Any] | None:
        """The voice's figures, or None without a voice."""
        if self.voice is None:
            return None
        try:
            return self.voice.stats()
        except Exception:
            log.exception("room %s: voice stats failed", self.code)
            return None

    async def stop(self) -> None:
        """Cancel pending offers and stop the voice."""
        for task in list(self._tasks):
            task.cancel()
        if self.voice is not None:
            with contextlib.suppress(Exception):
                await self.voice.stop()
            self.voice = None
            self.links.clear()


def _mouths_text(levels: dict[str, float], seen: Collection[str], quiet: bool = False
                 ) -> str | None:
    """The `mouths` message for a listener who sees the mouths in `seen`; None if all silent.

    It lists the open mouths only (level > 0 at three decimals); the client closes
    every mouth it does not list. A mouth the listener may not see is left out exactly
    as a silent one is, so the message tells nobody who is muted (the Muto during the
    clues) or who is in a channel. Sixteen players' levels, closed ones included, made
    ~200 bytes 16.7 times a second to every phone (bench/ROOM.md, "What the `mouths`
    broadcast costs"). With `quiet`, the all-silent message (no mouth listed) is
    returned instead of None.
    """
    out = {}
    for pid, v in levels.items():
        if pid in seen and (level := round(float(v), 3)) > 0.0:
            out[pid] = level
    if not quiet and not out:
        return None
    return json.dumps({"type": "mouths", "levels": out}, separators=(",", ":"))
