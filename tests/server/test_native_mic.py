"""Issue 15 (server CPU): the mic packets taken in C (server/media/_fastrtp.c, `Receiver`, wired by
server/media/rtp_in.py) reach the decoder and aiortc's statistics exactly as they do through the
Python path (`RtpIn.take`): the same packets fed to both, real libsrtp sessions, aiortc's
own `StreamStatistics`, a stand-in for aiortc's receive task where a packet is handed on."""

from __future__ import annotations

import asyncio
import os
import random
import types

import pylibsrtp
import pytest
from aiortc import rtcrtpreceiver
from aiortc.rtcdtlstransport import State as DtlsState
from aiortc.rtcrtpreceiver import StreamStatistics
from aiortc.rtp import RtpPacket

from server.media import fastrtp, srtp
from server.media.rtc import MicBatch, MicDecoder, Peer
from server.media.rtp_in import RtpIn
from tests.server.test_fast_rtp import _built, _sessions

SSRC = 0x5EED1234
OTHER_SSRC = 0x0BADF00D
OPUS_PT, OTHER_PT = 111, 0


class Recorder(MicDecoder):
    """A MicDecoder that records what it would decode: (payload, RTP time, held or not)."""

    def __init__(self, peer, batch) -> None:
        super().__init__(peer, lambda *a: None, batch)
        self.got: list[tuple[bytes, int, bool]] = []

    def decode_payload(self, data, timestamp, at=None, frame=None) -> None:
        if not self._peer.closed:
            self.got.append((bytes(data), timestamp, at is not None))


class Env:
    """One peer's receive side as RtpIn sees it: aiortc's receiver and DTLS transport (their
    private attributes), the ICE connection's queue, a hooked protocol."""

    def __init__(self, key: bytes) -> None:
        (self.session,) = _sessions(pylibsrtp.Policy.SSRC_ANY_INBOUND, 1, key=key)
        self.batch = MicBatch()
        self.peer = Peer(pid="p1", pc=None, track=None)
        self.decoder = Recorder(self.peer, self.batch)
        codec = types.SimpleNamespace(mimeType="audio/opus", clockRate=48000)
        pcmu = types.SimpleNamespace(mimeType="audio/PCMU", clockRate=8000)
        self.receiver = types.SimpleNamespace(_enabled=True)
        for name, value in (("jitter_buffer", self.decoder),
                            ("codecs", {OPUS_PT: codec, OTHER_PT: pcmu}),
                            ("remote_streams", {}), ("active_ssrc", {})):
            setattr(self.receiver, "_RTCRtpReceiver__" + name, value)
        router = types.SimpleNamespace(ssrc_table={SSRC: self.receiver})
        self.dtls = types.SimpleNamespace(_state=DtlsState.CONNECTED, _rx_srtp=self.session,
                                          _rtp_router=router, _RTCDtlsTransport__rx_bytes=0,
                                          _RTCDtlsTransport__rx_packets=0)
        self.queue: asyncio.Queue = asyncio.Queue()
        self.handed: list[bytes] = []
        self.protocol = types.SimpleNamespace(datagram_received=self._original)
        self.rtp_in = RtpIn(self.receiver, self.dtls, self.queue)
        self.rtp_in.hook(self.protocol)

    def _original(self, data, addr) -> None:
        """aioice's datagram_received: the datagram goes to the connection's queue."""
        self.handed.append(data)
        self.queue.put_nowait((data, 1))

    def run_aiortc(self) -> None:
        """aiortc's receive task: each queued datagram unprotected, parsed, routed, counted
        and given to the jitter buffer (RTCP and the rest only counted)."""
        while not self.queue.empty():
            data, _ = self.queue.get_nowait()
            self.dtls._RTCDtlsTransport__rx_bytes += len(data)
            self.dtls._RTCDtlsTransport__rx_packets += 1
            if (not isinstance(data, bytes) or len(data) < 12 or not 127 < data[0] < 192
                    or 191 < data[1] < 209):
                continue
            try:
                packet = RtpPacket.parse(self.session.unprotect(data))
            except (pylibsrtp.Error, ValueError):
                continue
            if self.dtls._rtp_router.ssrc_table.get(packet.ssrc) is not self.receiver:
                continue
            streams = self.receiver._RTCRtpReceiver__remote_streams
            if packet.ssrc not in streams:
                streams[packet.ssrc] = StreamStatistics(48000)
            streams[packet.ssrc].add(packet)
            packet._data = packet.payload  # aiortc's depayload() of Opus
            self.decoder.add(packet)

    def outcome(self) -> dict:
        self.rtp_in.push()
        stream = self.receiver._RTCRtpReceiver__remote_streams.get(SSRC)
        return {
            "decoded": self.decoder.got,
            "stats": {name: getattr(stream, name) for name in fastrtp.STATS_FIELDS},
            "lost": stream.packets_lost,
            "jitter": stream.jitter,
            "last": self.decoder._last,
            "late": self.decoder.late,
            "rx": (self.dtls._RTCDtlsTransport__rx_bytes,
                   self.dtls._RTCDtlsTransport__rx_packets),
            "handed": self.handed,
            "taken": self.rtp_in.taken,
            "refused": self.rtp_in.refused,
            "active": sorted(self.receiver._RTCRtpReceiver__active_ssrc),
        }


