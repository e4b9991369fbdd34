"""The speaker's side of a room, offline: what the server plays of a lossy mic, tick by tick.

    .venv/bin/python bench/mic_path.py [--profiles clean,loss3,loss10,bursty,jitter]
        [--seeds 1,2,3,4,5] [--loss-perc 5] [--json]

Needs espeak-ng and `pesq`/`pystoi` (the `test` extras). No browser, no sockets, no
clock: a deterministic replay of the server's receive path, for deciding the playout
policy before `bench/voice_quality.py` (real pages, real network, ±0.3 PESQ a cell)
confirms it.

- **Mic.** The bench's Italian sentences (bench/voice_quality.py), coded as a browser codes
  its mic once the server's answer asks for it (`BROWSER_MIC`: voip, 64 kb/s, in-band FEC,
  `--loss-perc` expected loss: Chromium sets it from the server's receiver reports),
  one packet per 20 ms; in silence a packet every 400 ms only (DTX, as `usedtx=1` asks).
- **Path.** Each packet is sent at its media time and delayed or dropped by the relay's
  seeded profiles (tests/support/udp_relay.py `Impairment`, bench/voice_quality.py
  `PROFILES`).
- **Server.** The packets that arrived before each tick go through the real
  `MicRecovery` (server/media/recovery.py) into the real `JitterQueue` (audio/jitter.py),
  timed as the voice loop times them (`since_pop` from the last tick, RTP time), then
  `settle(dry)` and one `pop` per tick; the tick grid moves earlier by the queue's slack
  as the voice loop moves it (audio/phase.py).
- **Anchor.** The same packets with every lost one rebuilt from the next packet's FEC
  (or concealed where the next one is lost too or carries none), in order, with no
  timing at all: what a receiver with a deep enough buffer (NetEq) can reach.

Each of the three sentences of each seed is found in the output, aligned and scored with
PESQ-WB and STOI against the clean sentence (bench/voice_quality.py's scoring); the
delay is the server's playout delay: mouth to the tick that plays it (the grid's moves
counted), the codec's 6.5 ms look-ahead included. Prints a table (or `--json`); nothing is asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from audio.jitter import JitterQueue  # noqa: E402
from audio.phase import GridPhase  # noqa: E402
from bench.opus_quality import pesq_wb  # noqa: E402
from bench.voice_quality import (  # noqa: E402
    PAD,
    PROFILES,
    RATE,
    locate,
    make_speech,
    stoi16,
)
from server.media.opus import (  # noqa: E402
    BROWSER_MIC,
    FRAME,
    OpusEncoder,
    direct_decoder,
)
from server.media.recovery import MicRecovery  # noqa: E402
from tests.support.udp_relay import Impairment  # noqa: E402

PERIOD = 0.02
DTX_AFTER = 10  # silent frames still sent before DTX starts (libopus: 200 ms)
DTX_EVERY = 20  # frames between two packets of a silent stream (400 ms)
BASE_DELAY = 0.0012  # s: loopback, the relay's hop and the server's socket
LOOPS = 2  # the speech is sent this many times; the last loop is scored


def packets(x: np.ndarray, loss_perc: int) -> list[tuple[int, int, bytes, float]]:
    """(seq, ts, payload, sent_at) of the mic coding `x` (whole frames), with DTX."""
    settings = dataclasses.replace(BROWSER_MIC, packet_loss=loss_perc)
    enc = OpusEncoder(settings)
    out, seq, quiet = [], 1000, 0
    for k in range(len(x) // FRAME):
        frame = x[k * FRAME : (k + 1) * FRAME]
        payload = enc.encode(frame)
        silent = not np.any(frame)
        quiet = quiet + 1 if silent else 0
        if silent and quiet > DTX_AFTER and (quiet - DTX_AFTER - 1) % DTX_EVERY:
            continue  # DTX: the browser sends nothing in a pause but a packet now and then
        out.append((seq & 0xFFFF, (k * FRAME) & 0xFFFFFFFF, payload, k * PERIOD))
        seq += 1
    return out


def arrivals(pkts, profile: dict, seed: str) -> list[tuple[float, int, int, bytes]]:
    """(arrived_at, seq, ts, payload) of the packets that the profile lets through."""
    imp = Impairment(profile, random.Random(seed))
    got = []
    for seq, ts, payload, sent in pkts:
        d = imp.decide(len(payload) + 12, sent)
        if d is not None:
            got.append((sent + BASE_DELAY + d, seq, ts, payload))
    got.sort(key=lambda a: a[0])
    return got


def server_path(got, frames: int, phase0: float = 0.0137) -> tuple[np.ndarray, np.ndarray, dict]:
    """What the server plays of the arrivals, one frame per tick; when each tick came
    (its grid offset, s: the tick of output frame j is at j * PERIOD + grid[j]); and
    its counters."""
    q = JitterQueue()
    dec = direct_decoder()
    if dec is None:
        raise SystemExit("libopus is needed (server.media.opus.direct_decoder)")
    state = {"step_at": None, "batch_at": 0.0}

    def deliver(pcm, ts, at):
        step_at = state["step_at"]
        since = None if step_at is None else ((state["batch_at"] if at is None else at) - step_at) / PERIOD
        if pcm is None:
            if since is not None and ts is not None:
                q.note(since, ts / FRAME)
            return
        if not np.any(np.abs(pcm) > 2.0 / 32768):
            pcm = np.zeros_like(pcm)
        if since is None or ts is None:
            q.push(pcm)
        else:
            q.push(pcm, since, ts / FRAME)

    rec = MicRecovery(dec, deliver)
    out = np.zeros(frames * FRAME + 40 * FRAME, np.float32)
    grid = phase0 * PERIOD  # the tick grid's offset from the sender's clock
    grids = np.zeros(len(out) // FRAME)
    i = 0
    ticks = len(out) // FRAME
    phase = GridPhase()
    for j in range(ticks):
        now = j * PERIOD + grid
        state["batch_at"] = now
        while i < len(got) and got[i][0] <= now:
            at, seq, ts, payload = got[i]
            rec.take(seq, ts, payload, at)
            i += 1
        rec.settle(q.depth < 1.0, now)
        state["step_at"] = now
        grids[j] = grid
        out[j * FRAME : (j + 1) * FRAME] = q.pop()
        move = phase.move(q.slack)
        if move:
            grid -= move * PERIOD
            q.regrid(move)
    counts = rec.counts() | {"underruns": q.underruns, "overflows": q.overflows,
                             "trimmed": q.trimmed, "grid_moved_ms": round(phase.moved * 20, 1)}
    return out, grids, counts


def anchor_path(pkts, got, frames: int) -> np.ndarray:
    """Every packet in order; a lost one rebuilt from the next one's FEC if it came
    (libopus conceals where it carries none), else concealed."""
    dec = direct_decoder()
    arrived = {seq: payload for _, seq, _, payload in got}
    out = np.zeros(frames * FRAME + 40 * FRAME, np.float32)
    pos = 0
    for n, (seq, ts, payload, _) in enumerate(pkts):
        start = ts
        pos = start
        if seq in arrived:
            pcm = dec.decode(payload)
        else:
            nxt = pkts[n + 1] if n + 1 < len(pkts) else None
            if nxt is not None and nxt[0] in arrived and nxt[1] - ts == FRAME:
                pcm = dec.recover(arrived[nxt[0]], FRAME)
            else:
                pcm = dec.recover(None, FRAME)
        out[pos : pos + pcm.size] = pcm[: max(0, len(out) - pos)]
    return out


def score(ref_full: np.ndarray, spans, x: np.ndarray, offset: int, out: np.ndarray,
          grids: np.ndarray | None = None) -> list[dict]:
    """Each sentence of the last loop found in `out` after its spoken place (+offset); its
    delay counts the ticks' real time (`grids`, see server_path)."""
    pad = int(PAD * RATE)
    scores = []
    for a, b in spans:
        ref = ref_full[a:b]
        lo = offset + a - int(0.01 * RATE)
        hi = min(len(out), offset + b + int(0.6 * RATE))
        j, corr = locate(ref, out[lo:hi])
        j += lo
        deg = out[j - pad : j + (b - a) + pad]
        full = ref_full[a - pad : b + pad]
        try:
            p = pesq_wb(full, deg)
        except Exception:  # noqa: BLE001 - PESQ refuses silence
            p = 1.0
        moved = 0.0 if grids is None else grids[min(len(grids) - 1, j // FRAME)]
        scores.append({"pesq_wb": p, "stoi": stoi16(full, deg),
                       "delay_ms": 1000 * ((j - offset - a) / RATE + moved), "corr": corr})
    return scores


def run(profiles: list[str], seeds: list[int], loss_perc: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        sp = make_speech(Path(tmp))
    one = np.concatenate([sp.x, np.zeros(-len(sp.x) % FRAME, np.float32)])
    x = np.tile(one, LOOPS)
    offset = len(one) * (LOOPS - 1)
    frames = len(x) // FRAME
    pkts = packets(x, loss_perc)
    result: dict = {"loss_perc": loss_perc, "cells": {}}
    for profile in profiles:
        rows = {"server": [], "anchor": []}
        counts: dict[str, int] = {}
        for seed in seeds:
            got = arrivals(pkts, PROFILES[profile], f"{seed}/mic/{profile}")
            out, grids, c = server_path(got, frames)
            for k, v in c.items():
                counts[k] = counts.get(k, 0) + v
            rows["server"] += score(x, sp.spans, x, offset, out, grids)
            rows["anchor"] += score(x, sp.spans, x, offset, anchor_path(pkts, got, frames))
        cell = {}
        for path, s in rows.items():
            cell[path] = {
                "pesq_wb": round(statistics.mean(r["pesq_wb"] for r in s), 3),
                "pesq_min": round(min(r["pesq_wb"] for r in s), 3),
                "stoi": round(statistics.mean(r["stoi"] for r in s), 3),
                "delay_ms": round(statistics.median(r["delay_ms"] for r in s), 1),
            }
        cell["server"]["counts"] = counts
        result["cells"][profile] = cell
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profiles", default="clean,loss3,loss10,bursty,jitter")
    p.add_argument("--seeds", default="1,2,3,4,5")
    p.add_argument("--loss-perc", type=int, default=5)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    res = run(a.profiles.split(","), [int(s) for s in a.seeds.split(",")], a.loss_perc)
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"expected loss {res['loss_perc']} %; PESQ-WB mean (min) / STOI / playout delay ms")
    for profile, cell in res["cells"].items():
        s, an = cell["server"], cell["anchor"]
        print(f"{profile:8s} server {s['pesq_wb']:.2f} ({s['pesq_min']:.2f}) {s['stoi']:.3f} "
              f"{s['delay_ms']:6.1f}   anchor {an['pesq_wb']:.2f} ({an['pesq_min']:.2f}) "
              f"{an['stoi']:.3f}   {s['counts']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
