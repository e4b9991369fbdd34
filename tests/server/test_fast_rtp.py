"""Issue 15 (server CPU): the hot-path pieces that bypass pylibsrtp's wrapper and aiortc's
RTP parser, and the compiled sender (server/media/fastrtp.py), give the same bytes as the
libraries do, and step aside when the libraries are not as they expect. Real libsrtp
sessions, real aiortc packets, loopback sockets only (the end-to-end checks of both
paths are in tests/e2e/test_rtc_transport.py)."""

from __future__ import annotations

import os
import random
import shutil
import socket
import struct
import time

import pylibsrtp
import pytest
from aiortc.rtcrtpparameters import RTCRtpHeaderExtensionParameters, RTCRtpParameters
from aiortc.rtp import HeaderExtensionsMap, RtpPacket

from server.media import fastrtp, srtp
from server.media.rtp_in import payload_span


def _sessions(kind: int, count: int = 2, key: bytes | None = None) -> list[pylibsrtp.Session]:
    key = key or os.urandom(30)
    out = []
    for _ in range(count):
        policy = pylibsrtp.Policy(key=key, ssrc_type=kind)
        policy.allow_repeat_tx = True
        policy.window_size = 1024
        out.append(pylibsrtp.Session(policy))
    return out


def _packets(n: int, rng: random.Random) -> list[tuple[bytes, bytes]]:
    """(header, payload) of `n` RTP packets of one stream, headers as DirectRtp builds them."""
    ext = HeaderExtensionsMap()
    ext.configure(RTCRtpParameters(headerExtensions=[
        RTCRtpHeaderExtensionParameters(id=1, uri="urn:ietf:params:rtp-hdrext:sdes:mid")]))
    out = []
    for i in range(n):
        p = RtpPacket(payload_type=111, marker=1, sequence_number=1000 + i,
                      timestamp=960 * i, ssrc=0x1234ABCD)
        p.extensions.mid = "0"
        header = p.serialize(ext)
        out.append((header, rng.randbytes(rng.randint(1, 400))))
    return out


def test_fast_srtp_protects_and_unprotects_as_pylibsrtp_does():
    assert srtp.self_check()
    key = os.urandom(30)
    wrapped, direct = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, key=key)
    (inbound,) = _sessions(pylibsrtp.Policy.SSRC_ANY_INBOUND, 1, key=key)
    fast_out, fast_in = srtp.fast_srtp(direct), srtp.fast_srtp(inbound)
    assert isinstance(fast_out, srtp.FastSrtp) and isinstance(fast_in, srtp.FastSrtp)
    for header, payload in _packets(200, random.Random(15)):
        wire = wrapped.protect(header + payload)
        assert fast_out.protect(header, payload) == wire
        assert fast_in.unprotect(wire) == header + payload
    # a replayed packet and a forged one are refused, as pylibsrtp refuses them
    with pytest.raises(pylibsrtp.Error):
        fast_in.unprotect(wire)
    header, payload = _packets(1, random.Random(1))[0]
    forged = bytearray(wrapped.protect(header[:2] + b"\x99\x99" + header[4:] + payload))
    forged[-1] ^= 0x55
    with pytest.raises(pylibsrtp.Error):
        fast_in.unprotect(bytes(forged))
    with pytest.raises(ValueError):
        fast_out.protect(header, bytes(1500))


def test_fast_srtp_steps_aside_when_pylibsrtp_is_not_as_expected(monkeypatch):
    (session,) = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, 1)
    monkeypatch.setattr(srtp, "_checked", None)
    monkeypatch.setattr(srtp, "_lib", None)  # e.g. a pylibsrtp without its cffi binding
    assert srtp.fast_srtp(session) is None
    assert srtp._checked is False
    monkeypatch.setattr(srtp, "_checked", True)
    assert srtp.fast_srtp(object()) is None  # not a pylibsrtp session


def _aiortc_span(data: bytes) -> tuple[int, int] | None:
    try:
        p = RtpPacket.parse(data)
    except ValueError:
        return None
    return p.payload