def _rtp(seq: int, ts: int, payload: bytes, *, ssrc: int = SSRC, pt: int = OPUS_PT,
         csrcs: int = 0, ext: bytes | None = None, pad: int = 0) -> bytes:
    b0 = 0x80 | (0x20 if pad else 0) | (0x10 if ext is not None else 0) | csrcs
    out = bytes([b0, pt]) + seq.to_bytes(2, "big") + ts.to_bytes(4, "big") + ssrc.to_bytes(4, "big")
    out += os.urandom(4 * csrcs)
    if ext is not None:
        out += b"\xbe\xde" + (len(ext) // 4).to_bytes(2, "big") + ext
    out += payload
    if pad:
        out += bytes(pad - 1) + bytes([pad])
    return out


def _traffic(key: bytes, rng: random.Random) -> list[tuple[str, bytes, float]]:
    """(what, datagram, arrival wall-clock time) of one talker's stream with everything a
    network and a peer can do to it."""
    (out,) = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, 1, key=key)
    (rtcp_out,) = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, 1, key=key)
    items: list[tuple[str, bytes]] = []
    seq, ts = 65400, 0xFFFF0000  # both wrap during the stream
    for i in range(400):
        seq, ts = (seq + 1) & 0xFFFF, (ts + 960) & 0xFFFFFFFF
        kind = rng.choice(["plain"] * 8 + ["csrc", "ext", "pad"])
        payload = rng.randbytes(rng.randint(1, 120))
        plain = _rtp(seq, ts, payload, csrcs=2 if kind == "csrc" else 0,
                     ext=b"\x10\x30\x00\x00" if kind in ("ext", "pad") else None,
                     pad=rng.choice([1, 4, 9]) if kind == "pad" else 0)
        items.append((kind, out.protect(plain)))
        r = rng.random()
        if r < 0.04:  # a duplicate (SRTP's replay window refuses it)
            items.append(("duplicate", items[-1][1]))
        elif r < 0.08 and len(items) > 3:  # reordered: swapped with the one before
            items[-1], items[-2] = items[-2], items[-1]
        elif r < 0.16:  # one more number of the stream, for a packet that is not audio
            seq, ts = (seq + 1) & 0xFFFF, (ts + 960) & 0xFFFFFFFF
            if r < 0.10:  # forged: does not authenticate
                forged = bytearray(out.protect(_rtp(seq, ts, payload)))
                forged[-1] ^= 0x40
                items.append(("forged", bytes(forged)))
            elif r < 0.12:  # malformed inside: a padding length of 0
                bad = bytearray(_rtp(seq, ts, payload, pad=1))
                bad[-1] = 0
                items.append(("malformed", out.protect(bytes(bad))))
            elif r < 0.14:
                items.append(("empty", out.protect(_rtp(seq, ts, b""))))
            else:
                items.append(("other pt", out.protect(_rtp(seq, ts, payload, pt=OTHER_PT))))
        elif r < 0.18:
            items.append(("other ssrc", out.protect(_rtp(i, ts, payload, ssrc=OTHER_SSRC))))
        elif r < 0.20:
            sr = bytes([0x80, 200, 0, 6]) + SSRC.to_bytes(4, "big") + bytes(20)
            items.append(("rtcp", rtcp_out.protect_rtcp(sr)))
        elif r < 0.21:
            items.append(("stun", bytes([0, 1, 0, 0]) + bytes(16)))
        elif r < 0.22:
            items.append(("short", bytes([0x80, OPUS_PT, 0, 1])))
    clock, out_items = 1_700_000_000.0, []
    for what, data in items:
        clock += rng.choice([0.0, 0.001, 0.019, 0.02, 0.021, 0.045])
        out_items.append((what, data, clock))
    return out_items


