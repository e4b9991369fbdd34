"""The client side of a voice connection, for bots, tests and benchmarks.

A `VoicePeer` offers one audio line, sends a synthetic microphone (a tone,
a WAV file, clicks, silence) paced in real time, and records what the
server sends back with each frame's arrival time.

The mic is Opus-encoded here (mono, `server.media.opus`) and handed to aiortc as
packets, which is cheaper than aiortc's own encoder (stereo, 96 kb/s,
complexity 10) when sixteen bots share two cores. With `dtx=True` silent
frames are not sent at all, as a browser does with Opus DTX.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import av
import numpy as np
import soundfile as sf
from aiortc import RTCIceTransportPolicy, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from server.media import rtcp
from server.media.opus import (
    BROWSER_MIC,
    FRAME,
    SAMPLE_RATE,
    TIME_BASE,
    OpusEncoder,
    OpusSettings,
    frame_to_mono,
    make_packet,
)
from server.media.rtc import OPUS, ImmediateJitterBuffer, rtc_configuration, set_jitter

PERIOD = FRAME / SAMPLE_RATE


# ------------------------------------------------------------------ mic sources


class Source:
    """A synthetic microphone: `frame(n)` is the n-th 20 ms frame (float32, 960 samples)."""

    def frame(self, n: int) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError


class Silence(Source):
    """Nothing at all (digital silence, so DTX sends nothing)."""

    def frame(self, n: int) -> np.ndarray:
        return np.zeros(FRAME, np.float32)


@dataclass
class Tone(Source):
    """A steady sine; on an exact FFT bin when `hz` is a multiple of the analysis resolution."""

    hz: float
    level: float = 0.25

    def frame(self, n: int) -> np.ndarray:
        t = (np.arange(FRAME) + n * FRAME) / SAMPLE_RATE
        return (self.level * np.sin(2 * np.pi * self.hz * t)).astype(np.float32)


@dataclass
class Syllables(Source):
    """A tone spoken in syllables: `on` frames of tone, `off` frames of silence, repeated.

    Speech-like for the mouth meter, which learns a steady tone as background.
    """

    hz: float
    level: float = 0.25
    on: int = 10
    off: int = 5

    def frame(self, n: int) -> np.ndarray:
        if n % (self.on + self.off) >= self.on:
            return np.zeros(FRAME, np.float32)
        return Tone(self.hz, self.level).frame(n)


class WavSource(Source):
    """A WAV file (resampled to 48 kHz mono if needed), looped."""

    def __init__(self, path: str) -> None:
        data, rate = sf.read(path, dtype="float32", always_2d=True)
        mono = data.mean(axis=1)
        if rate != SAMPLE_RATE:
            n = int(round(len(mono) * SAMPLE_RATE / rate))
            mono = np.interp(np.linspace(0, len(mono) - 1, n), np.arange(len(mono)), mono)
        pad = (-len(mono)) % FRAME
        self.pcm = np.concatenate([mono, np.zeros(pad)]).astype(np.float32)

    def frame(self, n: int) -> np.ndarray:
        frames = len(self.pcm) // FRAME
        i = n % max(frames, 1)
        return self.pcm[i * FRAME : (i + 1) * FRAME]


class Clicks(Source):
    """Silence with a short click (a 2 ms burst) at the start of every `every`-th frame."""

    def __init__(self, every: int = 25, level: float = 0.8, first: int = 50) -> None:
        self.every = every
        self.first = first
        t = np.arange(96) / SAMPLE_RATE
        self.click = (level * np.sin(2 * np.pi * 3000 * t) * np.hanning(96)).astype(np.float32)

    def frame(self, n: int) -> np.ndarray:
        out = np.zeros(FRAME, np.float32)
        if n >= self.first and (n - self.first) % self.every == 0:
            out[: len(self.click)] = self.click
        return out

    def click_frames(self, upto: int) -> list[int]:
        """Indices of the frames, below `upto`, that start with a click."""
        return list(range(self.first, upto, self.every))


class Switchable(Source):
    """A source that can be swapped while the peer runs (a bot that starts or stops talking)."""

    def __init__(self, source: Source) -> None:
        self.source = source

    def frame(self, n: int) -> np.ndarray:
        return self.source.frame(n)


# ------------------------------------------------------------------- mic track


class MicTrack(MediaStreamTrack):
    """Outbound mic paced in real time: frame n is returned when its 20 ms have elapsed.

    `encode=True` returns Opus `av.Packet`s (mono, our encoder), otherwise
    `av.AudioFrame`s (s16, 48 kHz, mono) for aiortc to encode. `captured[n]`
    is the monotonic time frame n was complete, to time what comes back.
    """

    kind = "audio"

    def __init__(self, source: Source, *, encode: bool = True, dtx: bool = False,
                 opus: OpusSettings | None = None) -> None:
        super().__init__()
        self.source = source
        self.encode = encode
        self.dtx = dtx
        self._enc = OpusEncoder(opus or BROWSER_MIC) if encode else None
        self._n = 0
        self._start: float | None = None
        self.captured: list[float] = []
        self.sent = 0

    async def recv(self) -> av.Packet | av.AudioFrame:
        while True:
            if self.readyState != "live":
                raise MediaStreamError
            if self._start is None:
                self._start = time.monotonic()
            n = self._n
            self._n += 1
            due = self._start + (n + 1) * PERIOD
            delay = due - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            pcm = self.source.frame(n)
            self.captured.append(time.monotonic())
            if self.dtx and not np.any(pcm):
                continue  # nothing to send: the receiver hears silence
            self.sent += 1
            if self._enc is not None:
                return make_packet(self._enc.encode(pcm), n * FRAME)
            s16 = np.clip(pcm * 32767.0, -32768, 32767).astype(np.int16).reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(s16, format="s16", layout="mono")
            frame.sample_rate = SAMPLE_RATE
            frame.pts = n * FRAME
            frame.time_base = TIME_BASE
            return frame

    def mouth_time(self, sample: int) -> float:
        """Monotonic time at which mic sample number `sample` was spoken."""
        n = sample // FRAME
        return self.captured[n] - PERIOD + (sample - n * FRAME) / SAMPLE_RATE


# -------------------------------------------------------------------- recorder


class Recorder:
    """What a peer hears: float32 frames with their arrival times; mono (n,), or with
    `channels=2` stereo (n, 2) (left, right)."""

    def __init__(self, channels: int = 1) -> None:
        self.channels = channels
        self.frames: list[np.ndarray] = []
        self.arrivals: list[float] = []
        self.pts: list[int | None] = []  # RTP time of each frame (1/48000), per connection
        self.done = asyncio.Event()

    def add(self, pcm: np.ndarray, when: float, pts: int | None = None) -> None:
        self.frames.append(pcm)
        self.arrivals.append(when)
        self.pts.append(pts)

    def _segments(self, since: float | None):
        """(samples, ear time of the first sample) in order, with silence where RTP time
        jumped (DTX or loss), so that the recording keeps the stream's timeline."""
        start = 0 if since is None else int(np.searchsorted(self.arrivals, since))
        for i in range(start, len(self.frames)):
            if i > start:
                p0, p1 = self.pts[i - 1], self.pts[i]
                if p0 is not None and p1 is not None and p1 - p0 > FRAME:
                    missing = min(p1 - p0 - FRAME, 10 * SAMPLE_RATE)
                    t = self.arrivals[i] - missing / SAMPLE_RATE
                    shape = (missing,) if self.channels == 1 else (missing, self.channels)
                    yield np.zeros(shape, np.float32), t
            yield self.frames[i], self.arrivals[i]

    def audio(self, since: float | None = None) -> np.ndarray:
        """The samples heard (from frames arrived at or after `since`, monotonic), with the
        pauses of the stream (DTX) as silence."""
        parts = [x for x, _ in self._segments(since)]
        if parts:
            return np.concatenate(parts)
        return np.zeros(0 if self.channels == 1 else (0, self.channels), np.float32)

    def sample_times(self, since: float | None = None) -> np.ndarray:
        """Ear time of each sample of `audio(since)`: its frame's arrival plus its offset."""
        parts = [t + np.arange(len(x)) / SAMPLE_RATE for x, t in self._segments(since)]
        return np.concatenate(parts) if parts else np.zeros(0)

    def gaps(self, threshold: float = 0.04, since: float | None = None,
             late: float = PERIOD) -> list[float]:
        """Inter-arrival intervals longer than `threshold` s where the stream did not pause.

        A sender that pauses on purpose (DTX: nothing to say) jumps its RTP
        time by the pause; an interval whose RTP time advanced by less than
        the wall time minus `late` (one frame) is a stall the listener hears as a gap.
        """
        return [dt for _, dt in self.gap_times(threshold, since, late)]

    def gap_times(self, threshold: float = 0.04, since: float | None = None,
                  late: float = PERIOD) -> list[tuple[float, float]]:
        """The gaps of `gaps()` as (monotonic time the audio came back, length in s)."""
        out = []
        start = 0 if since is None else int(np.searchsorted(self.arrivals, since))
        for i in range(start + 1, len(self.arrivals)):
            dt = self.arrivals[i] - self.arrivals[i - 1]
            if dt <= threshold:
                continue
            p0, p1 = self.pts[i - 1], self.pts[i]
            if p0 is not None and p1 is not None and p1 > p0 and (p1 - p0) / SAMPLE_RATE >= dt - late:
                continue  # a pause in RTP time as long as the silence: DTX, not a gap
            out.append((self.arrivals[i], float(dt)))
        return out

    def skipped(self, since: float | None = None) -> int:
        """Frames missing from RTP time between consecutive frames (lost, dropped or DTX)."""
        start = 0 if since is None else int(np.searchsorted(self.arrivals, since))
        n = 0
        for i in range(max(start, 1), len(self.pts)):
            p0, p1 = self.pts[i - 1], self.pts[i]
            if p0 is not None and p1 is not None and p1 > p0:
                n += (p1 - p0) // FRAME - 1
        return n

    def save_wav(self, path: str) -> None:
        """Write the recording as 48 kHz mono 16-bit WAV."""
        sf.write(path, self.audio(), SAMPLE_RATE, subtype="PCM_16")


