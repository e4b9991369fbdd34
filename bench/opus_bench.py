"""Cost of one Opus call, libopus called directly (server/media/opus.py) against PyAV / aiortc.

Prints one line per case: microseconds of CPU (time.thread_time_ns) per call,
for the server's hot calls on speech-like audio:

- encode mono / stereo: `OpusEncoder.encode` of one 20 ms frame, direct and PyAV;
- decode: one mic payload to float32 mono, `DirectDecoder.decode` against
  aiortc's `OpusDecoder.decode` + `frame_to_mono` (what MicDecoder did);
- mic packet: the whole `MicDecoder.add` of one packet (jitter check, decode,
  silence check, on_pcm), both paths.

Three patterns: "hot" (calls back to back, mean of --hot calls), "sleep"
(20 ms asleep before each call, as the server's calls come once per tick: median
and mean of --calls calls) and "evict" (the same, with 32 MB of memory read
before each call, so the caches are cold as in a busy server). The direct and
the PyAV call of a case alternate, so both see the same machine.
No assertion: the figures are for bench/ROOM.md and the report of issue 15.

Run: .venv/bin/python bench/opus_bench.py [--calls 200] [--hot 2000] [--no-evict]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aiortc.codecs.opus import OpusDecoder as AiortcOpusDecoder  # noqa: E402
from aiortc.jitterbuffer import JitterFrame  # noqa: E402

from audio.synth import speech_like  # noqa: E402
from server.media import opus  # noqa: E402
from server.media.opus import FRAME, OpusEncoder, frame_to_mono  # noqa: E402
from server.media.rtc import MicDecoder, Peer  # noqa: E402
from server.media.rtp_in import MicPacket  # noqa: E402

SECONDS = 8  # of speech, cycled through


def _with(codec: str, make):
    """`make()` with the direct path allowed ("direct") or forced off ("pyav")."""
    if codec == "pyav":
        os.environ[opus.ENV] = "pyav"
    else:
        os.environ.pop(opus.ENV, None)
    opus.reset()
    try:
        return make()
    finally:
        os.environ.pop(opus.ENV, None)


def _cases():
    """name -> (direct call, PyAV/aiortc call), each taking the call's index."""
    mono = speech_like(SECONDS, seed=1, level_db=-20).astype(np.float32)
    frames = [mono[i:i + FRAME] for i in range(0, len(mono) - FRAME + 1, FRAME)]
    stereo = [np.stack([f, 0.7 * f], axis=1) for f in frames]
    payloads = [OpusEncoder().encode(f) for f in frames]
    k = len(frames)
    cases = {}
    for name, channels, src in (("encode mono", 1, frames), ("encode stereo", 2, stereo)):
        direct = _with("direct", lambda c=channels: OpusEncoder(channels=c))
        pyav = _with("pyav", lambda c=channels: OpusEncoder(channels=c))
        assert direct.direct and not pyav.direct
        cases[name] = (lambda i, e=direct, s=src: e.encode(s[i % k]),
                       lambda i, e=pyav, s=src: e.encode(s[i % k]))

    direct_dec = _with("direct", opus.direct_decoder)
    aiortc_dec = AiortcOpusDecoder()

    def aiortc_decode(i: int) -> None:
        for f in aiortc_dec.decode(JitterFrame(payloads[i % k], i * FRAME)):
            frame_to_mono(f)

    cases["decode"] = (lambda i: direct_dec.decode(payloads[i % k]), aiortc_decode)

    def mic(codec: str):
        peer = Peer(pid="p1", pc=None, track=None)
        dec = _with(codec, lambda: MicDecoder(peer, lambda pid, pcm, ts: None))
        assert (dec._direct is not None) is (codec == "direct")
        seq = [0]

        def add(i: int) -> None:
            seq[0] += 1
            dec.add(MicPacket(seq[0] & 0xFFFF, (seq[0] * FRAME) & 0xFFFFFFFF, 1, 111,
                              payloads[i % k]))
        return add

    cases["mic packet"] = (mic("direct"), mic("pyav"))
    return cases


def _hot(call, n: int) -> float:
    for i in range(50):
        call(i)
    t0 = time.thread_time_ns()
    for i in range(n):
        call(i)
    return (time.thread_time_ns() - t0) / n / 1000


def _cold(direct, pyav, n: int, evict: np.ndarray | None) -> tuple[list[float], list[float]]:
    out: tuple[list[float], list[float]] = ([], [])
    for i in range(n):
        for j, call in enumerate((direct, pyav)):
            time.sleep(0.02)
            if evict is not None:
                evict.sum()  # reads it all: the caches now hold this, not the codec
            t0 = time.thread_time_ns()
            call(i)
            out[j].append((time.thread_time_ns() - t0) / 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=200, help="timed calls per cold pattern")
    ap.add_argument("--hot", type=int, default=2000, help="calls in the hot loop")
    ap.add_argument("--no-evict", action="store_true", help="skip the cache-evicting pattern")
    args = ap.parse_args()
    lib = opus.libopus()
    if lib is None:
        sys.exit("libopus is not usable directly here: nothing to compare")
    print(f"{lib.version} at {lib.path}")
    print(f"{'case':<14} {'pattern':<6} {'direct us':>10} {'pyav us':>10} {'saved':>7}"
          "   (sleep/evict: median, mean in brackets)")
    evict = np.ones(32 * 2**20 // 8)
    patterns = [("sleep", None)] + ([] if args.no_evict else [("evict", evict)])
    for name, (direct, pyav) in _cases().items():
        d, p = _hot(direct, args.hot), _hot(pyav, args.hot)
        print(f"{name:<14} {'hot':<6} {d:>10.1f} {p:>10.1f} {1 - d / p:>7.0%}")
        for pattern, buf in patterns:
            ds, ps = _cold(direct, pyav, args.calls, buf)
            dm, pm = statistics.median(ds), statistics.median(ps)
            print(f"{name:<14} {pattern:<6} {dm:>10.1f} {pm:>10.1f} {1 - dm / pm:>7.0%}"
                  f"   ({statistics.fmean(ds):.1f} / {statistics.fmean(ps):.1f})")


if __name__ == "__main__":
    main()
