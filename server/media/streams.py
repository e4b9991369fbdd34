"""Shared Opus streams: which encoder each listener's packets come from, tick by tick.

The voice loop (server/media/voice.py) groups its listeners by identical mix
(`group_mixes`) and encodes each group's mix once per stream (`Stream`):
listeners share a stream, and the payload goes to every member, only while
their decoders are in the state its encoder expects. `Streams.assign` keeps
that true tick by tick: a stream whose members' mixes part splits (the
encoder is copied); streams join in a long silence, or move in a pause into a
larger one that has encoded the same frames for 0.5 s; a new peer joins the
stream its mix has equalled for a few ticks, or starts one. A mix that stays
silent is not encoded again and is sent as Opus DTX (one packet per 400 ms).

Why streams and not one encoder per group of equal mixes: encoding is the
bulk of the per-tick cost, so equal mixes are encoded once. But Opus predicts
each frame from the frames before, so a listener handed from one encoder to
another decodes the new packets against its own past: the browser test heard
a whisperer's voice at -36 dB in a mix it was absent from (tests/server/
test_streams.py shows it offline). A listener therefore never changes encoder
mid-speech.

Plain data and the Opus encoder only: no peers, no clock but the thread's CPU
clock the encodes are measured with.
"""

from __future__ import annotations

import time

import numpy as np

from server.media.opus import OpusEncoder, OpusSettings

SILENT_REUSE = 5  # silent frames encoded before the last packet is reused
# Streams whose mixes have all been silent this many ticks may merge into one (0.2 s:
# every member's decoder has played silence long enough to have no voice left in it,
# and the encoders' look-ahead holds silence only).
JOIN_SILENT = 10
JOIN_INDEPENDENT = 2  # frames a joined stream encodes without prediction
# A stream that has encoded the same frames as a larger one for JOIN_EQUAL ticks moves its
# members into that one in the next pause: the third tick in a row their mix is silent
# (see Streams._join_equal for what shorter waits measured).
JOIN_EQUAL = 25
MOVE_SILENT = 2  # silent ticks before the one a move happens in
NEWCOMER_EQUAL = 4  # ticks a new peer's mix must equal a stream's before it joins it
NEWCOMER_WAIT = 10  # ticks a new peer waits for such a stream before it starts its own
DTX_KEEPALIVE = 20  # in a long silence, one packet every 400 ms (Opus DTX's rhythm)
_SILENCE = object()  # the grouping key of every silent mix


def group_mixes(mixes: dict[str, np.ndarray], peers: dict[str, object]
                ) -> list[tuple[np.ndarray, list[str], bool]]:
    """Listeners with a peer, grouped by identical mix: (mix, listeners, silent).

    The mixer shares one array between listeners with the same routing;
    listeners with different routings can still get the same samples (most
    often silence, or the one voice heard by everybody but its speaker),
    so arrays are also compared by content: their bytes.
    """
    by_id: dict[int, tuple[np.ndarray, list[str]]] = {}
    for pid, mix in mixes.items():
        if pid in peers:
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


def channels_of(mix: np.ndarray) -> int:
    """1 for a mono mix (960,), 2 for a stereo one (960, 2)."""
    return mix.shape[1] if mix.ndim == 2 else 1


class Stream:
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
    (`Streams._join_equal`), or, with a fresh decoder, one whose mix they have
    equalled for a few ticks (`Streams._newcomers`).

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
        self.equal_to: Stream | None = None  # the larger stream encoding this one's mix
        self.equal_run = 0  # frames in a row both encoded from the same mix

    def split(self) -> Stream:
        """A stream in this one's exact state (its encoder copied): for the members whose
        mix now differs from the others'."""
        other = Stream(OpusSettings(), self.dtx, self.channels, enc=self.enc.clone())
        other.silent_run, other.last_payload = self.silent_run, self.last_payload
        other.independent = self.independent
        return other

    @classmethod
    def joined(cls, settings: OpusSettings, dtx: bool, channels: int) -> Stream:
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


class Streams:
    """Which stream each listener is in, tick by tick (see `Stream`)."""

    def __init__(self, settings: OpusSettings, dtx: bool) -> None:
        self._opus = settings
        self._dtx = dtx
        self.streams: list[Stream] = []
        self.stream_of: dict[str, tuple[Stream, object]] = {}  # listener -> stream, its peer
        # newcomers waiting for a stream: listener -> (peer, candidate, equal ticks, ticks)
        self.pending: dict[str, tuple[object, Stream | None, int, int]] = {}

    def assign(self, groups: list[tuple[np.ndarray, list[str], bool]],
               peers: dict[str, object]) -> list[tuple[Stream, tuple]]:
        """This tick's streams, each with the group whose mix it encodes (see `Stream`).

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
        parts: dict[int, tuple[Stream, dict[int, list[str]]]] = {}
        kept: dict[str, tuple[Stream, object]] = {}
        waiting: list[tuple[str, int]] = []
        for gi, (mix, pids, _) in enumerate(groups):
            channels = channels_of(mix)
            for pid in pids:
                peer = peers[pid]
                stream, was_peer = self.stream_of.get(pid, (None, None))
                if stream is None or was_peer is not peer or stream.channels != channels:
                    if share and was_peer is not peer:  # a new peer: a fresh decoder
                        waiting.append((pid, gi))
                        continue
                    stream = Stream(self._opus, self._dtx, channels)
                kept[pid] = (stream, peer)
                parts.setdefault(id(stream), (stream, {}))[1].setdefault(gi, []).append(pid)
        out: list[tuple[Stream, int]] = []
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
            same: dict[int, list[Stream]] = {}
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
                   peers: dict[str, object], kept: dict[str, tuple[Stream, object]]) -> list:
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
        by_group: dict[int, Stream] = {}
        for s, gi in out:
            if gi not in by_group or len(s.members) > len(by_group[gi].members):
                by_group[gi] = s
        fresh: dict[int, Stream] = {}
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
                    own = fresh[gi] = Stream(self._opus, self._dtx, channels_of(groups[gi][0]))
                    out = out + [(own, gi)]
                own.members = own.members + [pid]
                kept[pid] = (own, peer)
            else:
                pending[pid] = (peer, best, run, ticks)
        self.pending = pending
        return out

    def _join(self, out: list, gi: int, silent: bool, streams: list[Stream],
              kept: dict[str, tuple[Stream, object]]) -> list:
        """Streams encoding the same mix this tick (group `gi`) merge into a fresh stream
        when that mix is silence and every one of them has been silent JOIN_SILENT ticks;
        otherwise they may move into the largest of them (`_join_equal`).

        The fresh stream is for silence only: listeners moved mid-speech into a fresh
        encoder, even one coding its first frames without prediction, heard a
        whisperer's voice at -35 to -45 dB now and then."""
        if not (silent and all(s.silent_run >= JOIN_SILENT for s in streams)):
            return self._join_equal(out, silent, streams, kept)
        into = Stream.joined(self._opus, self._dtx, streams[0].channels)
        into.silent_run = streams[0].silent_run
        into.members = [p for s in streams for p in s.members]
        for pid in into.members:
            kept[pid] = (into, kept[pid][1])
        gone = {id(s) for s in streams}
        return [(s, g) for s, g in out if id(s) not in gone] + [(into, gi)]

    @staticmethod
    def _join_equal(out: list, silent: bool, streams: list[Stream],
                    kept: dict[str, tuple[Stream, object]]) -> list:
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

