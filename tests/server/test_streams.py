"""Shared Opus streams (server/media/streams.py `Stream`): listeners share an encode only when
their decoders are where the encoder expects them, so no voice leaks between mixes.

Each test runs the real mixer, the server's grouping and stream assignment, and real
libopus: every listener decodes its own packets with its own decoder, as a browser does.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

from audio import FRAME, RoomMixer, Routing
from server.media import opus
from server.media.opus import OpusDecoder, OpusEncoder, OpusSettings
from server.media.streams import JOIN_SILENT, NEWCOMER_EQUAL
from server.media.streams import Stream as _Stream
from server.media.streams import Streams as _Streams
from server.media.voice import RoomVoice

SR = 48000
TONES = {"ada": 520.0, "bruno": 700.0, "carla": 960.0, "dario": 1300.0}


@pytest.fixture(params=["direct", "pyav"])
def opus_path(request, monkeypatch):
    if request.param == "pyav":
        monkeypatch.setenv(opus.ENV, "pyav")
    opus.reset()
    yield request.param
    opus.reset()


def _syllable(out, t, n, hz):
    """Write one syllable into `out` at sample `t`: `n` samples (fewer at the end) of a
    tone with 5 ms ramps. Returns the samples written."""
    k = np.arange(max(0, min(n, out.size - t)))
    ramp = np.minimum(1, np.minimum(k, k[::-1] + 1) / 240)
    out[t:t + k.size] = 0.3 * ramp * np.sin(2 * np.pi * hz * (t + k) / SR)
    return k.size


def _syllables(rng, hz, ticks, quiet=()):
    """A tone in syllables (80-300 ms on, 50-250 ms off), silent in the `quiet` tick spans."""
    out = np.zeros(ticks * FRAME, np.float32)
    t = 0
    while t < out.size:
        on, off = int(rng.uniform(0.08, 0.3) * SR), int(rng.uniform(0.05, 0.25) * SR)
        _syllable(out, t, on, hz)
        t += on + off
    for a, b in quiet:
        out[a * FRAME:b * FRAME] = 0.0
    return out


def _level(x, hz):
    w = np.hanning(x.size)
    k = np.arange(x.size)
    return 20 * np.log10(abs(np.sum(x * w * np.exp(-2j * np.pi * hz * k / SR))) * 2 / w.sum() + 1e-9)


class _Room:
    """The voice's per-tick path without the network: mixer, grouping, streams, encodes;
    one decoder per listener. With `dtx`, a silent mic frame is not pushed (a browser
    sends nothing)."""

    def __init__(self, players=tuple(TONES), dtx=False):
        self.players, self.dtx = list(players), dtx
        self.mixer = RoomMixer()
        for p in self.players:
            self.mixer.add_player(p)
        self.mixer.set_routing(Routing(public=frozenset(self.players),
                                       whisper={p: frozenset(self.players) - {p}
                                                for p in self.players}))
        self.voice = types.SimpleNamespace(_peers={p: object() for p in self.players})
        self.streams = _Streams(OpusSettings(), dtx=True)
        self.decoders = {p: OpusDecoder() for p in self.players}
        self.heard = {p: [] for p in self.players}
        self.moved = {p: [] for p in self.players}  # ticks at which p's stream moved
        self.encodes = 0
        self.ticks = 0

    def tick(self, frames):
        for p, f in frames.items():
            if not self.dtx or f.any():
                self.mixer.push(p, f)
        mixes = self.mixer.tick().mixes
        groups = RoomVoice._groups(self.voice, mixes)
        was = {p: s for p, (s, _) in self.streams.stream_of.items()}
        got = {}
        for stream, (mix, _, silent) in self.streams.assign(groups, self.voice._peers):
            before = stream.encodes
            payload = stream.encode(mix, silent)
            self.encodes += stream.encodes - before
            for p in stream.members:
                assert p not in got, f"{p} is in two streams"
                got[p] = payload
        for p in self.players:
            now = self.streams.stream_of.get(p, (None,))[0]
            if p in was and now is not was[p] and was[p] not in self.streams.streams:
                self.moved[p].append(self.ticks)  # its stream is gone (a split keeps it)
            payload = got.get(p, b"")  # nothing while a new peer waits for a stream
            pcm = self.decoders[p].decode(payload) if payload else np.zeros(FRAME, np.float32)
            self.heard[p].append(np.asarray(pcm, np.float32).reshape(-1)[:FRAME])
        self.ticks += 1

    def audio(self, p, start_tick):
        return np.concatenate(self.heard[p][start_tick:])


def test_a_whisper_is_absent_from_every_other_decoded_stream(opus_path):
    # Four talk in syllables; a common 0.6 s pause lets the streams merge; then Ada
    # whispers to Bruno while all talk on. Shared encoders handed listeners from one
    # encoder to another, and Carla's and Dario's decoders then played Ada's band at
    # -25 to -35 dB (the voices they do hear: about -10 dB).
    rng = np.random.default_rng(1)
    ticks, pause, whisper = 400, (100, 130), 140
    sig = {p: _syllables(rng, hz, ticks, quiet=[pause]) for p, hz in TONES.items()}
    room = _Room()
    streams_in_pause = None
    for t in range(ticks):
        if t == whisper:
            room.mixer.start_whisper("ada", "bruno")
        room.tick({p: s[t * FRAME:(t + 1) * FRAME] for p, s in sig.items()})
        if t == pause[1] - 1:
            streams_in_pause = len(room.streams.streams)
    if opus_path == "direct":
        # the silence long enough: one stream for all (JOIN_SILENT ticks)
        assert pause[1] - pause[0] > JOIN_SILENT + 2 and streams_in_pause == 1
    else:
        assert streams_in_pause == 4  # PyAV's encoder cannot be copied: one each
    win, hop = 2048, 480
    for p in ("carla", "dario"):
        x = room.audio(p, whisper + 10)
        ada = [_level(x[i:i + win], TONES["ada"]) for i in range(0, x.size - win, hop)]
        heard = [max(_level(x[i:i + win], TONES[q]) for q in TONES if q not in ("ada", p))
                 for i in range(0, x.size - win, hop)]
        assert np.median(heard) > -20, (p, np.median(heard))  # the voices they do hear
        assert max(ada) < -45, (p, max(ada))  # Ada's whisper: absent, every window
    x = room.audio("bruno", whisper + 10)
    assert np.median([_level(x[i:i + win], TONES["ada"]) for i in range(0, x.size - win, hop)]) > -30


def test_a_split_stream_goes_on_exactly_as_the_original():
    opus.reset()
    if not OpusEncoder.sharing_possible():
        pytest.skip("libopus is not called directly here")
    rng = np.random.default_rng(2)
    sig = _syllables(rng, 440.0, 40)
    a = _Stream(OpusSettings(), True, 1)
    for t in range(20):
        a.encode(sig[t * FRAME:(t + 1) * FRAME], False)
    b = a.split()
    for t in range(20, 40):
        f = sig[t * FRAME:(t + 1) * FRAME]
        assert a.encode(f, False) == b.encode(f, False)
    # and they are two encoders: fed differently, they differ
    f = sig[:FRAME]
    assert a.encode(f, False) != b.encode(f * 0.5, False)


def test_a_new_peer_waits_then_joins_the_stream_of_its_mix_and_hears_no_whisper():
    opus.reset()
    if not OpusEncoder.sharing_possible():
        pytest.skip("libopus is not called directly here")
    # Ada whispers to Bruno all along; Bruno talks; Carla and Dario listen (same mix).
    rng = np.random.default_rng(3)
    ticks = 120
    sig = {p: np.zeros(ticks * FRAME, np.float32) for p in TONES}
    sig["ada"] = _syllables(rng, TONES["ada"], ticks)
    sig["bruno"] = _syllables(rng, TONES["bruno"], ticks)
    room = _Room()
    room.mixer.start_whisper("ada", "bruno")
    for t in range(40):
        room.tick({p: x[t * FRAME:(t + 1) * FRAME] for p, x in sig.items()})
    dario = room.streams.stream_of["dario"][0]
    assert room.streams.stream_of["carla"][0] is dario  # one mix, one stream
    # Carla reconnects: a new peer, a fresh decoder. She gets nothing until her mix has
    # equalled Dario's stream's for NEWCOMER_EQUAL ticks, then that stream's packets.
    room.voice._peers["carla"] = object()
    room.decoders["carla"] = OpusDecoder()
    start = len(room.heard["carla"])
    for t in range(40, 40 + NEWCOMER_EQUAL - 1):
        room.tick({p: x[t * FRAME:(t + 1) * FRAME] for p, x in sig.items()})
        assert "carla" not in room.streams.stream_of and "carla" in room.streams.pending
    for t in range(40 + NEWCOMER_EQUAL - 1, ticks):
        room.tick({p: x[t * FRAME:(t + 1) * FRAME] for p, x in sig.items()})
    assert room.streams.stream_of["carla"][0] is room.streams.stream_of["dario"][0]
    assert not any(room.heard["carla"][start:start + NEWCOMER_EQUAL - 1][i].any()
                   for i in range(NEWCOMER_EQUAL - 1))
    x = room.audio("carla", start)
    win, hop = 2048, 480
    ada = [_level(x[i:i + win], TONES["ada"]) for i in range(0, x.size - win, hop)]
    bruno = [_level(x[i:i + win], TONES["bruno"]) for i in range(0, x.size - win, hop)]
    assert max(bruno) > -20 and max(ada) < -45, (max(bruno), max(ada))


def test_new_peers_whose_mix_no_stream_has_start_one_at_once():
    opus.reset()
    if not OpusEncoder.sharing_possible():
        pytest.skip("libopus is not called directly here")
    room = _Room()
    rng = np.random.default_rng(4)
    talk = {p: _syllables(rng, hz, 60) for p, hz in TONES.items()}
    talk["carla"][:] = 0.0
    talk["dario"][:] = 0.0
    # Ada and Bruno talk from the first tick (each hears only the other); Carla and
    # Dario hear both, the same mix: three fresh streams, at once.
    room.tick({p: x[:FRAME] for p, x in talk.items()})
    room.tick({p: x[FRAME:2 * FRAME] for p, x in talk.items()})
    assert not room.streams.pending
    assert sorted(len(s.members) for s in room.streams.streams) in ([1, 1, 2], [1, 3], [4])
    assert room.streams.stream_of["carla"][0] is room.streams.stream_of["dario"][0]


def _chatter(rng, players, ticks, whisperer_hz):
    """Each player in turns of talk (1-4 s of syllables) and quiet (0.5-3 s), on their
    own, so voices overlap, stop and start in every combination; player 0 never speaks
    in public: it whispers in syllables at `whisperer_hz` all along."""
    size = ticks * FRAME
    sig = {}
    for i, p in enumerate(players):
        hz = whisperer_hz if i == 0 else 300.0 + 97.0 * i
        x = np.zeros(size, np.float32)
        t = int(rng.uniform(0, 2) * SR)
        while t < size:
            end = t + int(rng.uniform(1.0, 4.0) * SR)
            while t < min(end, size):
                t += _syllable(x, t, int(rng.uniform(0.08, 0.3) * SR), hz)
                t += int(rng.uniform(0.05, 0.25) * SR)
            t += int(rng.uniform(0.5, 3.0) * SR)
        sig[p] = x
    return sig


def _chatter_room(players=6, ticks=900, seed=1):
    """An offline room where everyone chats (`_chatter`), P0 whispering to P1 throughout,
    mics with DTX: (what each listener decoded, the ticks at which each listener's
    stream moved into another, encodes a tick)."""
    room = _Room([f"p{i}" for i in range(players)], dtx=True)
    sig = _chatter(np.random.default_rng(seed), room.players, ticks, whisperer_hz=2500.0)
    room.mixer.start_whisper("p0", "p1")
    for t in range(ticks):
        room.tick({p: x[t * FRAME:(t + 1) * FRAME] for p, x in sig.items()})
    return {p: room.audio(p, 0) for p in room.players}, room.moved, room.encodes / ticks


def _unspoken(x):
    """Level in bands nobody speaks in (a burst, a click): the loudest of three."""
    return max(_level(x, hz) for hz in (180.0, 3700.0, 4400.0))


def test_streams_move_into_a_larger_one_in_a_pause_with_no_whisper_and_no_burst(monkeypatch):
    opus.reset()
    if not OpusEncoder.sharing_possible():
        pytest.skip("libopus is not called directly here")
    from server.media import streams as voice
    heard, moved, encodes = _chatter_room()
    monkeypatch.setattr(voice, "JOIN_EQUAL", 10 ** 6)  # the same room, nobody ever moves
    alone, never, encodes_alone = _chatter_room()
    assert not any(never.values())
    moves = [(p, t) for p in moved for t in moved[p]]
    assert len(moves) >= 10, moves  # streams do move mid-conversation...
    assert encodes < 0.95 * encodes_alone, (encodes, encodes_alone)  # ...and it pays
    win = 2048
    for p, t in moves:
        for i in range(max(0, (t - 3) * FRAME), (t + 4) * FRAME, 480):
            level = _unspoken(heard[p][i:i + win])
            # no burst at the move: under the room's own coding noise (moves mid-speech
            # measured up to -42 dB here)
            assert level < -50, (p, t, i / FRAME, level, _unspoken(alone[p][i:i + win]))
    for p in heard:
        if p in ("p0", "p1"):
            continue
        x = heard[p][20 * FRAME:]
        worst = max(_level(x[i:i + win], 2500.0) for i in range(0, x.size - win, FRAME))
        assert worst < -58, (p, worst)  # the whisper: absent (-63 to -68 without moves)


def test_a_stream_moves_only_after_equal_frames_and_only_in_a_pause():
    opus.reset()
    if not OpusEncoder.sharing_possible():
        pytest.skip("libopus is not called directly here")
    from server.media.streams import JOIN_EQUAL
    ticks = 200
    k = np.arange(ticks * FRAME)
    sig = {p: (0.3 * np.sin(2 * np.pi * hz * k / SR)).astype(np.float32) for p, hz in TONES.items()}
    sig["carla"][:] = 0.0
    sig["dario"][:] = 0.0
    stop = 40  # Bruno stops: his mix (Ada) is now Carla's and Dario's (Ada, Bruno silent)
    sig["bruno"][stop * FRAME:] = 0.0
    early, late = (stop + 10, stop + 16), (stop + JOIN_EQUAL + 20, stop + JOIN_EQUAL + 26)
    for a, b in (early, late):  # Ada pauses for 6 ticks, twice
        sig["ada"][a * FRAME:b * FRAME] = 0.0
    room = _Room()
    together = []
    for t in range(ticks):
        room.tick({p: x[t * FRAME:(t + 1) * FRAME] for p, x in sig.items()})
        of = room.streams.stream_of
        together.append(of["bruno"][0] is of["carla"][0] is of["dario"][0])
    first = together.index(True, stop)
    # not in the first pause (too few equal frames), nor while Ada talks after it...
    assert first > early[1] + 2, first
    # ...but in the second pause, on its third silent tick (the mixer's queue delays
    # the mix by a tick or two)
    assert late[0] + 2 <= first <= late[0] + 6, (first, late)
    assert all(together[first:])