def test_payload_span_finds_the_payload_where_aiortc_parses_it():
    """CSRCs, header extensions, padding, and broken packets (aiortc refuses them: so
    does payload_span). The extension's elements are not read: a packet whose elements
    are malformed (aiortc drops it) is played; only its own sender can make one."""
    rng = random.Random(7)
    cases = []
    for _ in range(300):
        cc = rng.choice([0, 0, 1, 3])
        # one-byte header extensions (RFC 8285): an element (id 1, two bytes), zero padding
        ext = rng.choice([None, b"", b"\x11" + rng.randbytes(2) + bytes(4 * rng.randint(0, 3) + 1)])
        pad = rng.choice([0, 0, 1, 4, 9])
        payload = rng.randbytes(rng.randint(0, 60))
        b0 = 0x80 | (0x20 if pad else 0) | (0x10 if ext is not None else 0) | cc
        data = bytes([b0, 111]) + rng.randbytes(10) + rng.randbytes(4 * cc)
        if ext is not None:
            data += b"\xbe\xde" + (len(ext) // 4).to_bytes(2, "big") + ext
        data += payload
        if pad:
            data += bytes(pad - 1) + bytes([pad])
        cases.append(data)
        cut = data[: rng.randint(0, len(data))]  # truncated anywhere
        cases.append(cut)
        if pad:  # a padding length larger than what follows the header
            cases.append(data[:-1] + bytes([255]))
    cases.append(bytes([0x40, 111]) + bytes(20))  # RTP version 1
    refused = 0
    for data in cases:
        span = payload_span(data)
        expected = _aiortc_span(data)
        if expected is None:
            refused += 1
            assert span is None, data.hex()
        else:
            assert span is not None and data[span[0]:span[1]] == expected, data.hex()
    assert 50 < refused < len(cases) - 200  # both kinds were really tried


# -- server.media._fastrtp: the compiled sender (setup.py builds it where a C compiler is) --------

def _built() -> None:
    """The compiled sender must be there wherever it can be built: a broken build would
    otherwise pass unnoticed, the Python path sending in its place."""
    if fastrtp._fastrtp is None:
        if shutil.which(os.environ.get("CC", "cc")) is None:
            pytest.skip("no C compiler here: server.media._fastrtp is not built, the Python path sends")
        pytest.fail("server.media._fastrtp is not built although a C compiler is here: "
                    "run scripts/setup.sh again and read pip's output")


def _udp_pair() -> tuple[socket.socket, socket.socket]:
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", 0))
    rx.settimeout(2.0)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    return rx, tx


def test_native_sender_sends_what_the_python_path_sends():
    """Header (sequence number, RTP time from the tick), SRTP and the datagram: byte for
    byte what DirectRtp's Python path sends on a twin session, across the sequence number's
    wrap and skipped ticks; the counters aiortc's RTCP reports read add up."""
    _built()
    assert fastrtp.self_check() and fastrtp.available()
    key = os.urandom(30)
    ours, twin = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, key=key)
    reference = srtp.fast_srtp(twin)
    rx, tx = _udp_pair()
    rng = random.Random(15)
    packets = _packets(300, rng)
    header = bytearray(packets[0][0])
    origin, tick0, seq0 = 0xFFFF0000, 5000, 65500  # the RTP time and the number both wrap
    sender = fastrtp.sender(tx.fileno(), rx.getsockname(), ours, bytes(header), seq0, origin,
                            tick0)
    try:
        tick, octets, wire = tick0, 0, 0
        for i, (_, payload) in enumerate(packets):
            tick += rng.choice((1, 1, 1, 2, 7))  # DTX pauses leave gaps in RTP time
            assert sender.send(payload, tick) == i + 1
            struct.pack_into("!HL", header, 2, (seq0 + i) & 0xFFFF,
                             (origin + (tick - tick0) * 960) & 0xFFFFFFFF)
            expected = reference.protect(header, payload)
            assert rx.recv(2048) == expected, i
            octets, wire = octets + len(payload), wire + len(expected)
        sent, got_octets, got_wire, dropped, errors, last_ts, ntp, seq = sender.sync()
        assert (sent, got_octets, got_wire, dropped, errors) == (300, octets, wire, 0, 0)
        assert last_ts == (origin + (tick - tick0) * 960) & 0xFFFFFFFF
        assert seq == (seq0 + 300) & 0xFFFF
        assert abs((ntp >> 32) - 2_208_988_800 - time.time()) < 5  # NTP time of the last send
        assert sender.sync()[:5] == (0, 0, 0, 0, 0)  # counts start again
        assert sender.send(packets[0][1], tick + 1) == 1
        rx.recv(2048)
        # a payload type of its own (RED for a lossy listener): only that byte differs
        assert sender.send(packets[1][1], tick + 2, 63) == 2
        header[1] = (header[1] & 0x80) | 63
        struct.pack_into("!HL", header, 2, (seq0 + 301) & 0xFFFF,
                         (origin + (tick + 2 - tick0) * 960) & 0xFFFFFFFF)
        assert rx.recv(2048) == reference.protect(header, packets[1][1])
    finally:
        sender.close()
        rx.close()
        tx.close()


