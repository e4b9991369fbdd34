"""One aiortc peer connection per player: SDP checks, the mic reader and the mix track.

The voice loop (server/media/voice.py) owns the mixer; this module only moves audio
between the network and it:

- inbound: `MicDecoder` takes the place of aiortc's jitter buffer and
  decodes each Opus packet (libopus called directly, float32 mono; or
  aiortc's decoder, s16 stereo turned into float32 mono) and calls
  `on_pcm(pid, pcm, ts)`
  (`ts`: the packet's RTP time, 48 kHz units, for the mixer's playout timing):
  no decoder thread hand-off, no task per frame. While the voice loop runs,
  a `MicBatch` holds the packets until its next tick, which decodes them back
  to back with their arrival times (`on_pcm(pid, pcm, ts, at)`). Once negotiated,
  `server.media.rtp_in.RtpIn` hands it the packets straight from the socket's
  callback (SRTP unprotected, header read), without aiortc's receive task,
  and soon a compiled receiver (server/media/fastrtp.py) where it was built: it
  takes them in C and holds them for the batch, which drains it each tick;
- outbound: one `MixTrack` per player, fed Opus payloads already encoded by
  the voice loop; once the connection is up, `DirectRtp` sends each one at
  once (RTP header, SRTP, `sendto`) in place of aiortc's sender task, and
  soon hands that to a compiled sender (server/media/fastrtp.py) where it was
  built: the same bytes in one C call. Until then (or if aiortc's internals
  are not as expected) `recv()` returns them as `av.Packet`s that aiortc's
  sender only packetises.

Each of these shortcuts checks the private parts of aiortc, aioice or
pylibsrtp it relies on when the peer is set up (`server.media.srtp`: once per
process) and keeps the library's own path where they are not as expected.

Hostile input stops here: an offer is checked line by line before aiortc
parses it, and anything aiortc raises while negotiating becomes a
`VoiceError`, so a bad offer never reaches the room's loop.

ICE lets a client name the addresses the server sends connectivity checks
(STUN) to. That is bounded (docs/protocol.md, "Voice"): at most
`max_candidates` candidates per offer here, and the addresses themselves in
server/media/iceguard.py (loopback and link-local ones only when allowed).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import re
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import aioice.ice
import av
import numpy as np
from aiortc import (
    RTCConfiguration,
    RTCIceServer,
    RTCPeerConnection,
    RTCRtpCodecCapability,
    RTCSessionDescription,
)
from aiortc.codecs.opus import OpusDecoder as AiortcOpusDecoder
from aiortc.jitterbuffer import JitterBuffer, JitterFrame
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from aiortc.rtcdtlstransport import State as DtlsState
from aiortc.rtp import RtpPacket
from aiortc.utils import random16, random32, uint16_gt

from server.media import fastrtp, rtcp
from server.media.opus import (
    FRAME,
    MIC_BITRATE,
    SAMPLE_RATE,
    DirectDecoder,
    direct_decoder,
    frame_to_mono,
    make_packet,
)
from server.media.protect import (
    LinkReport,
    RedPacker,
    answer_with_red,
    offered_red,
    watch_reports,
)
from server.media.recovery import MicRecovery
from server.media.rtp_in import RtpIn, receive_directly
from server.media.srtp import FastSrtp, fast_srtp

log = logging.getLogger(__name__)

MAX_SDP_BYTES = 20_000
MAX_SDP_LINES = 400
MAX_LINE = 2048
MAX_CANDIDATES = 20  # remote candidates in one offer (a browser's complete offer has a few)
NEGOTIATION_TIMEOUT = 10.0
# Frames aiortc's audio jitter buffer holds back before decoding. Its default
# (4) adds 80 ms; 0 hands packets straight to the decoder, since the mixer's
# per-speaker jitter queue already absorbs arrival jitter (see set_jitter).
JITTER_PREFETCH = 0
NTP_EPOCH_OFFSET = 2_208_988_800  # seconds from 1900 (NTP) to 1970 (Unix)
# Ticks between two hand-overs of a compiled sender's counters to aiortc (its RTCP sender
# reports and stats read them) and two checks that its path still holds (~0.5 s).
SYNC_EVERY = 25
SILENCE_PEAK = 4 / 32768  # -78 dBFS: a decoded frame quieter than this is digital silence

OPUS = RTCRtpCodecCapability(mimeType="audio/opus", clockRate=48000, channels=2)
# Used with fullmatch only (with match, "$" also accepts a trailing newline).
_LINE = re.compile(r"[vosiuepcbtrzkam]=[\x20-\x7e]*")
_MLINE = re.compile(r"m=(\w+) \d+ [A-Za-z/]+( \w+)+")
_RTPMAP = re.compile(r"a=rtpmap:(\d+) ([\w.-]+)/(\d+)(/\d+)?")


class VoiceError(Exception):
    """A voice request refused; `code` is stable and snake_case for the client."""

    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(message or code)
        self.code = code


def validate_offer(sdp: str, max_candidates: int = MAX_CANDIDATES) -> None:
    """Refuse an offer aiortc should never see: too large, malformed, not one Opus audio
    line, more than `max_candidates` ICE candidates.

    Raises VoiceError("sdp_too_large" | "bad_sdp" | "no_audio" | "too_many_candidates").
    """
    if not isinstance(sdp, str):
        raise VoiceError("bad_sdp", "sdp must be a string")
    if len(sdp.encode("utf-8", "replace")) > MAX_SDP_BYTES:
        raise VoiceError("sdp_too_large", f"offer larger than {MAX_SDP_BYTES} bytes")
    lines = [ln for ln in sdp.replace("\r\n", "\n").split("\n") if ln]
    if not lines or lines[0] != "v=0":
        raise VoiceError("bad_sdp", "offer must start with v=0")
    if len(lines) > MAX_SDP_LINES:
        raise VoiceError("bad_sdp", "too many lines")
    mlines: list[str] = []
    opus_pts: set[str] = set()
    candidates = 0
    has_ufrag = has_pwd = has_fp = False
    for ln in lines:
        if len(ln) > MAX_LINE or not _LINE.fullmatch(ln):
            raise VoiceError("bad_sdp", "malformed line")
        if ln.startswith("m="):
            if not _MLINE.fullmatch(ln):
                raise VoiceError("bad_sdp", "malformed m-line")
            mlines.append(ln)
        elif ln.startswith("a=rtpmap:"):
            m = _RTPMAP.fullmatch(ln)
            if not m:
                raise VoiceError("bad_sdp", "malformed rtpmap")
            if m.group(2).lower() == "opus" and m.group(3) == "48000" and len(mlines) == 1:
                opus_pts.add(m.group(1))
        elif ln.startswith("a=candidate:"):
            candidates += 1
        elif ln.startswith("a=ice-ufrag:"):
            has_ufrag = True
        elif ln.startswith("a=ice-pwd:"):
            has_pwd = True
        elif ln.startswith("a=fingerprint:"):
            has_fp = True
    audio = [m for m in mlines if m.startswith("m=audio ")]
    if len(mlines) != 1 or len(audio) != 1:
        raise VoiceError("no_audio", "exactly one audio m-line is required")
    offered = set(audio[0].split()[3:])
    if not opus_pts & offered:
        raise VoiceError("no_audio", "opus/48000 must be offered")
    if candidates > max_candidates:
        raise VoiceError("too_many_candidates", f"more than {max_candidates} ICE candidates")
    if not (has_ufrag and has_pwd and has_fp):
        raise VoiceError("bad_sdp", "ICE credentials and DTLS fingerprint are required")
    try:
        from aiortc.sdp import SessionDescription

        SessionDescription.parse(sdp)
    except Exception as exc:  # aiortc's parser raises anything from ValueError to KeyError
        raise VoiceError("bad_sdp", f"unparsable offer: {type(exc).__name__}") from None


_FMTP = re.compile(r"a=fmtp:(\d+) (.*)")


def offers_stereo(sdp: str) -> bool:
    """True if the offer says its client takes stereo Opus: `stereo=1` in the fmtp of
    an Opus payload type (RFC 7587: what the receiver of the offer may send it)."""
    lines = sdp.replace("\r\n", "\n").split("\n")
    opus = {m.group(1) for ln in lines if (m := _RTPMAP.fullmatch(ln))
            and m.group(2).lower() == "opus"}
    for ln in lines:
        m = _FMTP.fullmatch(ln)
        if m and m.group(1) in opus:
            params = {p.strip().lower() for p in m.group(2).split(";")}
            if "stereo=1" in params:
                return True
    return False


# What the answer asks of a browser's microphone (RFC 7587): 20 ms packets or shorter,
# in-band FEC (the server rebuilds a lost packet from the next one: server/media/recovery.py),
# DTX while the mic is silent, and 64 kb/s rather than a browser's default 32: the voice
# is decoded and coded again for the mix, and a second generation of Opus costs 32 kb/s
# SILK far more than 64 (bench/voice_quality.py, bench/README.md "Voice quality").
MIC_FMTP = f"minptime=10;useinbandfec=1;usedtx=1;maxaveragebitrate={MIC_BITRATE}"


def ask_for_dtx(answer: str, stereo: bool = False) -> str:
    """Add the Opus line the server wants to the answer (`MIC_FMTP`): in-band FEC, DTX
    (the browser sends nothing while its mic is silent, one packet per 400 ms, so the
    server decodes and mixes less) and the mic's bitrate. With `stereo`,
    `sprop-stereo=1` says the server may send stereo; `stereo` itself stays out (it
    would ask the client's mic for stereo, and the mix takes mono).

    aiortc writes no fmtp for Opus; only the copy sent to the client changes.
    """
    out = []
    lines = answer.split("\r\n")
    has_fmtp = {ln.split()[0].split(":")[1] for ln in lines if ln.startswith("a=fmtp:")}
    for ln in lines:
        out.append(ln)
        m = _RTPMAP.fullmatch(ln)
        if m and m.group(2).lower() == "opus" and m.group(1) not in has_fmtp:
            extra = ";sprop-stereo=1" if stereo else ""
            out.append(f"a=fmtp:{m.group(1)} {MIC_FMTP}{extra}")
    return "\r\n".join(out)


def restrict_host_addresses(addresses: Sequence[str]) -> None:
    """Offer only `addresses` as ICE host candidates, in this whole process.

    aioice has no per-connection setting for this: it asks its module-level
    `get_host_addresses` for every interface and leaves 127.0.0.1 out. An
    operator (or a test) that wants WebRTC on chosen addresses only replaces
    that one function, once, at start-up.
    """
    chosen = [a.strip() for a in addresses if a.strip()]
    if chosen:
        aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: list(chosen)


def rtc_configuration(ice_servers: list[dict] | None) -> RTCConfiguration:
    """RTCConfiguration from [{urls, username?, credential?}]; empty by default.

    aiortc falls back to a public STUN server when given none; the default here
    is an explicit empty list because host candidates are enough on a LAN and a
    STUN server out of reach would only delay gathering.
    """
    servers = [
        RTCIceServer(urls=s["urls"], username=s.get("username"), credential=s.get("credential"))
        for s in (ice_servers or [])
    ]
    return RTCConfiguration(iceServers=servers)


class ImmediateJitterBuffer(JitterBuffer):
    """Hands every audio packet to the decoder the moment it arrives.

    One Opus packet is one whole frame, so nothing needs reassembling; a
    packet older than the last one handed over (reordered or duplicated) is
    dropped. aiortc's own buffer holds each frame until the next packet
    shows it is complete: 20 ms per hop, and 80 ms with its default
    prefetch of 4. The server's mixer dejitters with its own queue.
    """

    def __init__(self) -> None:
        super().__init__(capacity=16)
        self._last: int | None = None
        self.late = 0

    def add(self, packet) -> tuple[bool, JitterFrame | None]:
        seq = packet.sequence_number
        if self._last is not None and not uint16_gt(seq, self._last):
            self.late += 1
            return False, None
        self._last = seq
        return False, JitterFrame(data=packet._data, timestamp=packet.timestamp)


def set_jitter(receiver, prefetch: int = JITTER_PREFETCH, buffer: JitterBuffer | None = None
               ) -> bool:
    """Replace aiortc's audio jitter buffer: `prefetch` 0 passes packets straight through,
    n >= 1 is aiortc's buffer holding n frames; or install `buffer` as it is.

    aiortc exposes no setting for it; the attribute is private (name-mangled)
    so this checks it exists and leaves the default in place otherwise.
    """
    name = "_RTCRtpReceiver__jitter_buffer"
    if not isinstance(getattr(receiver, name, None), JitterBuffer):
        return False
    if buffer is None:
        buffer = ImmediateJitterBuffer() if prefetch <= 0 else JitterBuffer(16, prefetch=prefetch)
    setattr(receiver, name, buffer)
    return True


class DirectRtp:
    """Sends one listener's Opus payloads straight from the voice loop: RTP header,
    SRTP, `sendto`, with no task, `av.Packet` or `RtpPacket` per packet.

    It does what aiortc's `RTCRtpSender._run_rtp` does for a pre-encoded packet
    (random first sequence number and timestamp origin, marker set, the `mid`
    header extension, the counters its RTCP sender reports read), but the
    header is built once and only its sequence number and timestamp change.
    aiortc's own path costs a task wake-up per listener per tick and ~40 us of
    Python per packet; in a 16-player room that was half the server's work.
    """

    __slots__ = ("_sender", "_dtls", "_header", "_seq", "_origin", "_srtp", "sent", "unsent",
                 "native", "_native_pair")

    def __init__(self, sender, codec) -> None:
        self._sender = sender
        self._dtls = sender.transport
        self._seq = random16() % 32768  # aiortc's choice: far from the wrap-around
        self._origin = random32()
        header = RtpPacket(payload_type=codec.payloadType, marker=1, ssrc=sender._ssrc)
        header.extensions.mid = getattr(sender, "_RTCRtpSender__mid", None)
        self._header = bytearray(header.serialize(sender._RTCRtpSender__rtp_header_extensions_map))
        # libsrtp called directly (server/media/srtp.py), or None: pylibsrtp's own wrapper
        self._srtp: FastSrtp | None = fast_srtp(self._dtls._tx_srtp)
        self.sent = 0
        self.unsent = 0  # packets that found the transport not (or no longer) connected
        self.native = None  # a server.media._fastrtp.Sender once go_native() made one
        self._native_pair = None

    def send(self, payload: bytes, timestamp: int, pt: int | None = None) -> None:
        """Send one payload whose RTP time is `timestamp` (in 1/48000 s since the first);
        `pt`: its payload type, if not the codec's (RED: server/media/protect.py)."""
        sender = self._sender
        if not sender._enabled:
            return
        dtls = self._dtls
        pair = None
        if dtls._state is DtlsState.CONNECTED:
            pair = dtls.transport._connection._nominated.get(1)
        if pair is None:
            self.unsent += 1
            return
        header = self._header
        rtp_ts = (self._origin + timestamp) & 0xFFFFFFFF
        struct.pack_into("!HL", header, 2, self._seq, rtp_ts)
        if pt is not None:
            header = bytearray(header)
            header[1] = (header[1] & 0x80) | pt
        srtp = self._srtp
        if srtp is not None:
            data = srtp.protect(header, payload)
        else:
            data = dtls._tx_srtp.protect(bytes(header) + payload)
        protocol = pair.protocol
        if type(protocol) is aioice.ice.StunProtocol and protocol.transport is not None:
            protocol.transport.sendto(data, pair.remote_addr)
        else:  # a TURN relay: its own (async) framing
            asyncio.ensure_future(protocol.send_data(data, pair.remote_addr))
        self._seq = (self._seq + 1) & 0xFFFF
        self.sent += 1
        # what aiortc's RTCP sender reports (sender report) and its stats read
        sender._RTCRtpSender__ntp_timestamp = _ntp_now()
        sender._RTCRtpSender__rtp_timestamp = rtp_ts
        sender._RTCRtpSender__octet_count += len(payload)
        sender._RTCRtpSender__packet_count += 1
        dtls._RTCDtlsTransport__tx_bytes += len(data)
        dtls._RTCDtlsTransport__tx_packets += 1

    def go_native(self, tick0: int):
        """Hand the sends to a compiled `Sender` (server/media/fastrtp.py) on this path, if the
        extension is there and the path is a plain UDP pair (not a TURN relay): the same
        header, sequence numbers and RTP times (`tick0`: the track's first tick). The
        Sender, or None (the Python path goes on)."""
        dtls, sender = self._dtls, self._sender
        if self.native is not None or self._srtp is None or not sender._enabled:
            return self.native  # no FastSrtp: pylibsrtp is not as server/media/srtp.py expects
        if dtls._state is not DtlsState.CONNECTED:
            return None
        pair = dtls.transport._connection._nominated.get(1)
        protocol = getattr(pair, "protocol", None)
        if type(protocol) is not aioice.ice.StunProtocol or protocol.transport is None:
            return None
        sock = protocol.transport.get_extra_info("socket")
        if sock is None:
            return None
        self.native = fastrtp.sender(sock.fileno(), pair.remote_addr, dtls._tx_srtp,
                                     bytes(self._header), self._seq, self._origin, tick0)
        self._native_pair = pair if self.native is not None else None
        return self.native

    def sync(self) -> int:
        """Hand the compiled Sender's counts since the last sync to aiortc (what its RTCP
        sender reports and stats read) and check its path still holds: the sender
        enabled, DTLS up, the same ICE pair. If not, the Sender is closed and the
        Python path takes over at the next sequence number. Between two syncs the
        Sender does not look (that is the point): a sender disabled by a new
        description, or a connection closing, lets up to SYNC_EVERY more packets
        go to the peer's address, as a sender task that had not yet seen it would.
        The packets it sent."""
        native = self.native
        if native is None:
            return 0
        sent, octets, wire, dropped, errors, last_ts, ntp, self._seq = native.sync()
        sender, dtls = self._sender, self._dtls
        self.sent += sent
        self.unsent += errors
        if sent:
            sender._RTCRtpSender__ntp_timestamp = ntp
            sender._RTCRtpSender__rtp_timestamp = last_ts
            sender._RTCRtpSender__octet_count += octets
            sender._RTCRtpSender__packet_count += sent
            dtls._RTCDtlsTransport__tx_bytes += wire
            dtls._RTCDtlsTransport__tx_packets += sent
        pair = self._native_pair
        if not (sender._enabled and dtls._state is DtlsState.CONNECTED
                and dtls.transport._connection._nominated.get(1) is pair
                and pair.protocol.transport is not None):
            self.close_native()
        return sent

    def close_native(self) -> None:
        """Back to the Python path (counts already synced)."""
        if self.native is not None:
            self.native.close()
        self.native = self._native_pair = None


def _ntp_now() -> int:
    """aiortc's `clock.current_ntp_time()` (64-bit NTP time), from `time.time()`."""
    t = time.time()
    return ((int(t) + NTP_EPOCH_OFFSET) << 32) | int((t % 1.0) * 4294967296)


_SENDER_PRIVATES = ("_RTCRtpSender__rtp_started", "_RTCRtpSender__rtp_exited",
                    "_RTCRtpSender__rtp_header_extensions_map", "_RTCRtpSender__octet_count",
                    "_RTCRtpSender__packet_count", "_RTCRtpSender__ntp_timestamp",
                    "_RTCRtpSender__rtp_timestamp", "_enabled", "_ssrc")


def send_directly(sender, track: MixTrack) -> bool:
    """Make `sender` (not started yet) hand `track` a `DirectRtp` instead of reading it.

    aiortc starts `sender._run_rtp(codec)` as a task once DTLS is up; this
    replaces it, for this sender only, with one that attaches a DirectRtp to
    the track and waits for the track or the sender to stop. False (and
    aiortc's own path kept) if aiortc's private attributes are not as expected.
    """
    if not all(hasattr(sender, name) for name in _SENDER_PRIVATES):
        return False
    if not hasattr(getattr(sender, "transport", None), "_RTCDtlsTransport__tx_bytes"):
        return False

    async def run_rtp(codec) -> None:
        sender._RTCRtpSender__rtp_started.set()
        try:
            track.attach(DirectRtp(sender, codec))
            await track.stopped.wait()
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("direct RTP sender failed")
        finally:
            track.stop()
            sender._RTCRtpSender__rtp_exited.set()

    sender._run_rtp = run_rtp
    return True


# A queued payload older than this is dropped rather than sent late (a sleep, a stall).
STALE_QUEUED = 0.2


class MixTrack(MediaStreamTrack):
    """Outbound audio of one listener: pre-encoded Opus payloads, paced by the voice loop.

    `push(payload, tick)` is called once per 20 ms tick. Once the connection
    is up the payload is sent at once through the attached `DirectRtp`, or
    its compiled sender once it has one (checked and synced every SYNC_EVERY
    ticks); otherwise (aiortc's own sender) `recv()` returns them as `av.Packet`s.
    Either way the RTP time counts ticks since the track's first one, so a
    dropped packet leaves a gap in RTP time rather than shifting what follows.
    """

    kind = "audio"

    def __init__(self, maxlen: int = 8) -> None:
        """`maxlen`: packets kept while the sender lags (160 ms); older ones are dropped."""
        super().__init__()
        # (payload, tick, when queued): what waits for the connection, or for aiortc's sender
        self._queue: collections.deque[tuple[bytes, int, float]] = collections.deque()
        self._maxlen = maxlen
        self._ready = asyncio.Event()
        self.stopped = asyncio.Event()
        self._first_tick: int | None = None
        self._direct: DirectRtp | None = None
        self._fast: Callable[..., int] | None = None  # the compiled Sender's send
        self._native_at = 0  # the tick from which go_native() may be tried (again)
        self.sent = 0
        self.dropped = 0
        # what the listener's receiver reports say, and RED for a lossy link where the
        # answer accepted it (server/media/protect.py); None: plain Opus always
        self.link = LinkReport()
        self.link_watched = False  # whether the reports are read at all (watch_reports)
        self.red: RedPacker | None = None

    def attach(self, direct: DirectRtp) -> None:
        """Send from now on through `direct`, starting with what is queued (but for what
        waited over STALE_QUEUED seconds: a node woken from a sleep sends no stale voice)."""
        self._direct = direct
        while self._queue:
            payload, tick, at = self._queue.popleft()
            if time.monotonic() - at > STALE_QUEUED:
                self.dropped += 1
                continue
            self._send(direct, payload, tick)

    def _send(self, direct: DirectRtp, payload: bytes, tick: int, pt: int | None = None) -> None:
        self.sent += 1
        direct.send(payload, (tick - self._first_tick) * FRAME, pt)
        if tick >= self._native_at and direct.native is None:
            self._native_at = tick + SYNC_EVERY
            native = direct.go_native(self._first_tick)
            if native is not None:
                self._fast = native.send

    @property
    def native(self) -> bool:
        """True while the compiled sender sends this track's packets."""
        return self._fast is not None

    def _sync(self, tick: int = 0) -> None:
        direct = self._direct
        if direct is None:
            self._fast = None
            return
        self.sent += direct.sync()
        if direct.native is None:  # its path changed: Python sends, for a while at least
            self._fast = None
            self._native_at = tick + SYNC_EVERY

    def push(self, payload: bytes, tick: int) -> None:
        """Send or queue one payload; if the sender has stalled, the oldest goes."""
        fast = self._fast
        red = self.red
        pt = None
        if red is not None and (fast is not None or self._direct is not None):
            packed = red.pack(payload, tick, self.link.distance)
            if packed is not None:
                payload, pt = packed, red.pt
        if fast is not None:  # server.media._fastrtp: header, SRTP and sendto in one C call
            if fast(payload, tick, pt) >= SYNC_EVERY:
                self._sync(tick)
            return
        if self.readyState != "live":
            return
        if self._first_tick is None:
            self._first_tick = tick
        if self._direct is not None:
            self._send(self._direct, payload, tick, pt)
            return
        if len(self._queue) >= self._maxlen:
            self._queue.popleft()
            self.dropped += 1
        self._queue.append((payload, tick, time.monotonic()))
        self._ready.set()

    async def recv(self) -> av.Packet:
        while True:
            while not self._queue:
                if self.readyState != "live":
                    raise MediaStreamError
                self._ready.clear()
                await self._ready.wait()
            payload, tick, at = self._queue.popleft()
            if time.monotonic() - at <= STALE_QUEUED:
                break
            self.dropped += 1  # waited too long (a sleep, a stall): never sent late
        self.sent += 1
        return make_packet(payload, (tick - self._first_tick) * FRAME)

    def stop(self) -> None:
        super().stop()
        if self._direct is not None:
            self._sync()
            self._direct.close_native()
        self._fast = None
        self._direct = None
        self._ready.set()  # wake a pending recv so it raises MediaStreamError
        self.stopped.set()


@dataclass
class Peer:
    """One player's connection: the aiortc peer, its outbound track and the mic reader."""

    pid: str
    pc: RTCPeerConnection
    track: MixTrack
    reader: asyncio.Task | None = None
    frames_in: int = 0
    silent_in: int = 0
    resampled: int = 0
    resampler: av.AudioResampler | None = None
    rtp_in: RtpIn | None = None  # the synchronous receive path, if installed
    closed: bool = False
    tasks: list[asyncio.Task] = field(default_factory=list)

    async def close(self) -> None:
        """Stop the reader and close the connection; safe to call twice."""
        if self.closed:
            return
        self.closed = True
        self.track.stop()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.reader
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.pc.close(), 5)


