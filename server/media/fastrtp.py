"""RTP in C (server/media/_fastrtp.c), where it was built and behaves as expected.

`DirectRtp` (server/media/rtc.py) sends each listener's packet in Python: RTP
header, SRTP (`server.media.srtp`), `sendto`. `sender(...)` gives it instead a
compiled `Sender` that does the same in one call, on its own duplicate of
the peer's UDP socket, with libsrtp's `srtp_protect` on the same session
(both passed as addresses from pylibsrtp's cffi binding).

The extension is optional (setup.py): no compiler, no `server.media._fastrtp`.
`available()` also checks it once per process, against pylibsrtp on twin
sessions over a loopback socket (the bytes on the wire and the counters),
and `SUSSURRO_NATIVE_RTP=0` turns it off; either way the Python path sends.

The mic packets the same way: `receiver(...)` gives `server.media.rtp_in.RtpIn` a
compiled `Receiver` for one stream (libsrtp's `srtp_unprotect` on the peer's
inbound session), which takes its packets in the socket's callback and holds
them for the voice tick (server/media/rtp_in.py says how). `receiver_available()`
checks it once per process (twin sessions, the packets a Python path would
take, refuse or hand on, and aiortc's `StreamStatistics` fields it writes);
the same switch turns it off, and `SUSSURRO_NATIVE_MIC=0` turns off the
receiver alone (the sender stays compiled).
"""

from __future__ import annotations

import collections
import logging
import os
import socket
import types

import pylibsrtp

from server.media import srtp

log = logging.getLogger(__name__)

try:
    from server.media import _fastrtp
except ImportError:  # not built here (no compiler at install time)
    _fastrtp = None

_checked: bool | None = None


def _addresses(session: pylibsrtp.Session, function: str = "srtp_protect") -> tuple[int, int]:
    """(libsrtp's `function`, the session's srtp_t) as integers, from pylibsrtp's binding."""
    ffi, lib = srtp._ffi, srtp._lib
    address = int(ffi.cast("uintptr_t", ffi.addressof(lib, function)))
    ctx = int(ffi.cast("uintptr_t", session._srtp[0]))
    return address, ctx


def self_check() -> bool:
    """True if a Sender puts pylibsrtp's own bytes on the wire, with the header's sequence
    number and RTP time as the Python path sets them, and counts what it sent."""
    if _fastrtp is None or srtp._ffi is None or srtp._lib is None:
        return False
    key = os.urandom(30)
    ours, theirs = (srtp._session(key, pylibsrtp.Policy.SSRC_ANY_OUTBOUND) for _ in range(2))
    header = bytearray([0x90, 0x6F, 0, 0, 0, 0, 0, 0, 0xC0, 0xDE, 0xAD, 0xBE,
                        0xBE, 0xDE, 0x00, 0x01, 0x10, 0x30, 0x00, 0x00])
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        rx.bind(("127.0.0.1", 0))
        rx.settimeout(1.0)
        host, port = rx.getsockname()
        sender = _fastrtp.Sender(tx.fileno(), host, port, *_addresses(ours), bytes(header),
                                 65534, 0xFFFFF000, 100, ours)
        for i, tick in enumerate((100, 101, 103)):  # a skipped tick leaves a gap in RTP time
            payload = os.urandom(40 + 30 * i)
            if sender.send(payload, tick) != i + 1:
                return False
            seq, ts = (65534 + i) & 0xFFFF, (0xFFFFF000 + (tick - 100) * 960) & 0xFFFFFFFF
            header[2:8] = seq.to_bytes(2, "big") + ts.to_bytes(4, "big")
            if rx.recv(2048) != theirs.protect(bytes(header) + payload):
                return False
        sent, octets, wire, dropped, errors, last_ts, ntp, seq = sender.sync()
        sender.close()
        return (sent, octets, dropped, errors, last_ts, seq) == (
            3, 40 + 70 + 100, 0, 0, ts, 1) and wire > octets and ntp > 0
    finally:
        rx.close()
        tx.close()


def available() -> bool:
    """True if Senders may be made here (built, allowed, and checked once per process)."""
    global _checked
    if _checked is None:
        if os.environ.get("SUSSURRO_NATIVE_RTP", "1") == "0":
            _checked = False
        elif _fastrtp is None:
            _checked = False
            log.info("server.media._fastrtp is not built: RTP is sent by the Python path")
        else:
            try:
                _checked = self_check()
            except Exception:
                log.exception("server.media._fastrtp's check failed")
                _checked = False
            if not _checked:
                log.warning("server.media._fastrtp is not as expected: RTP is sent by the Python path")
    return _checked


def sender(fd: int, addr: tuple, session: pylibsrtp.Session, header: bytes, seq: int,
           origin: int, tick0: int):
    """A compiled Sender to `addr` (host, port) on a duplicate of `fd`, or None."""
    if not available():
        return None
    try:
        return _fastrtp.Sender(fd, addr[0], addr[1], *_addresses(session), header, seq,
                               origin, tick0, session)
    except (ValueError, OSError, TypeError):  # e.g. a scoped IPv6 address
        return None


