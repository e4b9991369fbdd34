"""Opus encoding of 20 ms mono frames into `av.Packet`s that aiortc only packetises.

Why a wrapper of our own rather than aiortc's encoder: aiortc encodes each
sender's frames itself (stereo, 96 kb/s, complexity 10), once per peer. The
room's listeners often hear the very same mix (silence, or the public debate
minus a speaker who is not themselves), so the voice loop encodes each
*distinct* mix once and hands the same payload to every listener's track.
Opus packets are self-describing: any decoder can decode a packet from any
encoder, so a listener moving from one mix group to another hears at most a
brief artefact where the encoder (its prediction state) changes.
"""

from __future__ import annotations

import fractions
from dataclasses import dataclass

import av
import numpy as np

SAMPLE_RATE = 48000
FRAME = 960  # 20 ms
TIME_BASE = fractions.Fraction(1, SAMPLE_RATE)


@dataclass(frozen=True)
class OpusSettings:
    """Encoder settings; the defaults suit speech on a LAN or a decent uplink."""

    bitrate: int = 32000
    # a stereo mix (voices placed around the table) gets more: two channels of speech
    # at 32 kb/s each would cost twice; Opus codes what they share jointly
    stereo_bitrate: int = 48000
    # 0..10; 5 costs ~150 us per 20 ms frame here, 10 ~200 us, for no audible gain on speech
    complexity: int = 5
    application: str = "voip"
    fec: bool = True  # in-band FEC, so one lost packet is rebuilt from the next
    # Expected loss in percent (FEC needs a non-zero value). The FEC bitrate
    # grows with it and comes out of the 32 kb/s: 5 % keeps the coding noise
    # ~10 dB lower than 10 % while still covering an isolated lost packet.
    packet_loss: int = 5


class OpusEncoder:
    """Streaming Opus encoder: one float32 frame of 960 samples (mono) or 960 x 2
    (stereo, interleaved) in, one payload out."""

    def __init__(self, settings: OpusSettings | None = None, channels: int = 1) -> None:
        s = settings or OpusSettings()
        if channels not in (1, 2):
            raise ValueError("channels: 1 or 2")
        self.channels = channels
        self._layout = "mono" if channels == 1 else "stereo"
        ctx = av.CodecContext.create("libopus", "w")
        ctx.sample_rate = SAMPLE_RATE
        ctx.layout = self._layout
        ctx.format = "flt"
        ctx.bit_rate = s.bitrate if channels == 1 else s.stereo_bitrate
        ctx.time_base = TIME_BASE
        ctx.options = {
            "application": s.application,
            "compression_level": str(s.complexity),
            "fec": "1" if s.fec else "0",
            "packet_loss": str(s.packet_loss if s.fec else 0),
            "frame_duration": "20",
        }
        ctx.open()
        self._ctx = ctx
        self._pts = 0
        self.frames = 0

    def encode(self, pcm: np.ndarray) -> bytes:
        """Encode one 20 ms frame (float32, 960 samples or 960 x 2, [-1, 1]) and return the
        Opus payload.

        libopus (through FFmpeg) returns exactly one packet per 20 ms frame after
        its fixed look-ahead, so the stream never stalls; an empty result (never
        seen in practice) is reported as b"" and the caller skips it.
        """
        x = np.ascontiguousarray(pcm, dtype=np.float32).reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(x, format="flt", layout=self._layout)
        frame.sample_rate = SAMPLE_RATE
        frame.pts = self._pts
        frame.time_base = TIME_BASE
        self._pts += x.shape[1] // self.channels
        self.frames += 1
        packets = self._ctx.encode(frame)
        return b"".join(bytes(p) for p in packets)


class OpusDecoder:
    """Mono float32 decoder, used by tests and bots to read payloads back."""

    def __init__(self) -> None:
        ctx = av.CodecContext.create("libopus", "r")
        ctx.sample_rate = SAMPLE_RATE
        ctx.layout = "mono"
        self._ctx = ctx

    def decode(self, payload: bytes) -> np.ndarray:
        """Decode one payload to float32 mono samples."""
        out = [frame_to_mono(f) for f in self._ctx.decode(av.Packet(payload))]
        return np.concatenate(out) if out else np.zeros(0, np.float32)


def make_packet(payload: bytes, pts: int) -> av.Packet:
    """An `av.Packet` aiortc's sender packetises as is: RTP timestamp from pts in 1/48000."""
    packet = av.Packet(payload)
    packet.pts = pts
    packet.time_base = TIME_BASE
    return packet


_SCALE = {"s16": 1 / 32768.0, "s16p": 1 / 32768.0, "s32": 1 / 2147483648.0,
          "s32p": 1 / 2147483648.0, "flt": 1.0, "fltp": 1.0, "dbl": 1.0, "dblp": 1.0}


def frame_to_mono(frame: av.AudioFrame) -> np.ndarray:
    """Any decoded audio frame (aiortc gives s16 packed stereo) -> float32 mono.

    Does not resample: the caller checks `frame.sample_rate` (Opus always
    decodes at 48 kHz here because the answer only accepts Opus).
    """
    channels = len(frame.layout.channels)
    if frame.format.name == "s16" and channels <= 2:
        # aiortc's case, read straight from the buffer (8x cheaper than to_ndarray)
        a = np.frombuffer(frame.planes[0], dtype=np.int16, count=frame.samples * channels)
        if channels == 1:
            return a.astype(np.float32) * np.float32(1 / 32768)
        return (a[0::2].astype(np.float32) + a[1::2]) * np.float32(0.5 / 32768)
    arr = frame.to_ndarray()
    if frame.format.is_planar:
        mono = arr.mean(axis=0) if channels > 1 else arr[0]
    else:
        flat = arr.reshape(-1)
        mono = flat.reshape(-1, channels).mean(axis=1) if channels > 1 else flat
    return (mono * _SCALE.get(frame.format.name, 1.0)).astype(np.float32, copy=False)