# ------------------------------------------------------------------------ peer


class CountingJitterBuffer(ImmediateJitterBuffer):
    """Records each packet's arrival and RTP time, then drops it undecoded.

    For load tests: a listener that only counts gaps costs no decoding, no
    thread hand-off, no frame on the event loop.
    """

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder
        self._empty = np.zeros(0, np.float32)

    def add(self, packet):
        _, frame = super().add(packet)
        if frame is not None:
            self.recorder.add(self._empty, time.monotonic(), frame.timestamp)
        return False, None


def with_stereo(sdp: str) -> str:
    """The offer with `stereo=1` on its Opus line: "send me stereo" (RFC 7587).

    Only the copy sent to the server changes; aiortc's decoder decodes stereo anyway.
    """
    lines = sdp.split("\r\n")
    opus = {m.group(1) for ln in lines
            if (m := re.fullmatch(r"a=rtpmap:(\d+) opus/48000(/2)?", ln, re.I))}
    fmtp = {ln.split()[0].split(":")[1] for ln in lines if ln.startswith("a=fmtp:")}
    out = []
    for ln in lines:
        pt = ln.split()[0].split(":")[1] if ln.startswith(("a=fmtp:", "a=rtpmap:")) else None
        if ln.startswith("a=fmtp:") and pt in opus and "stereo=1" not in ln:
            ln += ";stereo=1"
        out.append(ln)
        if ln.startswith("a=rtpmap:") and pt in opus and pt not in fmtp:
            out.append(f"a=fmtp:{pt} stereo=1")
    return "\r\n".join(out)


