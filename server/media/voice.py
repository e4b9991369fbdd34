"""A room's voice: its peers, its mixer and the 20 ms loop that feeds one into the other.

Each tick (drift-free deadlines from `audio.FrameClock`):

1. `RoomMixer.tick()` gives one mix per listener;
2. listeners are grouped by identical mix: the mixer shares one array between
   listeners with the same routing, and arrays with the same samples (most
   often silence, or the one voice everybody but its speaker hears) are
   merged by content;
3. each group's mix is Opus-encoded once per stream (server/media/streams.py):
   listeners share a stream, and the payload queued on every member's track
   (`rtc.MixTrack`, bounded, oldest dropped if a sender stalls), only while
   their decoders are in the state its encoder expects; a mix that stays
   silent is sent as Opus DTX (one packet per 400 ms);
4. every third tick (about 16.7 Hz) the loudest mouth level of those ticks
   goes to `on_mouths`.

Personal volumes (`set_volumes`) and seats (`set_layout`) are the mixer's:
listeners whose effective gains are equal still share one mix and one
encode. With seats on, a listener whose offer says `stereo=1` in its Opus
fmtp gets a stereo mix (its group's encoder is stereo, at
`OpusSettings.stereo_bitrate`); every other listener keeps the mono mix.

The room's parts: the peers (server/media/peerset.py), the streams that share
the encodes (server/media/streams.py) and the loop's figures
(server/media/voicestats.py); this module wires them to the mixer and runs the
tick.

Until the room calls `set_routing`, every connected player is public. The
routing is the whole truth, whispers in progress included (`Routing.whispering`,
kept by the room): the voice keeps and drops no whisper of its own.

The loop runs only while at least one peer is connected: it starts with the
first accepted offer and stops when the last peer is dropped or lost, so a
room nobody listens to costs nothing (a refused offer starts nothing).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable

import numpy as np

from audio import CueBank, FrameClock, RoomMixer, Routing
from audio.phase import PHASE_KEEP, GridPhase  # noqa: F401 - PHASE_KEEP: the e2e test reads it here
from server.media.opus import OpusSettings
from server.media.peerset import PeerSet
from server.media.rtc import MicBatch, VoiceError, offers_stereo, validate_offer
from server.media.streams import Streams, group_mixes
from server.media.voicestats import DEPTH_EVERY, VoiceFigures

__all__ = ["RoomVoice", "VoiceError", "validate_offer"]

log = logging.getLogger(__name__)

PERIOD = 0.02
FRAME_SAMPLES = 960  # one 20 ms frame at 48 kHz: RTP time units per frame
MOUTH_EVERY = 3  # ticks between two on_mouths calls (~16.7 Hz)
MAX_BURST = 5  # overdue ticks run back to back at most after a stall


class RoomVoice:
    """The voice side of one room; all methods run on the room's event loop."""

    def __init__(
        self,
        room_code: str,
        *,
        ice_servers: list[dict] | None = None,
        on_mouths: Callable[[dict[str, float]], None] | None = None,
        on_peer_lost: Callable[[str], None] | None = None,
        seed: int = 0,
        opus: OpusSettings | None = None,
        cues: CueBank | None = None,
        dtx: bool = True,
        max_candidates: int | None = None,
        may_send: Callable[[], bool] | None = None,
    ) -> None:
        """`dtx`: stop sending a listener packets while their mix stays silent
        (one every 400 ms), as a browser's Opus DTX does on its uplink.
        `on_peer_lost(pid)`: a player's connection failed or was closed by the
        other end (not by `drop` nor by a newer offer).
        `may_send()`: asked before each tick (so it must be cheap); while False the
        tick mixes, sends and reports nothing (cluster mode: this node slept past its
        claims' life and the room may be another node's now)."""
        self.room_code = room_code
        self._on_mouths = on_mouths
        self._may_send = may_send
        self._on_peer_lost = on_peer_lost
        self._opus = opus or OpusSettings()
        self._dtx = dtx
        self.mixer = RoomMixer(cues=cues if cues is not None else CueBank.load(), seed=seed)
        self._mic = MicBatch()  # mic packets held for the next tick
        # a speaker's queue that would run dry at the coming tick gets its lost packet now
        self._mic.dry = lambda pid: self.mixer.depth(pid) < 1.0
        self._peerset = PeerSet(room_code, ice_servers=list(ice_servers or []),
                                max_candidates=max_candidates, mic=self._mic,
                                on_pcm=self._on_pcm, on_lost=self._peer_lost)
        self._peers = self._peerset.peers  # the same dict: the tick reads it
        self._players: set[str] = set()  # ids the mixer knows (a peer, a routing, a whisper)
        self._routed = False  # set_routing called at least once
        self._streams = Streams(self._opus, self._dtx)
        self._task: asyncio.Task | None = None
        self._started = False  # between start() and stop(): the loop runs while peers exist
        self._tick = 0
        self._mouth_acc: dict[str, float] = {}
        self._clock: FrameClock | None = None
        self._phase = GridPhase()
        self._step_at: float | None = None  # time.monotonic() of the last tick
        self._figures = VoiceFigures()

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Let the 20 ms loop run while at least one peer is connected (idempotent)."""
        self._started = True
        self._loop_if_needed()

    async def stop(self) -> None:
        """Stop the loop and close every peer."""
        self._started = False
        task, self._task = self._task, None
        self._mic.holding = False
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._mic.flush()
        await self._peerset.close_all()
        self._streams = Streams(self._opus, self._dtx)

    @property
    def loop_running(self) -> bool:
        """True while the 20 ms loop runs (started, and somebody connected)."""
        return self._task is not None and not self._task.done()

    def _loop_if_needed(self) -> None:
        """Start the loop when started with a peer; stop it when no peer is left."""
        if self._started and self._peers:
            if not self.loop_running:
                self._figures.loop_starts += 1
                self._mic.holding = True  # mic packets wait for the tick (MicBatch)
                self._task = asyncio.get_running_loop().create_task(
                    self._run(), name=f"voice-{self.room_code}")
        elif self._task is not None:
            self._task.cancel()
            self._task = None
            self._mic.holding = False
            self._mic.flush()
            self._step_at = None  # arrivals are timed again from the next loop's first tick
            self._streams = Streams(self._opus, self._dtx)
            self._mouth_acc = {}
            if self._on_mouths is not None:
                # Otherwise the mouths seen last would stay open on every screen.
                with contextlib.suppress(Exception):
                    self._on_mouths({pid: 0.0 for pid in self._players})

    # --------------------------------------------------------------------- peers

    async def offer(self, pid: str, sdp: str, *, listen_only: bool = False) -> str:
        """Answer a player's offer; a new offer from the same player replaces its peer.

        `listen_only` (a spectator screen): the peer gets its mix like any listener,
        but what it sends is dropped before the mixer.

        Raises VoiceError (code bad_sdp, sdp_too_large, no_audio) and leaves
        every other peer, and this player's current one, untouched.
        """
        answer, new = await self._peerset.open(pid, sdp, listen_only=listen_only)
        if new:
            self._ensure_player(pid)
            self._lobby_routing()
        self.mixer.set_stereo(pid, offers_stereo(sdp))
        self._loop_if_needed()
        return answer

    async def drop(self, pid: str) -> None:
        """Close the player's peer and forget its voice (no error if unknown)."""
        await self._peerset.drop(pid)
        if pid in self._players:
            self._players.discard(pid)
            self.mixer.remove_player(pid)
        self._lobby_routing()
        self._loop_if_needed()

    def _lobby_routing(self) -> None:
        # Until the room gives a routing, everyone connected talks to everyone
        # (a lobby): a room that forgets to call set_routing is not mute.
        if not self._routed:
            self.mixer.set_routing(Routing(public=frozenset(self._peers)))

    def peers(self) -> list[str]:
        """Ids of the players with a live peer connection."""
        return sorted(self._peers)

    def link_changes(self, now: float) -> dict[str, str | None]:
        """Each player's link state now (server/media/linkstate.py): what changed."""
        return self._peerset.link_changes(now)

    def _peer_lost(self, pid: str) -> None:
        # The peer set has forgotten a failed peer: the client reconnects with a new offer.
        self._loop_if_needed()
        if self._on_peer_lost is not None:
            try:
                self._on_peer_lost(pid)
            except Exception:
                log.exception("on_peer_lost failed in room %s", self.room_code)

    def _on_pcm(self, pid: str, pcm: np.ndarray | None, ts: int | None = None,
                at: float | None = None) -> None:
        """A decoded mic frame of `pid` (`ts`: its RTP time; `at`: when its packet
        arrived, if it was held for the tick; else it arrived now); `pcm` None: a packet
        that came too late to be played, whose delay the playout timing counts."""
        if pid in self._peers and pid not in self._peerset.listen_only:
            if pcm is None:  # a packet too late to be played: its delay counts
                if ts is not None and self._step_at is not None and at is not None:
                    self.mixer.note(pid, (at - self._step_at) / PERIOD, ts / FRAME_SAMPLES)
                return
            if ts is None or self._step_at is None:
                self.mixer.push(pid, pcm)
            else:
                # When it arrived (after the last tick) and when it was spoken (RTP
                # time): the mixer's queue plays it as early as its jitter allows.
                since = ((time.monotonic() if at is None else at) - self._step_at) / PERIOD
                self.mixer.push(pid, pcm, since, ts / FRAME_SAMPLES)

    def _ensure_player(self, pid: str) -> None:
        if pid not in self._players:
            self.mixer.add_player(pid)
            self._players.add(pid)

    # ------------------------------------------------------------------- routing

    def set_routing(self, routing: Routing) -> None:
        """Apply the room's routing, whispers in progress included, from the next tick.
        Before the first call every connected player is public, as in a lobby. A
        whisper's target without voice here is not added: its whisperer is heard by nobody."""
        for pid in _routing_players(routing):
            self._ensure_player(pid)
        self._routed = True
        self.mixer.set_routing(routing)

    def set_volumes(self, pid: str, gains: dict[str, float]) -> None:
        """`pid`'s own gain for each speaker named (0 mutes, at most 1.5), replacing the
        last ones; only `pid`'s mix changes. ValueError for a gain out of bounds."""
        self._ensure_player(pid)
        self.mixer.set_volumes(pid, gains)

    def set_mono(self, pid: str, mono: bool) -> None:
        """Whether `pid` chose mono for themself: their mix is never placed by seat."""
        self._ensure_player(pid)
        self.mixer.set_mono(pid, mono)

    def set_layout(self, order: Iterable[str] | None) -> None:
        """Place the voices around a circle in this seat order (stereo listeners hear it),
        or None: every mix mono and centred."""
        self.mixer.set_layout(order)

    def play_cue(self, name: str, listeners: Iterable[str]) -> None:
        """Play a named cue (audio/cues) to these listeners from the next tick."""
        listeners = list(listeners)
        for pid in listeners:
            self._ensure_player(pid)
        self.mixer.play_cue(name, listeners)

    # ---------------------------------------------------------------------- loop

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        clock = self._clock = FrameClock(period=PERIOD, start=loop.time(), max_burst=MAX_BURST)
        while True:
            # After a stall (a paused process, a long GC) run at most MAX_BURST
            # ticks back to back; the rest are skipped, the grid is kept.
            clock.catch_up(loop.time())
            delay = clock.next_time() - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                # Overdue: still let the senders and readers run between two
                # catch-up ticks, or each burst piles up on every track.
                await asyncio.sleep(0)
                if delay < -PERIOD:
                    self._figures.late += 1
            if not self._peers:
                continue  # nobody to send to: an empty room costs nothing
            if self._may_send is not None and not self._figures.sending(self._may_send()):
                continue  # mic packets wait in the MicBatch (bounded) meanwhile
            try:
                self._step()
            except Exception:  # one bad tick must not silence the room for good
                log.exception("voice tick failed in room %s", self.room_code)

    def _groups(self, mixes: dict[str, np.ndarray]) -> list[tuple[np.ndarray, list[str], bool]]:
        """Listeners with a peer by identical mix (tests call it on a stand-in)."""
        return group_mixes(mixes, self._peers)

    def _step(self) -> None:
        """One tick: mix, encode each distinct mix once, queue payloads, report mouths."""
        t0 = time.perf_counter()
        fig = self._figures
        flush_ns = time.thread_time_ns()
        self._mic.flush()  # the mic packets since the last tick, timed from it
        fig.flush_ns += time.thread_time_ns() - flush_ns
        self._step_at = time.monotonic()
        self._tick += 1
        tick = self._tick
        result = self.mixer.tick()
        groups = group_mixes(result.mixes, self._peers)
        assigned = self._streams.assign(groups, self._peers)
        encode_ns, start_ns = fig.encode_ns, time.thread_time_ns()
        for stream, (mix, _, silent) in assigned:
            before, cpu = stream.encodes, stream.cpu_ns
            payload = stream.encode(mix, silent)
            fig.encodes += stream.encodes - before
            fig.encode_ns += stream.cpu_ns - cpu
            if payload:
                fig.packets_out += len(stream.members)
                for pid in stream.members:
                    self._peers[pid].track.push(payload, tick)
        fig.send_ns += time.thread_time_ns() - start_ns - (fig.encode_ns - encode_ns)
        fig.distinct.append(len(groups))
        fig.mixer_distinct = result.distinct
        acc = self._mouth_acc
        for pid, level in result.mouths.items():
            if level > acc.get(pid, 0.0):
                acc[pid] = level
            else:
                acc.setdefault(pid, 0.0)
        if tick % MOUTH_EVERY == 0:
            self._mouth_acc = {}
            if self._on_mouths is not None:
                try:
                    self._on_mouths({pid: round(float(v), 3) for pid, v in acc.items()})
                except Exception:
                    log.exception("on_mouths failed in room %s", self.room_code)
        if tick % DEPTH_EVERY == 0:
            fig.sample_depth(self.mixer)
        self._align_phase()
        fig.tick_us.append((time.perf_counter() - t0) * 1e6)

    def _align_phase(self) -> None:
        # The tick comes right after the talkers' frames (audio/phase.py): the grid moves
        # earlier by their slack, within the phase's budget.
        if self._clock is None:
            return
        move = self._phase.move(self.mixer.playout_slack())
        if move:
            self._clock.shift(-move * PERIOD)
            self.mixer.regrid(move)
            self._figures.phase_moved += move

    # --------------------------------------------------------------------- stats

    def stats(self) -> dict:
        """Figures for /metrics: peers, tick cost, underruns, overflows, distinct mixes."""
        return self._figures.report(peers=self._peerset.figures(), ticks=self._tick,
                                    mixer=self.mixer, streams=self._streams.streams, mic=self._mic,
                                    clock=self._clock, loop_running=self.loop_running)


def _routing_players(routing: Routing) -> set[str]:
    players = set(routing.public)
    for ch in routing.channels:
        players |= set(ch)
    for src, dsts in dict(routing.whisper).items():
        players.add(src)
        players |= set(dsts)
    players |= set(routing.whispering)
    return players