async def open_peer(
    pid: str,
    offer_sdp: str,
    *,
    ice_servers: list[dict] | None,
    max_candidates: int = MAX_CANDIDATES,
    on_pcm: Callable[..., None],
    on_closed: Callable[[str, Peer], None] | None = None,
    mic_batch: MicBatch | None = None,
) -> tuple[Peer, str]:
    """Answer `offer_sdp` for `pid`; returns the peer and the answer SDP.

    `on_pcm(pid, pcm, ts)` gets the decoded mic frames; with `mic_batch`, those it
    held come at its flush as `on_pcm(pid, pcm, ts, at)` (see MicBatch).

    The offer is validated first; every failure closes the half-built
    connection and raises VoiceError, so nothing leaks into the room.
    """
    validate_offer(offer_sdp, max_candidates)
    rtcp.pace()  # reports as far apart as a browser's (once per process; see server/media/rtcp.py)
    pc = RTCPeerConnection(rtc_configuration(ice_servers))
    track = MixTrack()
    peer = Peer(pid=pid, pc=pc, track=track)
    try:
        # The transceiver exists before the offer is applied so that only Opus
        # is negotiated (preferences are read in setRemoteDescription).
        transceiver = pc.addTransceiver(track, direction="sendrecv")
        transceiver.setCodecPreferences([OPUS])
        decoder = MicDecoder(peer, on_pcm, mic_batch)
        decoding = set_jitter(transceiver.receiver, buffer=decoder)
        send_directly(transceiver.sender, track)

        @pc.on("track")
        def _on_track(remote: MediaStreamTrack) -> None:
            if remote.kind == "audio" and peer.reader is None:
                peer.reader = asyncio.ensure_future(_read_mic(peer, remote, on_pcm))

        @pc.on("connectionstatechange")
        async def _on_state() -> None:
            if pc.connectionState in ("failed", "closed") and on_closed is not None:
                on_closed(pid, peer)

        async def negotiate() -> str:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=offer_sdp, type="offer"))
            if not transceiver.currentDirection and transceiver.mid is None:
                raise VoiceError("no_audio", "the offer's audio line was not accepted")
            answer = await pc.createAnswer()
            await pc.setLocalDescription(answer)
            return pc.localDescription.sdp

        answer_sdp = ask_for_dtx(await asyncio.wait_for(negotiate(), NEGOTIATION_TIMEOUT),
                                 stereo=offers_stereo(offer_sdp))
        # The listener's side: its receiver reports read, and RED where it was offered
        red = offered_red(offer_sdp)
        answer_sdp, opus_pt = answer_with_red(answer_sdp, red)
        track.link_watched = watch_reports(transceiver.sender, track.link)
        if track.link_watched and opus_pt is not None:
            track.red = RedPacker(red[0], opus_pt)
        if decoding:  # the ICE sockets exist now; mic packets skip aiortc's receive task
            peer.rtp_in = receive_directly(transceiver.receiver, decoder)
    except VoiceError:
        await peer.close()
        raise
    except Exception as exc:  # aiortc raises many types on odd offers; none may escape
        await peer.close()
        log.info("offer from %s refused: %r", pid, exc)
        raise VoiceError("bad_sdp", f"offer refused: {type(exc).__name__}") from None
    return peer, answer_sdp


