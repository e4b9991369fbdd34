"""Mic packets held until the voice loop's tick (server/media/rtc.py MicBatch) and decoded
back to back then: the same PCM, RTP times and counters as decoding each on
arrival, with each packet's arrival time; and the voice times its playout from
that arrival, not from the flush. Real libopus, real Opus packets."""

from __future__ import annotations

import time

import numpy as np
import pytest

from server.media import opus
from server.media.rtc import MicBatch, MicDecoder, Peer
from server.media.voice import PERIOD, RoomVoice
from tests.server.test_opus_direct import _fresh_check, _mic_stream, _run_mic  # noqa: F401


def _held(packets, batch: MicBatch):
    got: list[tuple] = []
    peer = Peer(pid="p1", pc=None, track=None)
    dec = MicDecoder(peer, lambda *a: got.append(a), batch)
    for p in packets:
        assert dec.add(p) == (False, None)
    return dec, peer, got


@pytest.mark.parametrize("path", ["direct", "pyav"])
def test_held_packets_come_at_the_flush_as_they_would_have_on_arrival(path, monkeypatch):
    if path == "pyav":
        monkeypatch.setenv(opus.ENV, "pyav")
    packets = _mic_stream()
    _, now_peer, now = _run_mic(packets)
    batch = MicBatch()
    batch.holding = True
    t0 = time.monotonic()
    dec, peer, got = _held(packets, batch)
    t1 = time.monotonic()
    assert got == [] and peer.frames_in == 0  # nothing decoded before the tick
    batch.flush()
    assert len(got) == len(now) and peer.frames_in == now_peer.frames_in
    assert peer.silent_in == now_peer.silent_in
    assert dec.errors == 1 and dec.late == 1  # the garbage payload; the late duplicate
    for (pid, pcm, ts, at), (pcm_now, ts_now) in zip(got, now, strict=True):
        assert pid == "p1" and ts == ts_now
        np.testing.assert_array_equal(pcm, pcm_now)
        assert t0 <= at <= t1  # when the packet arrived, not when it was decoded
    assert [a[3] for a in got] == sorted(a[3] for a in got)
    batch.flush()
    assert len(got) == len(now)  # a flush delivers each packet once


def test_not_holding_decodes_at_once_and_a_full_batch_flushes_itself(monkeypatch):
    packets = _mic_stream()[:12]  # twelve frames of a tone
    batch = MicBatch()
    _, _, got = _held(packets, batch)
    assert len(got) == 12 and all(len(a) == 3 for a in got)  # on_pcm(pid, pcm, ts)
    monkeypatch.setattr(MicBatch, "MAX_HELD", 5)
    batch.holding = True
    _, peer, got = _held(packets, batch)
    assert len(got) == 10 and peer.frames_in == 10  # two full batches, 2 still held
    batch.flush()
    assert len(got) == 12


def test_packets_held_for_a_peer_closed_meanwhile_are_dropped():
    batch = MicBatch()
    batch.holding = True
    _, peer, got = _held(_mic_stream()[:5], batch)
    peer.closed = True
    batch.flush()
    assert got == [] and peer.frames_in == 0


def test_the_voice_times_a_held_frame_from_its_arrival():
    # Two frames of the same talker with the same RTP times, one delivered as
    # arriving right after the last tick, one as arriving 15 ms later: the
    # jitter queue records the arrival times given, not the time of the call.
    voice = RoomVoice("T")

    class _Peer:
        track = None

    pcm = np.full(960, 0.1, np.float32)
    for pid in ("a", "b"):
        voice._peers[pid] = _Peer()
        voice._ensure_player(pid)
    voice._step_at = time.monotonic() - 0.5  # the last tick, long ago
    voice._on_pcm("a", pcm, 0, voice._step_at + 0.0)
    voice._on_pcm("b", pcm, 0, voice._step_at + 0.015)
    qa, qb = voice.mixer._sources.queues["a"], voice.mixer._sources.queues["b"]
    # last_at: the arrival, in ticks after the last pop (audio.arrival)
    assert qa._delays.last_at == pytest.approx(0.0, abs=1e-9)
    assert qb._delays.last_at == pytest.approx(0.015 / PERIOD, abs=1e-9)
