"""Opus frame size and mode, by measurement: encode/decode CPU, codec delay, bytes on the wire.

    .venv/bin/python bench/opus_frames.py [--seconds 20]

For each frame duration (10 and 20 ms) and application ("voip", the server's
default, and "lowdelay", CELT only) the same speech-like signal
(audio.synth.speech_like) is encoded as the server's encoder does (mono,
32 kb/s, complexity 5, FEC at 5 %) and decoded again, timed with the process
CPU clock; the codec's own delay is read off the decoded signal (the lag of the
cross-correlation peak with the input). The wire cost adds 20 (IPv4) + 8 (UDP)
+ 12 (RTP) + 10 (SRTP tag) bytes per packet, and a packet per frame is what
each listener's send costs the server (aiortc's Python per packet: bench/ROOM.md).

Prints one JSON object; nothing is asserted (figures go to bench/ROOM.md).
"""

from __future__ import annotations

import argparse
import fractions
import json
import os
import sys
import time
from pathlib import Path

import av
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from audio.synth import speech_like  # noqa: E402

RATE = 48000
OVERHEAD = 20 + 8 + 12 + 10  # IPv4 + UDP + RTP + SRTP auth tag, per packet


def encoder(frame_ms: float, application: str) -> av.CodecContext:
    ctx = av.CodecContext.create("libopus", "w")
    ctx.sample_rate = RATE
    ctx.layout = "mono"
    ctx.format = "flt"
    ctx.bit_rate = 32000
    ctx.time_base = fractions.Fraction(1, RATE)
    ctx.options = {"application": application, "compression_level": "5", "fec": "1",
                   "packet_loss": "5", "frame_duration": str(frame_ms)}
    ctx.open()
    return ctx


def measure(x: np.ndarray, frame_ms: float, application: str) -> dict:
    n = int(RATE * frame_ms / 1000)
    enc = encoder(frame_ms, application)
    dec = av.CodecContext.create("opus", "r")
    dec.sample_rate = RATE
    dec.layout = "mono"
    packets, out = [], []
    enc_s = dec_s = 0.0
    for i in range(len(x) // n):
        f = av.AudioFrame.from_ndarray(x[i * n : (i + 1) * n].reshape(1, -1), format="flt", layout="mono")
        f.sample_rate = RATE
        f.pts = i * n
        f.time_base = enc.time_base
        a = time.process_time()
        got = enc.encode(f)
        enc_s += time.process_time() - a
        for p in got:
            packets.append(bytes(p))
            a = time.process_time()
            for frame in dec.decode(av.Packet(bytes(p))):
                out.append(frame.to_ndarray().reshape(-1).astype(np.float32))
            dec_s += time.process_time() - a
    y = np.concatenate(out)
    m = min(len(x), len(y), RATE * 4)
    corr = np.correlate(y[:m].astype(np.float64), x[: m - 2000].astype(np.float64), mode="valid")
    delay = int(np.argmax(corr[:2000]))
    seconds = len(packets) * n / RATE
    payload = sum(len(p) for p in packets)
    return {
        "frame_ms": frame_ms, "application": application,
        "packets_per_s": round(len(packets) / seconds, 1),
        "encode_us_per_audio_s": round(1e6 * enc_s / seconds),
        "decode_us_per_audio_s": round(1e6 * dec_s / seconds),
        "encode_share_of_core": round(enc_s / seconds, 4),
        "codec_delay_ms": round(1000 * delay / RATE, 2),
        "payload_kbps": round(8 * payload / seconds / 1000, 1),
        "wire_kbps": round(8 * (payload + OVERHEAD * len(packets)) / seconds / 1000, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=20.0)
    args = p.parse_args(argv)
    x = speech_like(args.seconds, seed=1, level_db=-12.0).astype(np.float32)
    rows = [measure(x, ms, app) for app in ("voip", "lowdelay") for ms in (20, 10)]
    print(json.dumps({"rows": rows, "load_avg_1min": round(os.getloadavg()[0], 2)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
