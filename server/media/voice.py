"""A room's voice: its peers, its mixer and the 20 ms loop that feeds one into the other.

Each tick (drift-free deadlines from `audio.FrameClock`):

1. `RoomMixer.tick()` gives one mix per listener;
2. listeners are grouped by identical mix: the mixer shares one array between
   listeners with the same routing, and arrays with the same samples (most
   often silence, or the one voice everybody but its speaker hears) are
   merged by content;
3. each group's mix is Opus-encoded once per stream (`_Stream`): listeners share
   a stream, and the payload queued on every member's track (`rtc.MixTrack`,
   bounded, oldest dropped if a sender stalls), only while their decoders are
   in the state its encoder expects. A stream whose members' mixes part splits
   (the encoder is copied); streams join in a long silence, or move in a pause
   into a larger one that has encoded the same frames for 0.5 s; a new peer
   joins the stream its mix has equalled for a few ticks, or starts one. A mix that stays
   silent is not encoded again and is sent as Opus DTX (one packet per 400 ms);
4. every third tick (about 16.7 Hz) the loudest mouth level of those ticks
   goes to `on_mouths`.

Personal volumes (`set_volumes`) and seats (`set_layout`) are the mixer's:
listeners whose effective gains are equal still share one mix and one
encode. With seats on, a listener whose offer says `stereo=1` in its Opus
fmtp gets a stereo mix (its group's encoder is stereo, at
`OpusSettings.stereo_bitrate`); every other listener keeps the mono mix.

Why streams and not one encoder per group of equal mixes: encoding is the
bulk of the per-tick cost, so equal mixes are encoded once. But Opus predicts
each frame from the frames before, so a listener handed from one encoder to
another decodes the new packets against its own past: the browser test heard
a whisperer's voice at -36 dB in a mix it was absent from (tests/server/
test_streams.py shows it offline). A listener therefore never changes encoder
mid-speech.

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
import statistics
import time
from collections import deque
from collections.abc import Callable, Iterable

import numpy as np

from audio import CueBank, FrameClock, RoomMixer, Routing
from server.media.opus import OpusEncoder, OpusSettings
from server.media.rtc import MicBatch, Peer, VoiceError, offers_stereo, open_peer, validate_offer

__all__ = ["RoomVoice", "VoiceError", "validate_offer"]

log = logging.getLogger(__name__)

PERIOD = 0.02
FRAME_SAMPLES = 960  # one 20 ms frame at 48 kHz: RTP time units per frame
MOUTH_EVERY = 3  # ticks between two on_mouths calls (~16.7 Hz)
SILENT_REUSE = 5  # silent frames encoded before the last packet is reused
# Streams whose mixes have all been silent this many ticks may merge into one (0.2 s:
# every member's decoder has played silence long enough to have no voice left in it,
# and the encoders' look-ahead holds silence only).
JOIN_SILENT = 10
JOIN_INDEPENDENT = 2  # frames a joined stream encodes without prediction
# A stream that has encoded the same frames as a larger one for JOIN_EQUAL ticks moves its
# members into that one in the next pause: the third tick in a row their mix is silent
# (see _Streams._join_equal for what shorter waits measured).
JOIN_EQUAL = 25
MOVE_SILENT = 2  # silent ticks before the one a move happens in
NEWCOMER_EQUAL = 4  # ticks a new peer's mix must equal a stream's before it joins it
NEWCOMER_WAIT = 10  # ticks a new peer waits for such a stream before it starts its own
DTX_KEEPALIVE = 20  # in a long silence, one packet every 400 ms (Opus DTX's rhythm)
DEPTH_EVERY = 10  # ticks between two samples of the jitter queues' depth
MAX_BURST = 5  # overdue ticks run back to back at most after a stall
PHASE_STEP = 0.01  # ticks the grid may move earlier per tick (0.2 ms: 1 % faster for a while)
PHASE_KEEP = 0.05  # ticks of slack left to the talkers' worst frames (1 ms, beyond their margin)
_SILENCE = object()  # the grouping key of every silent mix


def _channels(mix: np.ndarray) -> int:
    """1 for a mono mix (960,), 2 for a stereo one (960, 2)."""
    return mix.shape[1] if mix.ndim == 2 else 1


class _Stream:
    """The packets a set of listeners receive: one Opus encoder whose every payload went
    to every member, so each member's decoder is in the state the encoder expects.

    Opus predicts each frame from the ones before (band energies, pitch pre-filter,
    overlap), so a decoder fed another encoder's packets mixes its own past into
    them: a listener moved between encoders can hear a ghost of a voice they never
    heard from this one (a whisper's, for instance). A stream therefore only ever
    splits (`split`: the other part goes on with an exact copy of the encoder) and
    listeners only share a stream they started together, one joined in a silence
    (`joined`: a fresh encoder, its first frames decodable from any state), a larger
    one that has encoded exactly their own frames for the last JOIN_EQUAL ticks
    (`_Streams._join_equal`), or, with a fresh decoder, one whose mix they have
    equalled for a few ticks (`_Streams._newcomers`).

    A stream that stays silent is not encoded again: after SILENT_REUSE silent frames
    the encoder's output is a stable comfort packet, reused instead of encoding
    zeros and, with `dtx`, sent only every DTX_KEEPALIVE ticks as Opus DTX does
    (the receiver's jitter buffer plays the timestamp gap as silence).
    """

    __slots__ = ("enc", "channels", "members", "silent_run", "last_payload", "encodes", "dtx",
                 "independent", "equal_to", "equal_run", "cpu_ns")

    def __init__(self, settings: OpusSettings, dtx: bool, channels: int = 1,
                 enc: OpusEncoder | None = None) -> None:
        self.enc = enc or OpusEncoder(settings, channels)
        self.channels = channels
        self.members: list[str] = []
        self.silent_run = 0
        self.last_payload = b""
        self.encodes = 0
        self.cpu_ns = 0  # CPU time its encodes took (the thread's clock)
        self.dtx = dtx
        self.independent = 0  # frames still to encode without prediction
        self.equal_to: _Stream | None = None  # the larger stream encoding this one's mix
        self.equal_run = 0  # frames in a row both encoded from the same mix

    def split(self) -> _Stream:
        """A stream in this one's exact state (its encoder copied): for the members whose
        mix now differs from the others'."""
        other = _Stream(OpusSettings(), self.dtx, self.channels, enc=self.enc.clone())
        other.silent_run, other.last_payload = self.silent_run, self.last_payload
        other.independent = self.independent
        return other

    @classmethod
    def joined(cls, settings: OpusSettings, dtx: bool, channels: int) -> _Stream:
        """A fresh stream for listeners from several streams, every one silent for a
        while: its first frames decode the same from any decoder state."""
        s = cls(settings, dtx, channels)
        s.independent = JOIN_INDEPENDENT
        return s

    def encode(self, mix: np.ndarray, silent: bool) -> bytes:
        """The payload to send for this tick, or b"" to send nothing."""
        self.silent_run = self.silent_run + 1 if silent else 0
        if self.silent_run > SILENT_REUSE and self.last_payload:
            if self.dtx and (self.silent_run - SILENT_REUSE) % DTX_KEEPALIVE:
                return b""
            return self.last_payload
        self.encodes += 1
        t0 = time.thread_time_ns()
        if self.independent:
            self.enc.predict(False)
            self.last_payload = self.enc.encode(mix)
            self.independent -= 1
            if not self.independent:
                self.enc.predict(True)
        else:
            self.last_payload = self.enc.encode(mix)
        self.cpu_ns += time.thread_time_ns() - t0
        return self.last_payload


class _Streams:
    """Which stream each listener is in, tick by tick (see `_Stream`)."""

    def __init__(self, settings: OpusSettings, dtx: bool) -> None:
        self._opus = settings
        self._dtx = dtx
        self.streams: list[_Stream] = []
        self.stream_of: dict[str, tuple[_Stream, object]] = {}  # listener -> stream, its peer
        # newcomers waiting for a stream: listener -> (peer, candidate, equal ticks, ticks)
        self.pending: dict[str, tuple[object, _Stream | None, int, int]] = {}

    def assign(self, groups: list[tuple[np.ndarray, list[str], bool]],
               peers: dict[str, object]) -> list[tuple[_Stream, tuple]]:
        """This tick's streams, each with the group whose mix it encodes (see `_Stream`).

        A listener with a new peer (a fresh decoder) joins a stream or starts its own
        (`_newcomers`); one whose mix changed channel count starts its own. A stream
        whose members' mixes now differ splits: the largest part keeps it, every other
        part goes on with a copy. Streams whose mixes have all been silent JOIN_SILENT
        ticks merge into a fresh one; a stream that has encoded the same frames as a
        larger one for JOIN_EQUAL ticks moves its members into it in a pause. Where the
        encoder cannot be copied (PyAV's), every listener keeps a stream of its own: one
        encode per listener, and no listener ever switches encoder.
        """
        share = OpusEncoder.sharing_possible()
        parts: dict[int, tuple[_Stream, dict[int, list[str]]]] = {}
        kept: dict[str, tuple[_Stream, object]] = {}
        waiting: list[tuple[str, int]] = []
        for gi, (mix, pids, _) in enumerate(groups):
            channels = _channels(mix)
            for pid in pids:
                peer = peers[pid]
                stream, was_peer = self.stream_of.get(pid, (None, None))
                if stream is None or was_peer is not peer or stream.channels != channels:
                    if share and was_peer is not peer:  # a new peer: a fresh decoder
                        waiting.append((pid, gi))
                        continue
                    stream = _Stream(self._opus, self._dtx, channels)
                kept[pid] = (stream, peer)
                parts.setdefault(id(stream), (stream, {}))[1].setdefault(gi, []).append(pid)
        out: list[tuple[_Stream, int]] = []
        for stream, by_group in parts.values():
            ranked = sorted(by_group.items(), key=lambda kv: len(kv[1]), reverse=True)
            for k, (gi, pids) in enumerate(ranked):
                s = stream if k == 0 else stream.split()
                s.members = pids
                if k:
                    for pid in pids:
                        kept[pid] = (s, kept[pid][1])
                out.append((s, gi))
        if share:
            same: dict[int, list[_Stream]] = {}
            for s, gi in out:
                same.setdefault(gi, []).append(s)
            for gi, streams in same.items():
                if len(streams) > 1:
                    out = self._join(out, gi, groups[gi][2], streams, kept)
                else:
                    streams[0].equal_to = None
            out = self._newcomers(out, waiting, groups, peers, kept)
        self.stream_of = kept
        self.streams = [s for s, _ in out]
        return [(s, groups[gi]) for s, gi in out]

    def _newcomers(self, out: list, waiting: list[tuple[str, int]], groups: list,
                   peers: dict[str, object], kept: dict[str, tuple[_Stream, object]]) -> list:
        """Listeners with a fresh decoder (a new peer) and no stream yet.

        Such a listener gets no packet for up to NEWCOMER_WAIT ticks. Once its mix has
        equalled an existing stream's for NEWCOMER_EQUAL ticks in a row, it joins that
        stream: its decoder starts there as a receiver joining any Opus stream does,
        and the stream's recent past (the encoder's look-ahead and pitch memory) holds
        only sound it would have heard too. Measured with a voice the newcomer must not
        hear stopping that many ticks before: -60 dB and below, as with an encoder of
        its own (-22 dB when it stopped right before). Otherwise it starts a stream of
        its own when the wait is over, or at once when no stream has its mix (newcomers
        with the same mix then share a fresh one)."""
        if not waiting:  # the usual tick: nobody new
            self.pending = {}
            return out
        pending = {}
        by_group: dict[int, _Stream] = {}
        for s, gi in out:
            if gi not in by_group or len(s.members) > len(by_group[gi].members):
                by_group[gi] = s
        fresh: dict[int, _Stream] = {}
        for pid, gi in waiting:
            peer = peers[pid]
            was = self.pending.get(pid)
            if was is None or was[0] is not peer:
                was = (peer, None, 0, 0)
            _, candidate, run, ticks = was
            best = by_group.get(gi)
            run = run + 1 if best is not None and best is candidate else 1
            ticks += 1
            if best is not None and run >= NEWCOMER_EQUAL:
                best.members = best.members + [pid]
                kept[pid] = (best, peer)
            elif best is None or ticks >= NEWCOMER_WAIT:
                # A fresh encoder for fresh decoders: shared by the newcomers of this mix.
                own = fresh.get(gi)
                if own is None:
                    own = fresh[gi] = _Stream(self._opus, self._dtx, _channels(groups[gi][0]))
                    out = out + [(own, gi)]
                own.members = own.members + [pid]
                kept[pid] = (own, peer)
            else:
                pending[pid] = (peer, best, run, ticks)
        self.pending = pending
        return out

    def _join(self, out: list, gi: int, silent: bool, streams: list[_Stream],
              kept: dict[str, tuple[_Stream, object]]) -> list:
        """Streams encoding the same mix this tick (group `gi`) merge into a fresh stream
        when that mix is silence and every one of them has been silent JOIN_SILENT ticks;
        otherwise they may move into the largest of them (`_join_equal`).

        The fresh stream is for silence only: listeners moved mid-speech into a fresh
        encoder, even one coding its first frames without prediction, heard a
        whisperer's voice at -35 to -45 dB now and then."""
        if not (silent and all(s.silent_run >= JOIN_SILENT for s in streams)):
            return self._join_equal(out, silent, streams, kept)
        into = _Stream.joined(self._opus, self._dtx, streams[0].channels)
        into.silent_run = streams[0].silent_run
        into.members = [p for s in streams for p in s.members]
        for pid in into.members:
            kept[pid] = (into, kept[pid][1])
        gone = {id(s) for s in streams}
        return [(s, g) for s, g in out if id(s) not in gone] + [(into, gi)]

    @staticmethod
    def _join_equal(out: list, silent: bool, streams: list[_Stream],
                    kept: dict[str, tuple[_Stream, object]]) -> list:
        """Streams encoding the same mix this tick: each smaller one moves its members
        into the largest (the host, whose encoder goes on untouched) once both have
        encoded the same frames for JOIN_EQUAL ticks in a row, on the (MOVE_SILENT+1)th
        silent tick in a row of that mix: in a pause of the voices they hear.

        The movers' decoders then take packets predicted from the host's past, which
        for the last JOIN_EQUAL frames is their own; but a decoder's state converges on
        the encoder's slowly (Opus's predictors reach back further than a few frames,
        more so on steady tones), and a move shows as a short burst where the two
        differ. Measured offline (tests/server/test_streams.py's chatter room, 6
        players, P0 whispering to P1 all along, level in bands nobody speaks in within
        3 ticks of each move, 4 seeds): moves mid-speech after 10 equal ticks -42 to
        -51 dB, after 25 -45 to -54 dB; in a pause after 25, -53 to -64 dB, under the
        coding noise of the same room without moves (-42 to -50 dB in its worst
        windows). The whisper stayed where it is without moves (-63 to -68 dB) in every
        case from 10 ticks on; moves after 3 ticks let it reach -26 dB (in the
        four-talker room of the whisper test there). Ticks where a silent
        stream reuses its last packet instead of encoding do not count: its encoder
        does not move on. In an offline debate of 12 (one speaker at a time,
        backchannels, overlaps) this takes the encodes from 2.3 to 1.4 a tick."""
        host = max(streams, key=lambda s: len(s.members))
        host.equal_to = None
        gone = set()
        host_encodes = not silent or host.silent_run < SILENT_REUSE
        for s in streams:
            if s is host:
                continue
            if s.equal_to is not host:
                s.equal_to, s.equal_run = host, 0
            encodes = not silent or s.silent_run < SILENT_REUSE
            if encodes and host_encodes:
                s.equal_run += 1
            elif encodes or host_encodes:
                s.equal_run = 0
            if s.equal_run >= JOIN_EQUAL and silent and host.silent_run >= MOVE_SILENT:
                host.members = host.members + s.members
                for pid in s.members:
                    kept[pid] = (host, kept[pid][1])
                gone.add(id(s))
        if not gone:
            return out
        return [(s, g) for s, g in out if id(s) not in gone]


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
    ) -> None:
        """`dtx`: stop sending a listener packets while their mix stays silent
        (one every 400 ms), as a browser's Opus DTX does on its uplink.
        `on_peer_lost(pid)`: a player's connection failed or was closed by the
        other end (not by `drop` nor by a newer offer)."""
        self.room_code = room_code
        self._ice_servers = list(ice_servers or [])
        self._on_mouths = on_mouths
        self._on_peer_lost = on_peer_lost
        self._max_candidates = max_candidates
        self._opus = opus or OpusSettings()
        self._dtx = dtx
        self.mixer = RoomMixer(cues=cues if cues is not None else CueBank.load(), seed=seed)
        self._peers: dict[str, Peer] = {}
        self._players: set[str] = set()  # ids the mixer knows (a peer, a routing, a whisper)
        self._listen_only: set[str] = set()  # peers whose sound never enters the mix
        self._mic = MicBatch()  # mic packets held for the next tick
        self._routed = False  # set_routing called at least once
        self._locks: dict[str, asyncio.Lock] = {}
        self._streams = _Streams(self._opus, self._dtx)
        self._task: asyncio.Task | None = None
        self._started = False  # between start() and stop(): the loop runs while peers exist
        self._loop_starts = 0
        self._tick = 0
        self._mouth_acc: dict[str, float] = {}
        # stats
        self._tick_us: deque[float] = deque(maxlen=250)
        self._distinct: deque[int] = deque(maxlen=250)
        self._depths: deque[float] = deque(maxlen=50)
        self._encodes = 0  # Opus encodes actually run (silence reuse excluded)
        self._encode_ns = 0  # their CPU time (the thread's clock)
        self._send_ns = 0  # the tick's packets to the listeners: the same clock, encodes not
        self._packets_out = 0
        self._flush_ns = 0  # the held mic packets' decodes and deliveries, each tick
        self._mixer_distinct = 0
        self._late = 0
        self._clock: FrameClock | None = None
        self._step_at: float | None = None  # time.monotonic() of the last tick
        self._phase_moved = 0.0  # ticks the grid moved earlier, in all (stats)
        self._refused = 0

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Let the 20 ms mixer loop run; it runs while at least one peer is connected
        (idempotent)."""
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
        peers = list(self._peers.values())
        self._peers.clear()
        await asyncio.gather(*(p.close() for p in peers), return_exceptions=True)
        self._streams = _Streams(self._opus, self._dtx)

    @property
    def loop_running(self) -> bool:
        """True while the 20 ms loop runs (started, and somebody connected)."""
        return self._task is not None and not self._task.done()

    def _loop_if_needed(self) -> None:
        """Start the loop when started with a peer; stop it when no peer is left."""
        if self._started and self._peers:
            if not self.loop_running:
                self._loop_starts += 1
                self._mic.holding = True  # mic packets wait for the tick (MicBatch)
                self._task = asyncio.get_running_loop().create_task(
                    self._run(), name=f"voice-{self.room_code}")
        elif self._task is not None:
            self._task.cancel()
            self._task = None
            self._mic.holding = False
            self._mic.flush()
            self._step_at = None  # arrivals are timed again from the next loop's first tick
            self._streams = _Streams(self._opus, self._dtx)
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
        lock = self._locks.setdefault(pid, asyncio.Lock())
        async with lock:
            try:
                limits = {} if self._max_candidates is None else {
                    "max_candidates": self._max_candidates}
                peer, answer = await open_peer(
                    pid, sdp, ice_servers=self._ice_servers, on_pcm=self._on_pcm,
                    on_closed=self._on_peer_closed, mic_batch=self._mic, **limits,
                )
            except VoiceError:
                self._refused += 1
                raise
            old = self._peers.get(pid)
            self._peers[pid] = peer
            if listen_only:
                self._listen_only.add(pid)
            if old is not None:
                await old.close()
            else:
                self._ensure_player(pid)
                self._lobby_routing()
            self.mixer.set_stereo(pid, offers_stereo(sdp))
            self._loop_if_needed()
            return answer

    async def drop(self, pid: str) -> None:
        """Close the player's peer and forget its voice (no error if unknown)."""
        peer = self._peers.pop(pid, None)
        if peer is not None:
            await peer.close()
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

    def _on_peer_closed(self, pid: str, peer: Peer) -> None:
        # ICE/DTLS failure: forget the peer if it is still the current one; the
        # client reconnects with a new offer.
        if self._peers.get(pid) is peer:
            self._peers.pop(pid, None)
            asyncio.ensure_future(peer.close())
            self._loop_if_needed()
            if self._on_peer_lost is not None:
                try:
                    self._on_peer_lost(pid)
                except Exception:
                    log.exception("on_peer_lost failed in room %s", self.room_code)

    def _on_pcm(self, pid: str, pcm: np.ndarray, ts: int | None = None,
                at: float | None = None) -> None:
        """A decoded mic frame of `pid` (`ts`: its RTP time; `at`: when its packet
        arrived, if it was held for the tick; else it arrived now)."""
        if pid in self._peers and pid not in self._listen_only:
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

        Before the first call every connected player is public, as in a lobby.
        A whisper's target that has no voice here is not added: its whisperer
        is then heard by nobody.
        """
        for pid in _routing_players(routing):
            self._ensure_player(pid)
        self._routed = True
        self.mixer.set_routing(routing)

    def set_volumes(self, pid: str, gains: dict[str, float]) -> None:
        """`pid`'s own gain for each speaker named (0 mutes, at most 1.5), replacing the
        last ones; only `pid`'s mix changes. ValueError for a gain out of bounds."""
        self._ensure_player(pid)
        self.mixer.set_volumes(pid, gains)

    def set_layout(self, order: Iterable[str] | None) -> None:
        """Place the voices around a circle in this seat order (stereo listeners hear it),
        or None: every mix mono and centred."""
        self.mixer.set_layout(order)

    def play_cue(self, name: str, listeners: Iterable[str]) -> None:
        """Play a named cue (audio/cues) to these listeners from the next tick."""
        listeners = [p for p in listeners]
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
                    self._late += 1
            if not self._peers:
                continue  # nobody to send to: an empty room costs nothing
            try:
                self._step()
            except Exception:  # one bad tick must not silence the room for good
                log.exception("voice tick failed in room %s", self.room_code)

    def _groups(self, mixes: dict[str, np.ndarray]) -> list[tuple[np.ndarray, list[str], bool]]:
        """Listeners with a peer, grouped by identical mix: (mix, listeners, silent).

        The mixer shares one array between listeners with the same routing;
        listeners with different routings can still get the same samples (most
        often silence, or the one voice heard by everybody but its speaker),
        so arrays are also compared by content: their bytes.
        """
        by_id: dict[int, tuple[np.ndarray, list[str]]] = {}
        for pid, mix in mixes.items():
            if pid in self._peers:
                by_id.setdefault(id(mix), (mix, []))[1].append(pid)
        # Keyed by the samples' bytes: the dict hashes them once and compares
        # them with memcmp on a hash match, far cheaper than np.array_equal.
        by_content: dict[object, tuple[np.ndarray, list[str], bool]] = {}
        for mix, pids in by_id.values():
            silent = not mix.any()
            # A stereo and a mono mix never share an encode, silent or not.
            key: object = (mix.ndim, _SILENCE if silent else mix.tobytes())
            same = by_content.get(key)
            if same is not None:
                same[1].extend(pids)
            else:
                by_content[key] = (mix, list(pids), silent)
        return list(by_content.values())

    def _step(self) -> None:
        """One tick: mix, encode each distinct mix once, queue payloads, report mouths."""
        t0 = time.perf_counter()
        flush_ns = time.thread_time_ns()
        self._mic.flush()  # the mic packets since the last tick, timed from it
        self._flush_ns += time.thread_time_ns() - flush_ns
        self._step_at = time.monotonic()
        self._tick += 1
        tick = self._tick
        result = self.mixer.tick()
        groups = self._groups(result.mixes)
        assigned = self._streams.assign(groups, self._peers)
        encode_ns, start_ns = self._encode_ns, time.thread_time_ns()
        for stream, (mix, _, silent) in assigned:
            before, cpu = stream.encodes, stream.cpu_ns
            payload = stream.encode(mix, silent)
            self._encodes += stream.encodes - before
            self._encode_ns += stream.cpu_ns - cpu
            if payload:
                self._packets_out += len(stream.members)
                for pid in stream.members:
                    self._peers[pid].track.push(payload, tick)
        self._send_ns += time.thread_time_ns() - start_ns - (self._encode_ns - encode_ns)
        self._distinct.append(len(groups))
        self._mixer_distinct = result.distinct
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
            self._sample_depth()
        self._align_phase()
        self._tick_us.append((time.perf_counter() - t0) * 1e6)

    def _align_phase(self) -> None:
        # The talkers' frames wait for the next tick: up to a whole period, 10 ms
        # on average. While every talker's worst frame would still be in time for
        # an earlier tick, the grid moves earlier, a little per tick, until their
        # slack is down to PHASE_KEEP: the tick then comes right after the frames
        # of whoever talks (with several, after the latest of them). Listeners get
        # their packets up to 1 % faster meanwhile, which their jitter buffer
        # absorbs; the RTP times stay regular.
        slack = self.mixer.playout_slack()
        if slack is not None and slack > PHASE_KEEP and self._clock is not None:
            move = min(PHASE_STEP, slack - PHASE_KEEP)
            self._clock.shift(-move * PERIOD)
            self.mixer.regrid(move)
            self._phase_moved += move

    def _sample_depth(self) -> None:
        st = self.mixer.stats()
        active = [p for p, on in st.get("active", {}).items() if on]
        if active:
            depth = st.get("depth", {})
            self._depths.append(sum(depth.get(p, 0.0) for p in active) / len(active))

    # --------------------------------------------------------------------- stats

    def stats(self) -> dict:
        """Figures for /metrics: peers, tick cost, underruns, overflows, distinct mixes."""
        mstats = self.mixer.stats()
        underruns = mstats.get("underruns", {})
        overflows = mstats.get("overflows", {})
        ticks = list(self._tick_us)
        depths = list(self._depths)
        return {
            "peers": len(self._peers),
            "ticks": self._tick,
            "tick_us": {
                "last": round(ticks[-1], 1) if ticks else None,
                "median": round(statistics.median(ticks), 1) if ticks else None,
                "max": round(max(ticks), 1) if ticks else None,
            },
            "underruns": sum(underruns.values()) if isinstance(underruns, dict) else underruns,
            "overflows": sum(overflows.values()) if isinstance(overflows, dict) else overflows,
            "distinct_mixes": {
                "last": self._distinct[-1] if self._distinct else 0,
                "mean": round(sum(self._distinct) / len(self._distinct), 2) if self._distinct else 0,
            },
            "mixer_distinct": self._mixer_distinct,
            # frames waiting in talking speakers' jitter queues (20 ms each), sampled
            # every DEPTH_EVERY ticks over the last ~10 s: the mixer's share of latency
            "jitter_depth_mean": round(sum(depths) / len(depths), 2) if depths else 0.0,
            "encoders": len(self._streams.streams),
            "stereo_encoders": sum(1 for st in self._streams.streams if st.channels == 2),
            "encodes": self._encodes,
            # CPU time in the Opus codec (the event loop thread's clock): what a
            # voice costs before any packet, mixing or Python (bench/ROOM.md, "floor")
            "opus_encode_cpu_s": round(self._encode_ns / 1e9, 4),
            # and in sending the encoded packets (header, SRTP, sendto: the kernel's part
            # too), with the Python around them (bench/ROOM.md, "compiled sender")
            "send_cpu_s": round(self._send_ns / 1e9, 4),
            "packets_out": self._packets_out,
            "decodes": self._mic.decodes,
            "opus_decode_cpu_s": round(self._mic.decode_ns / 1e9, 4),
            # the mic packets' other costs (bench/ROOM.md, "compiled sender"): from the
            # socket to the batch (SRTP, header, RTCP statistics; peers present only),
            # and the batch's flush at each tick (the decodes above included)
            "mic_in_cpu_s": round(sum(p.rtp_in.cpu_ns for p in self._peers.values()
                                      if p.rtp_in is not None) / 1e9, 4),
            "mic_in_packets": sum(p.rtp_in.taken for p in self._peers.values()
                                  if p.rtp_in is not None),
            "mic_flush_cpu_s": round(self._flush_ns / 1e9, 4),
            "late_ticks": self._late,
            # how far the tick grid moved earlier to meet the talkers' frames (ticks)
            "phase_moved": round(self._phase_moved, 3),
            # the talkers' worst frames' wait for their tick now (ticks; None: nobody)
            "playout_slack": _rounded(self.mixer.playout_slack()),
            "missed_ticks": self._clock.missed if self._clock is not None else 0,
            "refused_offers": self._refused,
            "loop_running": self.loop_running,
            "loop_starts": self._loop_starts,
            "track_drops": sum(p.track.dropped for p in self._peers.values()),
            # listeners whose packets the compiled sender sends (server/media/fastrtp.py)
            "native_senders": sum(1 for p in self._peers.values() if p.track.native),
            # peers whose mic packets the compiled receiver takes (server/media/fastrtp.py)
            "native_receivers": sum(1 for p in self._peers.values()
                                    if p.rtp_in is not None and p.rtp_in.native is not None),
            "frames_in": sum(p.frames_in for p in self._peers.values()),
            "silent_frames_in": sum(p.silent_in for p in self._peers.values()),
        }


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def _routing_players(routing: Routing) -> set[str]:
    players = set(routing.public)
    for ch in routing.channels:
        players |= set(ch)
    for src, dsts in dict(routing.whisper).items():
        players.add(src)
        players |= set(dsts)
    players |= set(routing.whispering)
    return players
