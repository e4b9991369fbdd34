"""Opus's two coding modes for the mixes: what each costs per encode, what it does to
speech, how each stands a lost packet, and (stereo) whether each voice keeps its side.

    .venv/bin/python bench/opus_modes.py [--loss 0,5,10] [--seeds 5]

Needs espeak-ng and the `pesq` package (a measuring tool, not a project dependency),
as bench/opus_quality.py. The server's mono encoder is made with each
`Settings.voice_codec`: "silk" (`OpusSettings.for_codec`: application "voip", 32 kb/s,
complexity 5, FEC with 5 % expected loss: libopus codes speech in SILK or hybrid mode,
with SILK's in-band FEC) and "celt" (application "lowdelay", 40 kb/s set: CELT alone,
no in-band FEC, 2.5 ms of look-ahead instead of 6.5). Sentences in Italian,
French and English, alone and two voices at once, go through it and through libopus's
decoder; PESQ (ITU-T P.862.2, wide band) scores each against its input. With loss,
packets are dropped at random (fixed seeds, the same packets for both modes) and each
lost one is handled as Chrome's NetEq does: rebuilt from the next packet's FEC where
that packet carries it, else concealed (libopus's PLC). CPU per encode
(`time.thread_time_ns`): hot (back to back) and cold (20 ms asleep before each call).

Stereo (the mix of a listener with voices around the table): two sentences at once,
one seat on the left and one on the right (`seat_pan(0, 1, 3)`, 12.2 dB), and one
voice alone on the left, through the stereo encoder in each mode and at some
bitrates; PESQ scores each ear against what was sent to it (so a narrowed image
costs points too), and the image is each voice's left/right level difference
while both talk (each ear's output fitted as a mix of the two voices sent).
Nothing is asserted: the figures go to bench/ROOM.md.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from opus_quality import aligned, encode_cost, padded, pesq_wb, sentences_or_why  # noqa: E402

from audio.spatial import seat_pan  # noqa: E402
from server.media import opus  # noqa: E402
from server.media.opus import FRAME, MAX_SAMPLES, SAMPLE_RATE, OpusEncoder, OpusSettings  # noqa: E402


def decode(payloads: list[bytes], lost: set[int]) -> np.ndarray:
    """libopus's mono decoder over `payloads`, each index in `lost` missing: rebuilt from
    the next packet's in-band FEC (decode_fec=1) where the next one arrived, else PLC."""
    lib = opus.libopus()
    err = ctypes.c_int(0)
    st = lib.decoder_create(SAMPLE_RATE, 1, ctypes.byref(err))
    buf = np.zeros(MAX_SAMPLES, np.float32)
    out = []
    try:
        for i, p in enumerate(payloads):
            if i not in lost:
                n = lib.decode_float(st, p, len(p), buf.ctypes.data, MAX_SAMPLES, 0)
            elif i + 1 < len(payloads) and i + 1 not in lost:
                nxt = payloads[i + 1]
                n = lib.decode_float(st, nxt, len(nxt), buf.ctypes.data, FRAME, 1)
            else:
                n = lib.decode_float(st, None, 0, buf.ctypes.data, FRAME, 0)
            if n < 0:
                raise RuntimeError(f"opus_decode_float: {n}")
            out.append(buf[:n].copy())
    finally:
        lib.decoder_destroy(st)
    return np.concatenate(out)


def code(x: np.ndarray, codec: str, lost: set[int]) -> np.ndarray:
    enc = OpusEncoder(OpusSettings.for_codec(codec))
    p = padded(x)
    return aligned(decode([enc.encode(p[i : i + FRAME]) for i in range(0, len(p), FRAME)], lost), x)


def code_stereo(x: np.ndarray, s: OpusSettings) -> tuple[np.ndarray, float]:
    """(n, 2) `x` through the server's stereo encoder and libopus's stereo decoder,
    aligned to `x`, and the payloads' bitrate in kb/s."""
    lib = opus.libopus()
    enc = OpusEncoder(s, channels=2)
    err = ctypes.c_int(0)
    st = lib.decoder_create(SAMPLE_RATE, 2, ctypes.byref(err))
    buf = np.zeros(MAX_SAMPLES * 2, np.float32)
    frames = padded(x)
    n = len(frames)
    out, size = [], 0
    try:
        for i in range(0, n, FRAME):
            p = enc.encode(frames[i : i + FRAME])
            size += len(p)
            k = lib.decode_float(st, p, len(p), buf.ctypes.data, MAX_SAMPLES, 0)
            out.append(buf[: 2 * k].reshape(-1, 2).copy())
    finally:
        lib.decoder_destroy(st)
    return aligned(np.concatenate(out), x), size * 8 / (n / SAMPLE_RATE) / 1000