def _feed(env: Env, traffic, rng: random.Random, monkeypatch, native: bool) -> None:
    """Each datagram to the hooked protocol; the batch flushed every few datagrams (a tick),
    not holding for a while (the voice loop stopped), and for a while the connection's
    queue not empty (aiortc's task has datagrams to take first)."""
    now = [0.0]
    monkeypatch.setattr(rtcrtpreceiver, "time", types.SimpleNamespace(time=lambda: now[0]))
    env.batch.holding = True
    for i, (_, data, t) in enumerate(traffic):
        now[0] = t
        if env.rtp_in.native is not None:
            env.rtp_in.native.fake_time(t)
        env.batch.holding = not 100 <= i < 140
        if 200 <= i < 230 and i % 3 == 0:
            env.queue.put_nowait((b"\x17older", 1))  # a DTLS record waiting in the queue
        env.protocol.datagram_received(data, ("192.0.2.1", 5000))
        if i % 3 == 2 or 200 <= i < 230:
            env.run_aiortc()
        if i % 4 == 3:
            env.batch.flush()
        if i == 10:
            assert (env.rtp_in.native is not None) is native
    env.run_aiortc()
    env.batch.flush()


def test_the_compiled_receiver_takes_what_the_python_path_takes_with_the_same_outcome(
        monkeypatch):
    """Normal, reordered and duplicate packets, padding, CSRCs, a header extension, a
    malformed and an empty payload, packets that do not authenticate (refused, dropped),
    another SSRC or payload type, RTCP, STUN and short datagrams (handed to the original
    callback), the queue not empty (handed on, in order: aiortc's path then updates the
    statistics and the jitter buffer, and the compiled path carries on from there): the
    decoder gets the same payloads with the same RTP times, held or not as the Python
    path holds them, and aiortc's statistics (its receiver reports), the DTLS counters and
    what was handed on are the same."""
    _built()
    key = os.urandom(30)
    traffic = _traffic(key, random.Random(15))
    kinds = {what for what, _, _ in traffic}
    assert {"duplicate", "forged", "malformed", "other ssrc", "other pt", "rtcp", "csrc", "ext",
            "pad", "empty", "stun", "short"} <= kinds
    outcomes = {}
    for native in (False, True):
        monkeypatch.setattr(fastrtp, "_rx_checked", None)
        if native:
            monkeypatch.delenv("SUSSURRO_NATIVE_RTP", raising=False)
        else:
            monkeypatch.setenv("SUSSURRO_NATIVE_RTP", "0")
        monkeypatch.setattr(fastrtp, "_checked", None)
        env = Env(key)
        _feed(env, traffic, random.Random(1), monkeypatch, native)
        outcomes[native] = env.outcome()
        if native:
            taken, _, _, cpu_ns, held, _ = env.rtp_in.native.counts()
            assert taken > 300 and cpu_ns > 0 and held == 0
    python, compiled = outcomes[False], outcomes[True]
    for name in python:
        assert compiled[name] == python[name], name
    decoded = python["decoded"]
    assert len(decoded) > 300 and any(not held for *_, held in decoded)
    assert python["refused"] > 3 and python["late"] > 3 and python["stats"]["cycles"] == 65536
    assert python["jitter"] > 0 and python["lost"] > 0
    assert len(python["handed"]) > 40  # RTCP, STUN, other SSRC/type, while the queue was busy


def _holding_env(monkeypatch) -> tuple[pylibsrtp.Session, Env]:
    """The compiled receiver allowed and checked afresh; an Env whose batch holds packets
    for the tick, and the outbound session that protects what is fed to it."""
    _built()
    monkeypatch.setattr(fastrtp, "_rx_checked", None)
    monkeypatch.setattr(fastrtp, "_checked", None)
    monkeypatch.delenv("SUSSURRO_NATIVE_RTP", raising=False)
    key = os.urandom(30)
    (out,) = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, 1, key=key)
    env = Env(key)
    env.batch.holding = True
    return out, env


