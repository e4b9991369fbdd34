"""Instructions per `RoomMixer.tick()` in mixer_bench.py's 16-player room, under callgrind.

Counts instructions, which other processes on a shared machine do not change (wall
time they do). Each timed tick is called through a ctypes callback, so callgrind
counts only what runs inside it (and instruments nothing before the first tick):

    PYTHONHASHSEED=0 valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no \\
        --toggle-collect=closure_fcn --callgrind-out-file=/tmp/tick.cg \\
        .venv/bin/python bench/mixer_icount.py [TREE] [--core] [--ticks 40] [--warmup 20]
    grep ^summary: /tmp/tick.cg     # instructions over --ticks ticks

TREE (default: this checkout) is any tree with audio/ and bench/mixer_bench.py, such
as `git archive <commit> audio bench | tar -x -C TREE`: the room is built by that
tree's own mixer_bench.py, so one commit's tick can be compared with another's.
`--core`: the room without its two drunk voices. PYTHONHASHSEED=0: with random
string hashes the count moves by up to ~2 % between runs (set and dict orders);
with it, by ~0.01 %. Method and figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    """Build the bench room from TREE and run its ticks, the timed ones through ctypes."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("tree", nargs="?", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--core", action="store_true", help="without the drunk voices")
    ap.add_argument("--ticks", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=20)
    args = ap.parse_args(argv)
    tree = os.path.abspath(args.tree)
    sys.path.insert(0, tree)
    import audio
    from audio import FRAME, SAMPLE_RATE, CueBank
    from audio.synth import speech_like

    assert audio.__file__.startswith(tree), audio.__file__
    # The scene from that tree's bench (its players, whispers and cue listeners and
    # its _room/_personalise), without importing its encoders (PyAV) or running them.
    src = (Path(tree) / "bench" / "mixer_bench.py").read_text()
    bench: dict = {}
    exec("from __future__ import annotations\nimport numpy as np\n"  # noqa: S102
         "from audio import FRAME, SAMPLE_RATE, CueBank, DrunkVoice, RoomMixer, Routing\n"
         + src[src.index("PLAYERS =") : src.index("def _encoder")]
         + src[src.index("def _room") : src.index("def _pct")], bench)
    players = bench["PLAYERS"]
    seconds = (args.ticks + args.warmup) * FRAME / SAMPLE_RATE + 1
    voices = [speech_like(seconds, seed=i, f0=90 + 9 * i, level_db=-18.0)
              for i in range(len(players))]
    mixer = bench["_room"](CueBank.load(), drunk=() if args.core else bench["DRUNK"])
    if "_personalise" in bench:
        bench["_personalise"](mixer, False, 0)
    tick = ctypes.CFUNCTYPE(None)(lambda: mixer.tick() and None)
    # under callgrind --instr-atstart=no: instrument from here on (elsewhere: a no-op)
    if shutil.which("callgrind_control"):
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    for t in range(args.warmup + args.ticks):
        for i, p in enumerate(players):
            mixer.push(p, voices[i][t * FRAME : (t + 1) * FRAME])
        if mixer.stats()["cues_playing"] == 0:
            mixer.play_cue("your_turn", bench["CUE_LISTENERS"])
        if t < args.warmup:
            mixer.tick()
        else:
            tick()


if __name__ == "__main__":
    main()
