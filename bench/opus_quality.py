"""Opus complexity: what each setting costs per encode and what it does to speech.

    .venv/bin/python bench/opus_quality.py [--complexities 0,1,2,3,4,5,6,8,10]

Needs espeak-ng (speech in Italian, French and English) and the `pesq` package
(`pip install pesq`; not a project dependency: this is a measuring tool).
For each complexity, the server's encoder (`server.media.opus.OpusEncoder`, mono
32 kb/s, FEC, 5 % expected loss: `OpusSettings` with only the complexity
changed) codes the sentences, alone and as a mix of two voices at once (the
server encodes mixes); the server's decoder reads them back, and
PESQ (ITU-T P.862.2, wide band, 16 kHz) scores the result against the input
(MOS-LQO, 1..4.64). CPU per encode (`time.thread_time_ns`) is given hot (calls
back to back) and cold (a 20 ms sleep before each call, as in the voice loop).
Nothing is asserted: the figures go to bench/ROOM.md.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

import numpy as np
from scipy.signal import resample_poly

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.media.opus import FRAME, OpusDecoder, OpusEncoder, OpusSettings  # noqa: E402

SENTENCES = [
    ("it", "Ciao a tutti, chi è l'intruso stasera? Io direi che la parola era mare."),
    ("fr", "Je pense que l'infiltré parle trop vite, écoutez bien son indice."),
    ("en", "I was sure the werewolves would pick the quiet one first, weren't you?"),
]


def speech(lang: str, text: str, tmp: Path) -> np.ndarray:
    """espeak-ng's voice at 48 kHz, float32, -20 dBFS RMS."""
    wav = tmp / f"{lang}.wav"
    subprocess.run(["espeak-ng", "-v", lang, "-s", "150", "-w", str(wav), text], check=True)
    with wave.open(str(wav)) as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16) / 32768.0
    y = resample_poly(x, 48000, rate)
    y = y / np.sqrt(np.mean(y**2)) * 10 ** (-20 / 20)
    return y.astype(np.float32)


def padded(x: np.ndarray) -> np.ndarray:
    """`x` (mono, or (n, 2) stereo) with zeros up to whole frames and two more frames, so
    that the codec's delay does not cut the end off."""
    n = -(-len(x) // FRAME) * FRAME + 2 * FRAME
    out = np.zeros((n, *x.shape[1:]), np.float32)
    out[: len(x)] = x
    return out


def aligned(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The part of the decoded `out` that lines up with `x`: Opus's algorithmic delay is
    the lag of the best match (of the channels' mean) over the first 20 ms."""
    ref, got = (x.mean(axis=1), out.mean(axis=1)) if x.ndim == 2 else (x, out)
    d = int(np.argmax([float(np.dot(got[d : d + len(x)], ref)) for d in range(FRAME)]))
    return out[d : d + len(x)]


def code(x: np.ndarray, complexity: int) -> np.ndarray:
    """`x` through the server's encoder and decoder, aligned to `x`."""
    enc, dec = OpusEncoder(OpusSettings(complexity=complexity)), OpusDecoder()
    p = padded(x)
    out = np.concatenate([dec.decode(enc.encode(p[i : i + FRAME])) for i in range(0, len(p), FRAME)])
    return aligned(out, x)


def pesq_wb(ref: np.ndarray, deg: np.ndarray) -> float:
    from pesq import pesq

    r = resample_poly(ref, 1, 3).astype(np.float64)
    g = resample_poly(deg, 1, 3).astype(np.float64)
    return float(pesq(16000, r, g, "wb"))


def encode_cost(enc: OpusEncoder, x: np.ndarray, calls: int, cold: bool) -> float:
    """Median CPU (us, the thread's clock) of `calls` encodes of `x`'s 20 ms frames (mono,
    or (n, 2) stereo) in turn; `cold`: 20 ms asleep before each, as in the voice loop."""
    frames = [x[i : i + FRAME] for i in range(0, len(x) - FRAME, FRAME)]
    costs = []
    for k in range(calls):
        if cold:
            time.sleep(0.02)
        t = time.thread_time_ns()
        enc.encode(frames[k % len(frames)])
        costs.append(time.thread_time_ns() - t)
    return statistics.median(costs) / 1000


def sentences_or_why() -> tuple[list[np.ndarray], np.ndarray] | str:
    """The SENTENCES spoken (espeak-ng) and the first two at once, or why they cannot be
    scored here (a missing tool)."""
    if shutil.which("espeak-ng") is None:
        return "espeak-ng is needed"
    try:
        import pesq  # noqa: F401
    except ImportError:
        return "the pesq package is needed: pip install pesq"
    with tempfile.TemporaryDirectory() as tmp:
        voices = [speech(lang, text, Path(tmp)) for lang, text in SENTENCES]
    pair = np.zeros(max(voices[0].size, voices[1].size), np.float32)
    pair[: voices[0].size] += voices[0]
    pair[: voices[1].size] += voices[1]
    return voices, pair


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--complexities", default="0,1,2,3,4,5,6,8,10")
    p.add_argument("--calls", type=int, default=150, help="cold encodes per complexity")
    args = p.parse_args()
    got = sentences_or_why()
    if isinstance(got, str):
        print(got, file=sys.stderr)
        return 1
    voices, pair = got
    print(f"{'complexity':>10} {'PESQ it/fr/en':>20} {'PESQ 2 voices':>14} {'hot us':>7} {'cold us':>8}")
    for c in [int(v) for v in args.complexities.split(",")]:
        scores = [pesq_wb(v, code(v, c)) for v in voices]
        mixed = pesq_wb(pair, code(pair, c))
        settings = OpusSettings(complexity=c)
        hot = encode_cost(OpusEncoder(settings), voices[0], 1000, cold=False)
        cold = encode_cost(OpusEncoder(settings), voices[0], args.calls, cold=True)
        print(f"{c:>10} {'/'.join(f'{s:.2f}' for s in scores):>20} {mixed:>14.2f} {hot:>7.0f} {cold:>8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