def test_a_receiver_hands_back_packets_and_state_when_its_stream_changes_hands(monkeypatch):
    """The Port hands what is not bytes to the original callback; a disabled receiver's
    packets are counted and dropped; DTLS not connected, or another SRTP session: every
    packet goes aiortc's way, with the statistics pushed to aiortc's objects first."""
    out, env = _holding_env(monkeypatch)
    packets = [out.protect(_rtp(i, 960 * i, bytes([i]) * 10)) for i in range(1, 40)]
    for data in packets[:30]:
        env.protocol.datagram_received(data, None)
    native = env.rtp_in.native
    assert native is not None and type(env.protocol.datagram_received) is fastrtp._fastrtp.Port
    assert env.handed == [] and len(env.batch._native) == 1
    env.protocol.datagram_received("text", None)
    assert env.handed == ["text"]
    env.run_aiortc()  # the queue is empty again (else the next packets wait behind it)
    env.receiver._enabled = False
    env.protocol.datagram_received(packets[30], None)
    env.receiver._enabled = True
    env.dtls._state = DtlsState.CLOSED
    env.protocol.datagram_received(packets[31], None)
    assert env.handed[-1] == packets[31] and native.counts()[5] == 1  # stale: Python's turn
    stream = env.receiver._RTCRtpReceiver__remote_streams[SSRC]
    assert stream.packets_received == 30 and stream.max_seq == 30  # pushed before handing on
    env.dtls._state = DtlsState.CONNECTED
    env.run_aiortc()  # aiortc counts packet 32
    assert stream.packets_received == 31 and env.decoder._last == 32
    env.protocol.datagram_received(packets[32], None)  # C takes over again from there
    assert native.counts()[5] == 0
    env.dtls._rx_srtp = object()  # DTLS again: a new session
    env.protocol.datagram_received(packets[33], None)
    assert env.handed[-1] == packets[33]
    env.batch.flush()
    env.rtp_in.push()
    assert [ts // 960 for _, ts, _ in env.decoder.got] == [*range(1, 31), 32, 33]
    assert stream.packets_received == 32 and stream.max_seq == 33
    assert env.rtp_in.taken == 31  # 1-30 and 33: 31 was dropped (disabled), 32 aiortc's


def test_a_receiver_is_not_made_where_it_is_not_built_checked_or_allowed(monkeypatch):
    key = os.urandom(30)
    (out,) = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, 1, key=key)
    for setting in ("not built", "turned off", "receiver turned off", "srtp not as expected"):
        monkeypatch.setattr(fastrtp, "_checked", None)
        monkeypatch.setattr(fastrtp, "_rx_checked", None)
        with monkeypatch.context() as m:
            if setting == "not built":
                m.setattr(fastrtp, "_fastrtp", None)
            elif setting == "turned off":
                m.setenv("SUSSURRO_NATIVE_RTP", "0")
            elif setting == "receiver turned off":  # the sender stays compiled
                m.setenv("SUSSURRO_NATIVE_MIC", "0")
                assert fastrtp._fastrtp is None or fastrtp.available()
            else:
                m.setattr(srtp, "_lib", None)
            env = Env(key)
            env.batch.holding = True
            for i in range(1, 6):
                env.protocol.datagram_received(out.protect(_rtp(i, 960 * i, b"x")), None)
            assert env.rtp_in.native is None, setting
            env.batch.flush()
            assert [ts for _, ts, _ in env.decoder.got] == [960 * i for i in range(1, 6)]
        # the sessions' replay windows: a fresh outbound session per setting
        (out,) = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, 1, key=key)


def test_receiver_check_passes_here_and_refuses_an_unexpected_statistics_object(monkeypatch):
    _built()
    assert fastrtp.receiver_check()
    monkeypatch.setattr(fastrtp, "STATS_FIELDS", (*fastrtp.STATS_FIELDS, "_not_in_aiortc"))
    assert not fastrtp.receiver_check()


def test_held_packets_of_a_closed_peer_are_dropped_at_the_flush(monkeypatch):
    out, env = _holding_env(monkeypatch)
    for i in range(1, 10):
        env.protocol.datagram_received(out.protect(_rtp(i, 960 * i, b"y")), None)
    assert env.rtp_in.native.counts()[4] == 8  # the first was the Python path's
    env.peer.closed = True
    env.batch.flush()
    assert env.decoder.got == [] and env.batch._native == []
    assert env.rtp_in.native.counts()[4] == 0
    with pytest.raises(TypeError):
        env.rtp_in.native.take("not bytes")
