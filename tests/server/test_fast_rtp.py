"""Issue 15 (server CPU): the hot-path pieces that bypass pylibsrtp's wrapper and aiortc's
RTP parser give the same bytes as the libraries do, and step aside when the libraries are
not as they expect. Real libsrtp sessions, real aiortc packets; no network here (the
end-to-end checks of both paths are in tests/e2e/test_rtc_transport.py)."""

from __future__ import annotations

import os
import random

import pylibsrtp
import pytest
from aiortc.rtcrtpparameters import RTCRtpHeaderExtensionParameters, RTCRtpParameters
from aiortc.rtp import HeaderExtensionsMap, RtpPacket

from server import srtp
from server.rtp_in import payload_span


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