def test_native_sender_refuses_bad_input_and_sends_nothing():
    _built()
    (session,) = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, 1)
    protect, ctx = fastrtp._addresses(session)
    rx, tx = _udp_pair()
    rx.settimeout(0.2)
    host, port = rx.getsockname()
    good = dict(fd=tx.fileno(), host=host, port=port, protect=protect, ctx=ctx,
                header=bytes(12), seq=1, origin=0, tick0=0, keep=session)
    try:
        for bad in (dict(header=bytes(11)), dict(header=bytes(65)), dict(host="example.org"),
                    dict(host="fe80::1%eth9"), dict(port=0), dict(port=70000), dict(seq=-1),
                    dict(seq=65536), dict(ctx=0), dict(protect=0)):
            with pytest.raises(ValueError):
                fastrtp._fastrtp.Sender(**{**good, **bad})
        with pytest.raises(OSError):
            fastrtp._fastrtp.Sender(**{**good, "fd": 10_000})  # not an open descriptor
        # the factory answers None (the Python path sends) where the Sender refuses
        assert fastrtp.sender(tx.fileno(), ("fe80::1%eth9", port), session, bytes(12), 1, 0,
                              0) is None
        sender = fastrtp._fastrtp.Sender(**good)
        with pytest.raises(ValueError):
            sender.send(bytes(1500), 1)  # no room for the packet and its SRTP tag
        for args in ((bytearray(10), 1), ("text", 1), (b"x",), (b"x", "1"), (b"x", 1, "63"),
                     (b"x", 1, 63, 0)):
            with pytest.raises(TypeError):
                sender.send(*args)
        for pt in (-1, 128):
            with pytest.raises(ValueError):
                sender.send(b"x", 1, pt)
        sender.close()
        with pytest.raises(ValueError):
            sender.send(b"x", 1)
        with pytest.raises(TimeoutError):
            rx.recv(2048)  # none of these sent anything
        assert sender.sync()[:5] == (0, 0, 0, 0, 0)
    finally:
        rx.close()
        tx.close()


def test_native_sender_keeps_sending_after_the_event_loops_socket_is_closed():
    """The Sender sends on its own duplicate of the socket: if aiortc closes the peer's
    socket first, the descriptor number may be reused by another socket, but the Sender's
    packets still leave from the peer's port, never from the newcomer's."""
    _built()
    (session,) = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, 1)
    rx, tx = _udp_pair()
    tx.bind(("127.0.0.1", 0))
    src = tx.getsockname()
    sender = fastrtp.sender(tx.fileno(), rx.getsockname(), session, bytes(12), 1, 0, 0)
    tx.close()
    newcomer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        newcomer.bind(("127.0.0.1", 0))
        sender.send(b"after", 1)
        _, addr = rx.recvfrom(2048)
        assert addr == src != newcomer.getsockname()
    finally:
        sender.close()
        newcomer.close()
        rx.close()


def test_native_sender_steps_aside_when_not_built_or_turned_off(monkeypatch):
    (session,) = _sessions(pylibsrtp.Policy.SSRC_ANY_OUTBOUND, 1)
    args = (0, ("127.0.0.1", 9), session, bytes(12), 1, 0, 0)
    monkeypatch.setattr(fastrtp, "_checked", None)
    monkeypatch.setattr(fastrtp, "_fastrtp", None)  # built without a compiler
    assert not fastrtp.available() and fastrtp.sender(*args) is None
    _built_module = pytest.importorskip("server.media._fastrtp")
    monkeypatch.setattr(fastrtp, "_fastrtp", _built_module)
    monkeypatch.setattr(fastrtp, "_checked", None)
    monkeypatch.setenv("SUSSURRO_NATIVE_RTP", "0")  # the operator's switch
    assert not fastrtp.available() and fastrtp.sender(*args) is None
    monkeypatch.delenv("SUSSURRO_NATIVE_RTP")
    monkeypatch.setattr(fastrtp, "_checked", None)
    monkeypatch.setattr(srtp, "_lib", None)  # pylibsrtp's binding is not as expected
    assert not fastrtp.available()