class MicBatch:
    """Mic packets held from their arrival until the voice loop's next tick, then
    decoded back to back just before it (`flush`).

    Decoded one by one as they arrive, ~6 ms apart in a room of three talkers,
    each packet finds caches that the work in between has emptied: its decode,
    silence test and push into the mixer cost several times what they cost in
    a row (bench/ROOM.md, "Levers 3-6"). The tick that follows is the first
    that could play them anyway, so holding them until then changes neither
    the samples nor their timing: each is pushed with its own arrival time.
    While `holding` is False (the voice loop is not running) a packet is
    decoded as it arrives; at most MAX_HELD wait.

    After the packets, each decoder is told whether its speaker's queue would run
    dry at this tick (`dry(pid)`, set by the voice loop): then a lost packet is
    rebuilt or concealed now, just in time (server/media/recovery.py).
    """

    MAX_HELD = 256  # ~5 s of one talker: only a stalled loop gets near it

    __slots__ = ("holding", "_held", "_native", "_decoders", "dry", "decodes", "decode_ns",
                 "_retired")

    def __init__(self) -> None:
        self.holding = False
        self._held: list[tuple[MicDecoder, int, int, bytes, float]] = []
        # compiled receivers (server/media/fastrtp.py) holding their own packets, with their decoder
        self._native: list[tuple[object, MicDecoder]] = []
        self._decoders: list[MicDecoder] = []  # every decoder of the room's mics
        # dry(pid): True if pid's queue would run out at the coming tick (None: never asked)
        self.dry: Callable[[str], bool] | None = None
        # the room's mic decodes (held or not) and their CPU time (the thread's clock)
        self.decodes = 0
        self.decode_ns = 0
        self._retired: dict[str, int] = {}  # the recovery counts of decoders closed since

    def recovery_counts(self) -> dict[str, int]:
        """The room's mic streams' recovery counts (server/media/recovery.py), summed, those
        of closed peers included: frames rebuilt from FEC, concealed, packets reordered,
        packets too late."""
        total = dict(self._retired)
        for decoder in self._decoders:
            if decoder.recovery is not None:
                for name, n in decoder.recovery.counts().items():
                    total[name] = total.get(name, 0) + n
        return total

    def register(self, decoder: MicDecoder) -> None:
        """`decoder` is settled at every flush until its peer is closed."""
        self._decoders.append(decoder)

    def hold(self, decoder: MicDecoder, seq: int, ts: int, data: bytes) -> bool:
        """Keep a packet for the next flush (True), or False: decode it now."""
        if not self.holding:
            return False
        self._held.append((decoder, seq, ts, data, time.monotonic()))
        if len(self._held) >= self.MAX_HELD:
            self.flush()
        return True

    def attach(self, native, decoder: MicDecoder) -> None:
        """Drain `native` (a server.media._fastrtp.Receiver holding `decoder`'s packets, at most
        MAX_HELD) at each flush, until the decoder's peer is closed."""
        self._native.append((native, decoder))

    def flush(self) -> None:
        """Decode every packet held, in order of arrival, and deliver its PCM; then let
        each decoder rebuild what its speaker's queue needs now."""
        held, self._held = self._held, []
        if any(decoder._peer.closed for _, decoder in self._native):
            for native, decoder in self._native:
                if decoder._peer.closed:
                    native.drain()
            self._native = [(n, d) for n, d in self._native if not d._peer.closed]
        if held and self._native:  # both paths held packets: one list, in order of arrival
            merged = [(at, decoder, payload, ts, seq) for decoder, seq, ts, payload, at in held]
            for native, decoder in self._native:
                merged.extend((at, decoder, payload, ts, seq)
                              for ts, payload, at, seq in native.drain())
            merged.sort(key=lambda item: item[0])
            for at, decoder, payload, ts, seq in merged:
                decoder.decode_payload(payload, ts, at, seq)
        else:
            for decoder, seq, ts, payload, at in held:
                decoder.decode_payload(payload, ts, at, seq)
            for native, decoder in self._native:
                decode = decoder.decode_payload
                for ts, payload, at, seq in native.drain():
                    decode(payload, ts, at, seq)
        self._settle()

    def _settle(self) -> None:
        dry = self.dry
        if dry is None:
            return
        if any(d._peer.closed for d in self._decoders):
            for d in self._decoders:
                if d._peer.closed and d.recovery is not None:
                    for name, n in d.recovery.counts().items():
                        self._retired[name] = self._retired.get(name, 0) + n
            self._decoders = [d for d in self._decoders if not d._peer.closed]
        now = time.monotonic()
        for decoder in self._decoders:
            recovery = decoder.recovery
            if recovery is not None:
                recovery.settle(dry(decoder._peer.pid), now)