def images_db(y: np.ndarray, a: np.ndarray, b: np.ndarray, both: np.ndarray) -> tuple[float, float]:
    """Each voice's left/right level difference (dB) in `y`, from the 20 ms frames where
    both sound (`both`, bool per sample): each ear's output fitted by least squares as
    a mix of the two voices sent (coding noise does not correlate with either)."""
    keep = both[: len(y) // FRAME * FRAME].reshape(-1, FRAME).all(axis=1)
    pick = np.repeat(keep, FRAME)
    basis = np.stack([a[: pick.size][pick], b[: pick.size][pick]], axis=1).astype(np.float64)
    gains = [np.linalg.lstsq(basis, y[: pick.size, c][pick], rcond=None)[0] for c in (0, 1)]
    (la, lb), (ra, rb) = gains
    return float(20 * np.log10(abs(la) / abs(ra))), float(20 * np.log10(abs(rb) / abs(lb)))


def stereo_table(voices: list[np.ndarray], calls: int) -> None:
    n = max(voices[0].size, voices[1].size)
    a, b = np.zeros(n, np.float32), np.zeros(n, np.float32)
    a[: voices[0].size], b[: voices[1].size] = voices[0], voices[1]
    (al, ar), (bl, br) = seat_pan(0, 1, 3), seat_pan(0, 2, 3)
    both = np.stack([al * a + bl * b, ar * a + br * b], axis=1).astype(np.float32)
    one = np.stack([al * a, ar * a], axis=1).astype(np.float32)
    env = [np.convolve(np.abs(v), np.ones(480) / 480, "same") for v in (a, b)]
    talking = (env[0] > 0.01) & (env[1] > 0.01)
    sent = 20 * np.log10(al / ar)
    print(f"stereo: each voice sent {sent:.1f} dB toward its side")
    print(f"{'mode':>9} {'kb/s set':>8} {'kb/s':>5} {'hot us':>7} {'cold us':>8} "
          f"{'2 voices PESQ L/R':>18} {'image L/R dB':>13} {'1 voice PESQ L/R':>17}")
    for app, rate in (("voip", 48000), ("voip", 96000), ("lowdelay", 48000), ("lowdelay", 64000)):
        s = OpusSettings(stereo_application=app, stereo_bitrate=rate)
        y, kbps = code_stereo(both, s)
        p2 = [pesq_wb(both[:, c], y[:, c]) for c in (0, 1)]
        img = images_db(y, a, b, talking)
        y1, _ = code_stereo(one, s)
        p1 = [pesq_wb(one[:, c], y1[:, c]) for c in (0, 1)]
        costs = {cold: encode_cost(OpusEncoder(s, channels=2), both, count, cold)
                 for cold, count in ((False, 1000), (True, calls))}
        print(f"{app:>9} {rate // 1000:>8} {kbps:>5.0f} {costs[False]:>7.0f} {costs[True]:>8.0f} "
              f"{p2[0]:>9.2f}/{p2[1]:.2f} {img[0]:>8.1f}/{img[1]:.1f} {p1[0]:>12.2f}/{p1[1]:.2f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--loss", default="0,5,10", help="percent of packets lost, comma-separated")
    p.add_argument("--seeds", type=int, default=5, help="loss patterns per rate (averaged)")
    p.add_argument("--calls", type=int, default=150, help="cold encodes per mode")
    args = p.parse_args()
    got = sentences_or_why() if opus.libopus() else "libopus is not usable directly here"
    if isinstance(got, str):
        print(got, file=sys.stderr)
        return 1
    voices, pair = got
    clips = voices + [pair]
    codecs = ("silk", "celt")
    print(f"{'codec':>9} {'hot us':>7} {'cold us':>8} {'kb/s':>5}")
    for codec in codecs:
        settings = OpusSettings.for_codec(codec)
        x = voices[0]
        enc = OpusEncoder(settings)
        size = sum(len(enc.encode(x[i : i + FRAME])) for i in range(0, x.size - FRAME, FRAME))
        kbps = size * 8 / (x.size / SAMPLE_RATE) / 1000
        hot = encode_cost(OpusEncoder(settings), x, 1000, cold=False)
        cold = encode_cost(OpusEncoder(settings), x, args.calls, cold=True)
        print(f"{codec:>9} {hot:>7.0f} {cold:>8.0f} {kbps:>5.1f}")
    print()
    print(f"{'loss %':>6} {'codec':>9} {'PESQ it/fr/en':>20} {'2 voices':>9} {'mean':>6}")
    for pct in [float(v) for v in args.loss.split(",")]:
        for codec in codecs:
            per_clip = []
            for x in clips:
                frames = -(-x.size // FRAME) + 2
                seeds = range(args.seeds) if pct > 0 else range(1)
                scores = []
                for seed in seeds:
                    rng = np.random.default_rng(1000 + seed)
                    lost = {i for i in range(frames) if rng.random() < pct / 100}
                    scores.append(pesq_wb(x, code(x, codec, lost)))
                per_clip.append(statistics.mean(scores))
            alone = "/".join(f"{s:.2f}" for s in per_clip[:3])
            print(f"{pct:>6.0f} {codec:>9} {alone:>20} {per_clip[3]:>9.2f} "
                  f"{statistics.mean(per_clip):>6.2f}")
    print()
    stereo_table(voices, args.calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