def frame_to_stereo(frame: av.AudioFrame) -> np.ndarray:
    """A decoded frame (aiortc: s16 packed stereo) -> float32 (samples, 2); mono is doubled."""
    channels = len(frame.layout.channels)
    if frame.format.name == "s16" and channels <= 2:
        a = np.frombuffer(frame.planes[0], dtype=np.int16, count=frame.samples * channels)
        x = a.astype(np.float32).reshape(-1, channels) * np.float32(1 / 32768)
        return x if channels == 2 else np.repeat(x, 2, axis=1)
    mono = frame_to_mono(frame)
    return np.stack([mono, mono], axis=1)


class VoicePeer:
    """One client voice connection: offer, answer, mic out, recording in."""

    def __init__(self, source: Source | None = None, *, ice_servers: list[dict] | None = None,
                 encode: bool = True, dtx: bool = False, prefetch: int | None = 0,
                 recorder: Recorder | None = None, decode: bool = True,
                 stereo: bool = False, relay_only: bool = False) -> None:
        """`prefetch`: frames aiortc's jitter buffer holds (0: none, the recording is the
        arrival; None: aiortc's default of 4). `recorder`: append to an existing
        recording (a reconnection keeps one timeline). `decode=False`: record only
        arrival and RTP times (no audio), for load tests. `stereo`: the offer says
        `stereo=1` (as a browser that takes stereo does) and the recording keeps
        both channels. `relay_only`: offer only TURN-relayed candidates (as a phone
        whose network lets nothing else through must use; `ice_servers` name the
        TURN server)."""
        self.mic = MicTrack(source or Silence(), encode=encode, dtx=dtx)
        self.stereo = stereo
        self.recorder = recorder if recorder is not None else Recorder(2 if stereo else 1)
        self._ice_servers = ice_servers
        self._relay_only = relay_only
        self._prefetch = prefetch
        self._decode = decode
        self.pc: RTCPeerConnection | None = None
        self._reader: asyncio.Task | None = None
        self.connected = asyncio.Event()

    async def make_offer(self) -> str:
        """Create the connection and return the offer SDP (ICE candidates included)."""
        rtcp.pace()  # a bot reports as far apart as the browser it stands for
        config = rtc_configuration(self._ice_servers)
        if self._relay_only:
            config.iceTransportPolicy = RTCIceTransportPolicy.RELAY
        pc = self.pc = RTCPeerConnection(config)
        transceiver = pc.addTransceiver(self.mic, direction="sendrecv")
        transceiver.setCodecPreferences([OPUS])
        if not self._decode:
            set_jitter(transceiver.receiver, buffer=CountingJitterBuffer(self.recorder))
        elif self._prefetch is not None:
            set_jitter(transceiver.receiver, self._prefetch)

        @pc.on("track")
        def _on_track(track: MediaStreamTrack) -> None:
            if track.kind == "audio" and self._reader is None:
                self._reader = asyncio.ensure_future(self._record(track))

        @pc.on("connectionstatechange")
        def _on_state() -> None:
            if pc.connectionState == "connected":
                self.connected.set()

        await pc.setLocalDescription(await pc.createOffer())
        sdp = pc.localDescription.sdp
        return with_stereo(sdp) if self.stereo else sdp

    async def accept_answer(self, sdp: str) -> None:
        """Apply the server's answer."""
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="answer"))

    async def connect(self, signal: Callable[[str], Awaitable[str]], timeout: float = 15) -> None:
        """Offer through `signal` (offer SDP -> answer SDP) and wait until connected."""
        answer = await signal(await self.make_offer())
        await self.accept_answer(answer)
        await asyncio.wait_for(self.connected.wait(), timeout)

    async def _record(self, track: MediaStreamTrack) -> None:
        try:
            while True:
                frame = await track.recv()
                pcm = frame_to_stereo(frame) if self.stereo else frame_to_mono(frame)
                self.recorder.add(pcm, time.monotonic(), frame.pts)
        except (MediaStreamError, asyncio.CancelledError):
            pass
        finally:
            self.recorder.done.set()

    async def close(self) -> None:
        """Close the connection (safe to call twice)."""
        self.mic.stop()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self.pc is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.pc.close(), 5)