class MicDecoder(ImmediateJitterBuffer):
    """The server's receive path: each mic packet is decoded where it arrives (or at the
    batch's flush), on the event loop, and its PCM handed to `on_pcm`.

    aiortc would queue the packet to a decoder thread, which hands every frame
    back with `run_coroutine_threadsafe` (a task, a future and a wake-up of the
    loop per frame) to a track read by one more task per peer. The decoder is
    libopus called directly (`server.media.opus.DirectDecoder`: float mono, soft-clipped
    as libopus's 16-bit output is), behind `MicRecovery` (server/media/recovery.py:
    packets back in order, lost ones rebuilt from the next one's FEC or concealed),
    or, where that is not available or `SUSSURRO_OPUS=pyav`, aiortc's own (s16
    stereo, turned into float mono; a late packet dropped, a lost one a hole).
    Either way a packet gives one frame of as many samples as it holds, timed
    by its RTP timestamp.
    """

    def __init__(self, peer: Peer, on_pcm: Callable[..., None],
                 batch: MicBatch | None = None) -> None:
        """`on_pcm(pid, pcm, ts)`; with a `batch`, packets it holds are delivered at its
        flush as `on_pcm(pid, pcm, ts, at)`, `at` their arrival (time.monotonic); a
        packet that came too late to be played is told as `on_pcm(pid, None, ts, at)`."""
        super().__init__()
        self._peer = peer
        self._on_pcm = on_pcm
        self._batch = batch
        self._direct: DirectDecoder | None = direct_decoder()
        self._decoder = AiortcOpusDecoder() if self._direct is None else None
        self.recovery: MicRecovery | None = None
        self._pyav_last: int | None = None
        if self._direct is not None:
            self.recovery = MicRecovery(self._direct, self._recovered)
            if batch is not None:
                batch.register(self)
        self.errors = 0

    def add(self, packet) -> tuple[bool, JitterFrame | None]:
        seq = packet.sequence_number
        if self._last is not None and not uint16_gt(seq, self._last):
            self.late += 1  # counted; the recovery puts it back in order, or drops a repeat
            if self.recovery is None:
                return False, None
        else:
            self._last = seq
        data = packet._data
        if self._peer.closed or not data:
            # An empty payload holds no audio; aiortc's decoder would take it for the
            # end of the stream (an empty av.Packet flushes) and refuse all that follows.
            return False, None
        if self._batch is None or not self._batch.hold(self, seq, packet.timestamp, data):
            self.decode_payload(data, packet.timestamp, None, seq)
        return False, None

    def decode(self, frame: JitterFrame, at: float | None = None) -> None:
        """Decode one packet's frame and deliver its PCM (`at`: when it arrived, if held)."""
        self.decode_payload(frame.data, frame.timestamp, at)

    def decode_payload(self, data: bytes, timestamp: int, at: float | None = None,
                       seq: int | None = None) -> None:
        """Decode one packet's Opus payload (RTP time `timestamp`, sequence number `seq`)
        and deliver its PCM."""
        if self._peer.closed:
            return
        recovery = self.recovery
        if recovery is not None:
            t0 = time.thread_time_ns()
            if seq is None:  # no number (a frame handed over without one): the next one
                seq = recovery.next_seq
            try:
                recovery.take(seq, timestamp, data, at)
            finally:
                self.errors = recovery.errors
                batch = self._batch
                if batch is not None:
                    batch.decodes += 1
                    batch.decode_ns += time.thread_time_ns() - t0
            return
        if seq is not None:
            # aiortc's decoder (no recovery): a packet older than the last one decoded is
            # dropped, as aiortc's own buffer does (the compiled receiver hands them on)
            if self._pyav_last is not None and not uint16_gt(seq, self._pyav_last):
                return
            self._pyav_last = seq
        frame = JitterFrame(data=data, timestamp=timestamp)
        try:
            frames = self._decoder.decode(frame)
        except av.FFmpegError:
            self.errors += 1  # as aiortc: keep the decoder's state, skip the packet
            return
        try:
            for f in frames:
                _deliver(self._peer, f, self._on_pcm, at)
        except Exception:  # never into aiortc's receive loop
            log.exception("mic decoder of %s failed", self._peer.pid)

    def _recovered(self, pcm: np.ndarray | None, ts: int, at: float | None) -> None:
        try:
            if pcm is None:
                self._on_pcm(self._peer.pid, None, ts, time.monotonic() if at is None else at)
            else:
                _deliver_pcm(self._peer, pcm, ts, self._on_pcm, at)
        except Exception:  # never into the receive path
            log.exception("mic decoder of %s failed", self._peer.pid)


