"""Outbound RTP in C (server/_fastrtp.c), where it was built and behaves as expected.

`DirectRtp` (server/rtc.py) sends each listener's packet in Python: RTP
header, SRTP (`server.srtp`), `sendto`. `sender(...)` gives it instead a
compiled `Sender` that does the same in one call, on its own duplicate of
the peer's UDP socket, with libsrtp's `srtp_protect` on the same session
(both passed as addresses from pylibsrtp's cffi binding).

The extension is optional (setup.py): no compiler, no `server._fastrtp`.
`available()` also checks it once per process, against pylibsrtp on twin
sessions over a loopback socket (the bytes on the wire and the counters),
and `SUSSURRO_NATIVE_RTP=0` turns it off; either way the Python path sends.
"""

from __future__ import annotations

import logging
import os
import socket

import pylibsrtp

from server import srtp

log = logging.getLogger(__name__)

try:
    from server import _fastrtp
except ImportError:  # not built here (no compiler at install time)
    _fastrtp = None

_checked: bool | None = None


def _addresses(session: pylibsrtp.Session) -> tuple[int, int]:
    """(srtp_protect, the session's srtp_t) as integers, from pylibsrtp's binding."""
    ffi, lib = srtp._ffi, srtp._lib
    protect = int(ffi.cast("uintptr_t", ffi.addressof(lib, "srtp_protect")))
    ctx = int(ffi.cast("uintptr_t", session._srtp[0]))
    return protect, ctx


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
            log.info("server._fastrtp is not built: RTP is sent by the Python path")
        else:
            try:
                _checked = self_check()
            except Exception:
                log.exception("server._fastrtp's check failed")
                _checked = False
            if not _checked:
                log.warning("server._fastrtp is not as expected: RTP is sent by the Python path")
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
