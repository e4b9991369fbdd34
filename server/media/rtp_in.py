"""Mic packets from the socket straight to the peer's jitter buffer, without aiortc's
receive task.

aiortc's path for one inbound RTP packet: aioice's `datagram_received` tries
to parse it as STUN, queues it to the connection; the DTLS transport's task
wakes up, takes it off the queue, demultiplexes, SRTP-unprotects, parses the
whole RTP packet into an `RtpPacket`, routes it and awaits the receiver's
handler, which updates its statistics and hands it to the jitter buffer. For
a room of talking players that was the largest share of the server's work
after the sends and the encodes.

`RtpIn` does the same work synchronously, in the socket's callback, for the
packets it recognises: SRTP (not SRTCP) of a peer whose DTLS is up, from an
SSRC aiortc already routed to this receiver, with an Opus payload type. It
unprotects (`server.media.srtp`), reads the few header fields the jitter buffer
needs, keeps the receiver's RTCP statistics (so its receiver reports stay
right) and its counters, and calls `jitter_buffer.add(packet)`.
The header extension's elements are not read (the mixer needs none of them;
aiortc would drop a packet whose elements are malformed, which only the
peer's own sender, authenticated by SRTP, could make).
Everything else goes the usual way: STUN (ICE checks and consent), DTLS,
RTCP, the first packets of a stream (aiortc learns their SSRC), any packet
while the queue still holds older datagrams (so the order is kept), and
every datagram of a peer where aiortc's internals are not as expected.

Once it has taken a stream's first packet (DTLS up, the SSRC routed), `RtpIn`
hands the stream to a compiled `Receiver` (server/media/fastrtp.py) where one is
built and checked: the protocols' `datagram_received` becomes a C callable
that does all of the above in C with the same order rules, and holds each
packet (RTP time, payload, arrival time) for the voice tick, whose
`MicBatch.flush` drains it in one call per receiver. The receiver's RTCP
statistics and the jitter buffer's last sequence number are kept in C and
written to aiortc's `StreamStatistics` (and the decoder) every
25 packets (RX_SYNC_EVERY in server/media/_fastrtp.c) and before any packet of the stream takes the Python
path (aiortc's, e.g. while the queue holds older datagrams); they are read
back before C takes one again. A new SRTP session (DTLS again) is not
followed: its packets go aiortc's way.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import struct
import time

import aioice.ice
import pylibsrtp
from aiortc import clock
from aiortc.rtcdtlstransport import State as DtlsState
from aiortc.rtcrtpreceiver import StreamStatistics

from server.media import fastrtp
from server.media.srtp import FastSrtp, fast_srtp

log = logging.getLogger(__name__)

ACTIVE_EVERY = 50  # packets between two refreshes of the receiver's "source last seen" time

_RECEIVER_PRIVATES = ("_enabled", "_RTCRtpReceiver__codecs",
                      "_RTCRtpReceiver__remote_streams", "_RTCRtpReceiver__active_ssrc",
                      "_RTCRtpReceiver__nack_generator",
                      "_RTCRtpReceiver__remote_bitrate_estimator",
                      "_RTCRtpReceiver__jitter_buffer")
_DTLS_PRIVATES = ("_state", "_rx_srtp", "_rtp_router", "_RTCDtlsTransport__rx_bytes",
                  "_RTCDtlsTransport__rx_packets")
_HEADER = struct.Struct("!HLL")  # sequence number, timestamp, SSRC (bytes 2..11)


class MicPacket:
    """What a jitter buffer reads of an RTP packet (aiortc's `RtpPacket` names)."""

    __slots__ = ("sequence_number", "timestamp", "ssrc", "payload_type", "_data")

    def __init__(self, sequence_number: int, timestamp: int, ssrc: int, payload_type: int,
                 data: bytes) -> None:
        self.sequence_number = sequence_number
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.payload_type = payload_type
        self._data = data  # the Opus payload: aiortc's depayload() of Opus is the payload


class RtpIn:
    """The synchronous receive path of one peer's audio receiver (see the module)."""

    __slots__ = ("_receiver", "_dtls", "_queue", "_buffer", "_codecs", "_streams", "_active",
                 "_ssrcs", "_opus", "_srtp", "_srtp_of", "_count", "_taken", "_refused",
                 "_cpu_ns", "_ports", "native", "_native_ssrc", "_native_rate", "_native_late")

    def __init__(self, receiver, dtls, queue: asyncio.Queue) -> None:
        self._receiver = receiver
        self._dtls = dtls
        self._queue = queue
        self._buffer = receiver._RTCRtpReceiver__jitter_buffer
        self._codecs = receiver._RTCRtpReceiver__codecs
        self._streams = receiver._RTCRtpReceiver__remote_streams
        self._active = receiver._RTCRtpReceiver__active_ssrc
        self._ssrcs = dtls._rtp_router.ssrc_table
        self._opus: dict[int, int] = {}  # payload type -> Opus clock rate (0: another codec)
        self._srtp: FastSrtp | None = None
        self._srtp_of = None  # the session _srtp was made for
        self._count = 0
        self._taken = 0
        self._refused = 0
        self._cpu_ns = 0
        self._ports: list[tuple[object, object]] = []  # (protocol, its own datagram_received)
        self.native = None  # a server.media._fastrtp.Receiver once go_native() made one
        self._native_ssrc: int | None = None  # the stream it was tried for
        self._native_rate = 0
        self._native_late = 0

    def _counts(self) -> tuple[int, int, int, int]:
        native = self.native
        return native.counts()[:4] if native is not None else (0, 0, 0, 0)

    @property
    def taken(self) -> int:
        """Packets handled by this path (Python or compiled)."""
        return self._taken + self._counts()[0]

    @property
    def refused(self) -> int:
        """SRTP packets that did not authenticate (dropped, as aiortc does)."""
        return self._refused + self._counts()[1]

    @property
    def cpu_ns(self) -> int:
        """CPU time of the packets taken (the thread's clock, bench/ROOM.md)."""
        return self._cpu_ns + self._counts()[3]

    def hook(self, protocol) -> None:
        """Route `protocol`'s datagrams through `take` first."""
        original = protocol.datagram_received
        take = self.take
        self._ports.append((protocol, original))

        def datagram_received(data, addr) -> None:
            t0 = time.thread_time_ns()
            if take(data):
                self._cpu_ns += time.thread_time_ns() - t0
            else:
                original(data, addr)

        protocol.datagram_received = datagram_received

    def take(self, data: bytes) -> bool:
        """Handle `data` if it is an established stream's SRTP packet; False: not ours."""
        n = len(data)
        # RTP or RTCP by the first byte (RFC 7983); RTCP by its packet type (RFC 5761)
        if n < 12 or not 127 < data[0] < 192 or 191 < data[1] < 209:
            return False
        dtls = self._dtls
        session = dtls._rx_srtp
        if dtls._state is not DtlsState.CONNECTED or session is None or not self._queue.empty():
            return False
        pt = data[1] & 0x7F
        seq, ts, ssrc = _HEADER.unpack_from(data, 2)
        rate = self._opus.get(pt)
        if rate is None:
            self._learn_codecs()
            rate = self._opus.get(pt)
        if not rate:
            return False  # not Opus (or not negotiated yet): aiortc's business
        receiver = self._receiver
        if self._ssrcs.get(ssrc) is not receiver:
            return False  # aiortc routes a stream's first packet, and learns its SSRC
        if self._srtp_of is not session:
            self._srtp, self._srtp_of = fast_srtp(session), session
        # from here on the packet is this path's, as it would be aiortc's
        dtls._RTCDtlsTransport__rx_bytes += n
        dtls._RTCDtlsTransport__rx_packets += 1
        try:
            srtp = self._srtp
            plain = srtp.unprotect(data) if srtp is not None else session.unprotect(data)
        except (pylibsrtp.Error, ValueError):
            self._refused += 1
            return True
        if not receiver._enabled:
            return True
        span = payload_span(plain)
        if span is None:
            return True  # malformed: aiortc's parser refuses it and drops it too
        packet = MicPacket(seq, ts, ssrc, pt, plain[span[0]:span[1]])
        self._count += 1
        if self._count % ACTIVE_EVERY == 1 or ssrc not in self._active:
            self._active[ssrc] = clock.current_datetime()
        stats = self._streams.get(ssrc)
        if stats is None:
            stats = self._streams[ssrc] = StreamStatistics(rate)
        stats.add(packet)  # what the receiver's RTCP reports say
        self._taken += 1
        self._buffer.add(packet)
        if self._native_ssrc is None:
            self._native_ssrc, self._native_rate = ssrc, rate
            self.go_native(ssrc, rate)
        return True

    def go_native(self, ssrc: int, rate: int):
        """Hand the stream `ssrc` to a compiled Receiver (server/media/fastrtp.py) on every hooked
        protocol, if it is built and checked and the jitter buffer is a MicDecoder (with a
        MicBatch, the Receiver holds the packets for its flush); its state starts from the
        Python objects'. The Receiver, or None."""
        decoder, dtls = self._buffer, self._dtls
        batch = getattr(decoder, "_batch", None)
        deque = getattr(self._queue, "_queue", None)
        if (self.native is not None or self._srtp is None or not hasattr(decoder, "decode_payload")
                or type(deque) is not collections.deque
                or type(self._queue).empty is not asyncio.Queue.empty):
            return self.native  # no FastSrtp: pylibsrtp is not as server/media/srtp.py expects
        native = fastrtp.receiver(
            dtls._rx_srtp, ssrc, rate, bytes(pt for pt, r in self._opus.items() if r),
            dtls=dtls, connected=DtlsState.CONNECTED, receiver=self._receiver, queue=deque,
            ssrc_table=self._ssrcs, active=self._active, batch=batch,
            now=clock.current_datetime,
            decode_now=lambda ts, payload, seq: decoder.decode_payload(payload, ts, None, seq),
            push=self.push, pull=self.pull,
            flush=batch.flush if batch is not None else _nothing)
        if native is None:
            return None
        self.native = native
        self.pull()
        if batch is not None:
            batch.attach(native, decoder)
        for protocol, original in self._ports:
            protocol.datagram_received = fastrtp.port(native, original)
        return native

    def push(self) -> None:
        """The compiled Receiver's state to aiortc's objects: its StreamStatistics (what its
        receiver reports and stats read), DTLS counters, the jitter buffer's last number."""
        native = self.native
        if native is None:
            return
        *stats, last, rx_bytes, rx_packets = native.state()
        ssrc = self._native_ssrc
        stream = self._streams.get(ssrc)
        if stream is None:
            stream = self._streams[ssrc] = StreamStatistics(self._native_rate)
        for name, value in zip(fastrtp.STATS_FIELDS, stats, strict=True):
            setattr(stream, name, value)
        buffer = self._buffer
        buffer._last = last
        late = native.counts()[2]
        buffer.late += late - self._native_late
        self._native_late = late
        dtls = self._dtls
        dtls._RTCDtlsTransport__rx_bytes += rx_bytes
        dtls._RTCDtlsTransport__rx_packets += rx_packets

    def pull(self) -> None:
        """aiortc's objects' state (the Python path ran meanwhile) to the compiled Receiver."""
        native = self.native
        if native is None:
            return
        stream = self._streams.get(self._native_ssrc)
        last = self._buffer._last
        if stream is None:
            native.load(None, None, 0, 0, 0, None, None, last)
        else:
            native.load(*(getattr(stream, name) for name in fastrtp.STATS_FIELDS), last)

    def _learn_codecs(self) -> None:
        # aiortc fills the receiver's codecs when the connection starts; 0: not Opus
        for payload_type, codec in self._codecs.items():
            self._opus[payload_type] = (codec.clockRate
                                        if codec.mimeType.lower() == "audio/opus" else 0)


def _nothing() -> None:
    pass


def payload_span(plain: bytes) -> tuple[int, int] | None:
    """Where the payload of the RTP packet `plain` starts and ends (after the CSRCs and
    the header extension, before the padding); None where aiortc's `RtpPacket.parse`
    would refuse the packet."""
    end = len(plain)
    if end < 12 or plain[0] >> 6 != 2:
        return None
    b0 = plain[0]
    pos = 12 + 4 * (b0 & 0x0F)
    if end < pos:
        return None
    if b0 & 0x10:  # a header extension: skipped, the mixer needs none of it
        if end < pos + 4:
            return None
        pos += 4 + 4 * ((plain[pos + 2] << 8) | plain[pos + 3])
        if end < pos:
            return None
    if b0 & 0x20:  # padding, its length in the last byte
        pad = plain[-1]
        if not pad or pad > end - pos:
            return None
        end -= pad
    return pos, end


def receive_directly(receiver, jitter_buffer) -> RtpIn | None:
    """Send `receiver`'s Opus packets straight to `jitter_buffer` (already installed as
    its jitter buffer, and returning no frame for aiortc to decode), once negotiated.

    Call after setLocalDescription (the ICE sockets exist). None, and aiortc's path
    kept, if aiortc's or aioice's private parts are not as expected.
    """
    dtls = getattr(receiver, "transport", None)
    ice = getattr(dtls, "transport", None)
    connection = getattr(ice, "_connection", None)
    if not all(hasattr(receiver, name) for name in _RECEIVER_PRIVATES):
        return None
    if not all(hasattr(dtls, name) for name in _DTLS_PRIVATES):
        return None
    if receiver._RTCRtpReceiver__jitter_buffer is not jitter_buffer:
        return None
    # video-only machinery (NACKs, REMB): an audio receiver has none to feed
    if (receiver._RTCRtpReceiver__nack_generator is not None
            or receiver._RTCRtpReceiver__remote_bitrate_estimator is not None):
        return None
    if not isinstance(getattr(dtls._rtp_router, "ssrc_table", None), dict):
        return None
    queue = getattr(connection, "_queue", None)
    protocols = getattr(connection, "_protocols", None)
    if not isinstance(queue, asyncio.Queue) or not protocols:
        return None
    # host sockets only; a TURN relay's datagrams keep aioice's path (the queue check
    # in `take` keeps the order between the two)
    stun = [p for p in protocols if type(p) is aioice.ice.StunProtocol
            and getattr(p, "receiver", None) is connection]
    if not stun:
        return None
    rtp_in = RtpIn(receiver, dtls, queue)
    for protocol in stun:
        rtp_in.hook(protocol)
    return rtp_in