def _deliver(peer: Peer, frame: av.AudioFrame, on_pcm, at: float | None = None) -> None:
    """One decoded mic frame -> float32 mono 48 kHz -> on_pcm(pid, pcm, RTP time or None)."""
    if frame.sample_rate != SAMPLE_RATE:
        # Only Opus is negotiated, so this is a safety net, not a path.
        if peer.resampler is None:
            peer.resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
        frames = peer.resampler.resample(frame)
        peer.resampled += 1
    else:
        frames = [frame]
    for f in frames:
        _deliver_pcm(peer, frame_to_mono(f), f.pts if frame.sample_rate == SAMPLE_RATE else None,
                     on_pcm, at)


# A frame whose sum of squares is above this times its length has a sample above the
# peak (with a margin for float32 rounding): one dot product settles speech.
_LOUDER_THAN_SILENCE = SILENCE_PEAK * SILENCE_PEAK * 1.001


def _digital_silence(pcm: np.ndarray) -> bool:
    """True if no sample of `pcm` is above SILENCE_PEAK in magnitude."""
    if float(np.dot(pcm, pcm)) > pcm.size * _LOUDER_THAN_SILENCE:
        return False
    return not np.any(np.abs(pcm) > SILENCE_PEAK)


def _deliver_pcm(peer: Peer, pcm: np.ndarray, ts: int | None, on_pcm,
                 at: float | None = None) -> None:
    """float32 mono 48 kHz samples of one mic frame -> on_pcm(pid, pcm, ts[, at]), counted."""
    peer.frames_in += 1
    if _digital_silence(pcm):
        # Opus decodes digital silence to +-2 LSB of dither; exact
        # zeros let the voice loop see identical silent mixes and
        # share (or skip) their encodes.
        pcm = np.zeros_like(pcm)
        peer.silent_in += 1
    if at is None:
        on_pcm(peer.pid, pcm, ts)
    else:
        on_pcm(peer.pid, pcm, ts, at)


async def _read_mic(peer: Peer, remote: MediaStreamTrack, on_pcm) -> None:
    """Decoded mic frames from aiortc's decoder thread -> on_pcm; ends with the track.

    Only used where `MicDecoder` could not be installed: otherwise the track
    never gets a frame and this task just waits for the end."""
    try:
        while True:
            _deliver(peer, await remote.recv(), on_pcm)
    except (MediaStreamError, asyncio.CancelledError):
        pass
    except Exception:
        log.exception("mic reader of %s stopped", peer.pid)