# -- the mic packets: server.media._fastrtp.Receiver -------------------------------------------

_rx_checked: bool | None = None
# what a Receiver's state is written to (aiortc.rtcrtpreceiver.StreamStatistics)
STATS_FIELDS = ("base_seq", "max_seq", "cycles", "packets_received", "_jitter_q4",
                "_last_arrival", "_last_timestamp")


def receiver_check() -> bool:
    """True if a Receiver takes, refuses and hands on packets as RtpIn does, on a twin of
    aiortc's inbound session: pylibsrtp's bytes unprotected, the payload after an
    extension and before the padding, a forged packet dropped, RTCP and
    another payload type handed on, a late packet counted and held with its number (the
    decoder puts packets back in order), and aiortc's StreamStatistics has the fields that
    its state is written to."""
    from aiortc.rtcdtlstransport import State as DtlsState
    from aiortc.rtcrtpreceiver import StreamStatistics

    if _fastrtp is None or srtp._ffi is None or srtp._lib is None:
        return False
    if not set(STATS_FIELDS) <= set(vars(StreamStatistics(48000))):
        return False
    key = os.urandom(30)
    out = srtp._session(key, pylibsrtp.Policy.SSRC_ANY_OUTBOUND)
    inbound = srtp._session(key, pylibsrtp.Policy.SSRC_ANY_INBOUND)
    env = types.SimpleNamespace(_state=DtlsState.CONNECTED, _rx_srtp=inbound, _enabled=True,
                                holding=True)
    decoded, pushed = [], []
    rx = _fastrtp.Receiver(*_addresses(inbound, "srtp_unprotect"), inbound, 0xC0DEDBAD, 48000,
                           bytes([111]), env, DtlsState.CONNECTED, env, collections.deque(),
                           {0xC0DEDBAD: env}, {}, env, lambda: 0,
                           lambda ts, p, seq: decoded.append(p), lambda: pushed.append(1),
                           lambda: None, lambda: None)
    ext = bytes([0xBE, 0xDE, 0, 1, 0x10, 0x30, 0, 0])

    def packet(seq: int, ts: int, payload: bytes, pt: int = 111, b0: int = 0x90,
               tail: bytes = b"") -> bytes:
        header = bytes([b0, pt]) + seq.to_bytes(2, "big") + ts.to_bytes(4, "big")
        return out.protect(header + (0xC0DEDBAD).to_bytes(4, "big") + ext + payload + tail)

    payloads = [os.urandom(40 + i) for i in range(3)]
    wire = [packet(65535, 960, payloads[0]), packet(0, 1920, payloads[1]),
            packet(1, 2880, payloads[2], b0=0xB0, tail=bytes([0, 0, 3]))]
    late = packet(65534, 0, b"late")
    forged = wire[0][:-1] + bytes([wire[0][-1] ^ 1])
    other = packet(2, 3840, b"other", pt=0)
    rtcp = bytes([0x80, 200]) + bytes(26)
    taken = [rx.take(d) for d in (wire[0], wire[1], late, forged, wire[2], other, rtcp)]
    held = rx.drain()
    base, top, cycles, received, _, arrival, last_ts, last_seq, rx_bytes, rx_packets = rx.state()
    return (taken == [True, True, True, True, True, False, False]
            and [(ts, p, seq) for ts, p, _, seq in held] == [
                (960, payloads[0], 65535), (1920, payloads[1], 0), (0, b"late", 65534),
                (2880, payloads[2], 1)]
            and (base, top, cycles, received, last_ts, last_seq) == (65535, 1, 65536, 4, 2880, 1)
            and rx_packets == 5 and rx_bytes > 150 and rx.counts()[:3] == (4, 1, 1)
            and not decoded and len(pushed) == 1  # the state, before `other` went on
            and rx.drain() == [])


def receiver_available() -> bool:
    """True if Receivers may be made here (built, allowed, checked once per process)."""
    global _rx_checked
    if _rx_checked is None:
        if not available() or os.environ.get("SUSSURRO_NATIVE_MIC", "1") == "0":
            _rx_checked = False
        else:
            try:
                _rx_checked = receiver_check()
            except Exception:
                log.exception("server.media._fastrtp's Receiver check failed")
                _rx_checked = False
            if not _rx_checked:
                log.warning("server.media._fastrtp's Receiver is not as expected: mic packets "
                            "take the Python path")
    return _rx_checked


def receiver(session: pylibsrtp.Session, ssrc: int, clockrate: int, opus: bytes, **parts):
    """A compiled Receiver of the stream `ssrc` on the inbound `session`, or None.
    `parts`: what server/media/rtp_in.py hands it (see `_fastrtp.Receiver`)."""
    if not receiver_available():
        return None
    try:
        return _fastrtp.Receiver(*_addresses(session, "srtp_unprotect"), session, ssrc, clockrate,
                                 opus, **parts)
    except (ValueError, TypeError):
        return None


def port(rx, original):
    """The callable a protocol's `datagram_received` becomes: `rx` first, then `original`."""
    return _fastrtp.Port(rx, original)
