"""SRTP for the per-packet hot paths: libsrtp's C functions called directly.

pylibsrtp's `Session.protect`/`unprotect` go through a Python helper per
packet (a type check, an `int *` allocated, the data copied in and out of a
shared buffer): in the server's profile that wrapper cost about what
`srtp_protect` itself costs. `FastSrtp` keeps its own buffer and length cell
and calls the same C function on the same libsrtp session, so the bytes on
the wire are the same.

It relies on pylibsrtp's private parts (`Session._srtp`, the cffi `lib` and
`ffi` of `pylibsrtp._binding`). `fast_srtp(session)` checks once per process,
by protecting and unprotecting a packet both ways and comparing the bytes,
that they behave as this module expects; if not it returns None and the
caller keeps pylibsrtp's own methods.
"""

from __future__ import annotations

import logging
import os

import pylibsrtp

log = logging.getLogger(__name__)

BUFFER = 1500  # as pylibsrtp: one datagram
TRAILER = 16 + 128  # SRTP_MAX_TAG_LEN + SRTP_MAX_MKI_LEN, room left for protect's tag

try:  # pylibsrtp's cffi binding; anything unexpected means: keep its wrapper
    from pylibsrtp._binding import ffi as _ffi
    from pylibsrtp._binding import lib as _lib

    _ERRORS = list(pylibsrtp.ERRORS)
except Exception:  # pragma: no cover - depends on the installed pylibsrtp
    _ffi = _lib = None
    _ERRORS = []


class FastSrtp:
    """Protects or unprotects RTP packets of one pylibsrtp `Session` without its wrapper.

    One instance per direction and peer: its buffer is its own, so aiortc's
    calls on the same session (RTCP, the fallback paths) never share it.
    """

    __slots__ = ("_session", "_ctx", "_cdata", "_buf", "_len", "_protect", "_unprotect")

    def __init__(self, session: pylibsrtp.Session) -> None:
        self._session = session  # keeps the C session (freed with it) alive
        self._ctx = session._srtp[0]
        self._cdata = _ffi.new("char[]", BUFFER)
        self._buf = _ffi.buffer(self._cdata)
        self._len = _ffi.new("int *")
        self._protect = _lib.srtp_protect
        self._unprotect = _lib.srtp_unprotect

    def protect(self, header: bytes | bytearray, payload: bytes) -> bytes:
        """SRTP of the RTP packet `header + payload` (no concatenation in Python)."""
        h = len(header)
        n = h + len(payload)
        if n > BUFFER - TRAILER:
            raise ValueError("packet is too long")
        buf = self._buf
        buf[0:h] = header
        buf[h:n] = payload
        self._len[0] = n
        rc = self._protect(self._ctx, self._cdata, self._len)
        if rc:
            raise pylibsrtp.Error(_ERRORS[rc] if rc < len(_ERRORS) else str(rc))
        return buf[0:self._len[0]]

    def unprotect(self, data: bytes) -> bytes:
        """The RTP packet inside the SRTP packet `data`; pylibsrtp.Error if it does not
        authenticate (or replays an index already seen)."""
        n = len(data)
        if n > BUFFER:
            raise ValueError("packet is too long")
        buf = self._buf
        buf[0:n] = data
        self._len[0] = n
        rc = self._unprotect(self._ctx, self._cdata, self._len)
        if rc:
            raise pylibsrtp.Error(_ERRORS[rc] if rc < len(_ERRORS) else str(rc))
        return buf[0:self._len[0]]


_checked: bool | None = None


def _session(key: bytes, ssrc_type: int) -> pylibsrtp.Session:
    # as aiortc's RTCDtlsTransport sets its sessions up
    policy = pylibsrtp.Policy(key=key, ssrc_type=ssrc_type)
    policy.allow_repeat_tx = True
    policy.window_size = 1024
    return pylibsrtp.Session(policy)


def self_check() -> bool:
    """True if FastSrtp gives pylibsrtp's own bytes here: a packet protected both ways
    on twin sessions, and unprotected (and a forged one refused) on the other side."""
    if _ffi is None or _lib is None:
        return False
    key = os.urandom(30)
    out, twin = (_session(key, pylibsrtp.Policy.SSRC_ANY_OUTBOUND) for _ in range(2))
    inbound = _session(key, pylibsrtp.Policy.SSRC_ANY_INBOUND)
    header = bytes([0x90, 0x6F, 0x12, 0x34, 0, 0, 0x03, 0xC0, 0xDE, 0xAD, 0xBE, 0xEF,
                    0xBE, 0xDE, 0x00, 0x01, 0x10, 0x30, 0x00, 0x00])
    payload = os.urandom(77)
    fast_out, fast_in = FastSrtp(twin), FastSrtp(inbound)
    wire = out.protect(header + payload)
    if fast_out.protect(header, payload) != wire:
        return False
    if fast_in.unprotect(wire) != header + payload:
        return False
    forged = wire[:-1] + bytes([wire[-1] ^ 1])
    try:
        fast_in.unprotect(forged)
    except pylibsrtp.Error:
        return True
    return False


def fast_srtp(session: pylibsrtp.Session | None) -> FastSrtp | None:
    """A FastSrtp on `session`, or None (keep pylibsrtp's methods) if the check at the
    first call failed or the session is not what it expects."""
    global _checked
    if _checked is None:
        try:
            _checked = self_check()
        except Exception:  # an API change shows up as any error here
            _checked = False
        if not _checked:
            log.warning("direct libsrtp calls disabled: pylibsrtp is not as expected")
    if not _checked or not isinstance(session, pylibsrtp.Session):
        return None
    try:
        return FastSrtp(session)
    except Exception:
        return None
