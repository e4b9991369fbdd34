"""Mouth-to-page latency: a bot speaks bursts at known times, real browser pages time them.

    .venv/bin/python bench/browser_latency.py [--seconds 12] [--browsers chromium,firefox]
                                              [--stalls] [--receiver app|default]

Firefox's page needs Debian's pulseaudio (scripts/bench_setup.sh installs it) for a
real-time audio clock; without it the bench falls back to Firefox's mock output and says so.

One real `sussurro serve` on 127.0.0.1, three players in one room (the lobby,
where everyone hears everyone):
- the speaker, a bot (client.bot.Bot, real aiortc + Opus), says a 2 kHz burst
  every `--every` frames, its onset moved through the 20 ms capture frame from
  burst to burst (so capture framing is sampled, not fixed at its worst);
- the ear, a bot in the same process, records what it receives (no jitter
  buffer): the bot-to-bot figure of the same run, as bench/room_bench.py;
- the page, real Chromium (tests/browser/harness.py's flags) running the real
  web client, joined by link, listening only. Beside the app's own graph the
  bench adds its own AudioContext: the received track (the <audio> element's
  stream, as the app plays it) through a 2 kHz band-pass into an AudioWorklet
  that reports the context frame of the first sample above threshold after
  100 ms below it (sample-accurate within the graph);
- with `--browsers chromium,firefox` (the default), a Firefox ESR page beside it in
  the same room and run (tests/browser/firefox.py, WebDriver BiDi), its detector a
  ScriptProcessor with the same filters, onset rule and calibration (INSTALL_SP).
  Firefox runs its audio graph on its output stream; with no sound card the bench
  starts its own PulseAudio daemon with a null sink (null_sink(): private runtime
  dir, gone with the bench), which consumes the stream on the system's clock, so
  the graph runs in real time.

Clock: the detector's context frames are put on the page's wall clock by a
local signal: every second the page starts a 2 kHz oscillator "now"
(performance.now() read just before), through the same band-pass and the
same detector on a second input; the median of (start time - detected frame
time) over the nearest calibrations is the offset. This cancels the filter's
and threshold's delay and the graph's render-ahead: a remote onset's time is
"when it was available to the page's audio graph", what a local source started
at that moment would be. The page's clock (timeOrigin + now) and Python's
time.time() are compared by round trips (the skew is printed and removed).
Printed per phase under `audio_clock`: the audio clock's drift against the page's
clock (ms per 10 s, ~0 for a real-time output), its steps (ms the graph lost when
its audio thread was starved on a loaded machine: the offset moves and stays) and
the offsets' spread. Detections are placed with the calibrations on their side of a
step; one heard between the two calibrations around a step is left out (counted).

Two phases, each `--seconds` long: `quiet` (the speaker sends only its bursts,
DTX between them, as a browser between words) and `continuous` (a 250 Hz bed
under the bursts, the stream never pauses). Printed per phase: median / p95 /
max into the page and bot to bot, and the breakdown that can be measured:
capture framing (mean wait from onset to the end of its frame), the server's
inbound queue (its mean depth from /metrics, x 20 ms) and tick cost (mix +
encode), the rest of the bot-to-bot path (tick phase, network, decode), the
browser's jitter buffer (getStats: jitterBufferDelay / jitterBufferEmittedCount
over the phase, and its target), and what is left up to the graph (decode,
10 ms playout chunks, the MediaStream source's FIFO).

`--receiver default` resets the page's receiver to the browser's own playout
delay (jitterBufferTarget = null) after it connects, for a before/after of
web/js/rtc.js's receiver setting; `app` leaves what the app asked for.

`--stalls` adds a third phase: continuous speech whose sender stalls 200 ms
every 3.1 s and then sends what it owes at once (a catch-up burst); the bursts
spoken within 0.5 s after a stall and those spoken later are reported apart
(bot to bot is left out there: the ear bot shares the stalled loop).

Bounded: about 2 (or 3) x seconds + 30 s. Prints one JSON object, with the 1-minute load
average at the start, at each phase's end and at the end; nothing is asserted (figures go
to bench/ROOM.md and docs/browsers.md, with the machine's load).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client.rtc_peer import Source  # noqa: E402
from server.media.opus import FRAME, SAMPLE_RATE  # noqa: E402

BURST_HZ = 2000.0
BED_HZ = 250.0
BURST_LEVEL = 0.5
BURST_SAMPLES = 3840  # 80 ms
THRESHOLD = 0.12  # on the band-passed signal (a 0.5 burst reads ~0.5, the bed ~0.003)
HOLD_S = 0.1  # below threshold this long re-arms the detector
STALL = 0.2  # s the speaker's loop blocks in the `stalls` phase
STALL_EVERY = 3.1  # s between two stalls (not a multiple of the bursts' 0.5 s)

# Wraps RTCPeerConnection so the bench can read the app's receiver (getStats, playout).
PC_HOOK = """(() => {
  const P = window.RTCPeerConnection;
  window.__pcs = [];
  window.RTCPeerConnection = class extends P {
    constructor(...a) { super(...a); window.__pcs.push(this); }
  };
})();"""

WORKLET = """
class Onset extends AudioWorkletProcessor {
  constructor(opts) {
    super();
    const p = opts.processorOptions;
    this.thr = p.thr;
    this.hold = p.hold;
    this.below = [p.hold, p.hold];
  }
  process(inputs) {
    for (let k = 0; k < 2; k++) {
      const ch = inputs[k] && inputs[k][0];
      if (!ch) { this.below[k] += 128; continue; }
      for (let i = 0; i < ch.length; i++) {
        if (Math.abs(ch[i]) > this.thr) {
          if (this.below[k] >= this.hold) this.port.postMessage({ input: k, frame: currentFrame + i });
          this.below[k] = 0;
        } else {
          this.below[k] += 1;
        }
      }
    }
    return true;
  }
}
registerProcessor("onset", Onset);
"""

# What both detectors share: the page's context, the 2 kHz band-pass, the local
# calibration oscillator and the record of onsets. `(LAT_COMMON)(hz)` returns `lat`; a
# detector feeds the received stream through `lat.band()` into its input 0 and
# `lat.localBand` into its input 1, calls `lat.onset(input, contextFrame)` for each onset
# it finds, and `lat.start(node)` with its last node (muted into the destination). Every
# second `lat` starts the oscillator "now" (performance.now() read just before): the
# calibration pairs (that time, the frame it was detected at) put context frames on the
# page's clock. One snippet, so the two browsers are calibrated alike.
LAT_COMMON = """(hz) => {
  const ctx = new AudioContext({ latencyHint: "interactive", sampleRate: 48000 });
  const band = () => {
    const b = ctx.createBiquadFilter();
    b.type = "bandpass"; b.frequency.value = hz; b.Q.value = 4;
    return b;
  };
  const localBand = band();
  const out = { remote: [], cal: [], rate: ctx.sampleRate, timeOrigin: performance.timeOrigin };
  let pending = null;
  const calibrate = () => {
    if (pending !== null) return;
    const osc = ctx.createOscillator();
    const g = ctx.createGain();
    osc.frequency.value = hz;
    g.gain.value = 0.5;
    osc.connect(g).connect(localBand);
    pending = performance.now();
    osc.start();
    osc.stop(ctx.currentTime + 0.08);
  };
  return {
    ctx, band, localBand, out,
    onset(input, frame) {
      if (input === 0) out.remote.push(frame);
      else if (pending !== null) { out.cal.push([pending, frame]); pending = null; }
    },
    async start(node) {
      const mute = ctx.createGain();
      mute.gain.value = 0;
      node.connect(mute).connect(ctx.destination);
      await ctx.resume();
      setInterval(calibrate, 1000);
      window.__lat = out;
      return ctx.state;
    },
  };
}"""

# Chromium's detector: the onset rule in an AudioWorklet (sample-accurate context frames).
INSTALL = """async ([worklet, hz, thr, hold]) => {
  const lat = (""" + LAT_COMMON + """)(hz);
  const ctx = lat.ctx;
  const url = URL.createObjectURL(new Blob([worklet], { type: "text/javascript" }));
  await ctx.audioWorklet.addModule(url);
  const node = new AudioWorkletNode(ctx, "onset", {
    numberOfInputs: 2, numberOfOutputs: 1, channelCount: 1, channelCountMode: "explicit",
    processorOptions: { thr, hold: Math.round(hold * ctx.sampleRate) },
  });
  ctx.createMediaStreamSource(document.getElementById("remote-audio").srcObject)
    .connect(lat.band()).connect(node, 0, 0);
  lat.localBand.connect(node, 0, 1);
  node.port.onmessage = (e) => lat.onset(e.data.input, e.data.frame);
  return lat.start(node);
}"""

# Firefox's detector: the same band-passes and the same onset rule in a ScriptProcessorNode
# (the page's Content-Security-Policy, script-src 'self', refuses a blob: worklet module,
# and WebDriver BiDi has no switch to bypass it as Playwright's Chromium has). Frames are
# counted by the processor itself, the remote and the local input on one count, so its
# buffering delay is the same for both and the calibration cancels it as before. Counted,
# not read from playbackTime: Firefox's playbackTime adds the processor's output queue,
# which grows when the main thread is late (256 to 9088 frames over one loaded run), while
# the input count kept to the context's currentTime within its 10 ms steps.
INSTALL_SP = """async ([hz, thr, hold]) => {
  const lat = (""" + LAT_COMMON + """)(hz);
  const ctx = lat.ctx;
  const proc = ctx.createScriptProcessor(256, 2, 1);
  const merge = ctx.createChannelMerger(2);
  ctx.createMediaStreamSource(document.getElementById("remote-audio").srcObject)
    .connect(lat.band()).connect(merge, 0, 0);
  lat.localBand.connect(merge, 0, 1);
  merge.connect(proc);
  const holdN = Math.round(hold * ctx.sampleRate);
  const below = [holdN, holdN];
  let counted = 0;   // input frames so far: the context frame, less a constant the calibration absorbs
  proc.onaudioprocess = (e) => {
    const frame = counted;
    counted += e.inputBuffer.length;
    for (let k = 0; k < 2; k++) {
      const ch = e.inputBuffer.getChannelData(k);
      for (let i = 0; i < ch.length; i++) {
        if (Math.abs(ch[i]) > thr) {
          if (below[k] >= holdN) lat.onset(k, frame + i);
          below[k] = 0;
        } else {
          below[k] += 1;
        }
      }
    }
  };
  window.__spKeep = proc;   // a ScriptProcessor nobody references may be collected
  return lat.start(proc);
}"""

STATS = """async () => {
  const pc = window.__pcs.find((p) => p.connectionState === "connected");
  if (!pc) return null;
  const r = {};
  (await pc.getStats()).forEach((s) => {
    if (s.type === "inbound-rtp" && s.kind === "audio") Object.assign(r, s);
  });
  const rx = pc.getReceivers()[0];
  r.receiverTarget = rx && "jitterBufferTarget" in rx ? rx.jitterBufferTarget : "n/a";
  r.playoutDelayHint = rx && "playoutDelayHint" in rx ? rx.playoutDelayHint : "n/a";
  return r;
}"""


class Bursts(Source):
    """A 2 kHz burst every `every` frames, its onset `(k * 331) % 960` samples into its frame;
    with `bed`, a quiet 250 Hz tone under everything (a stream that never pauses)."""

    def __init__(self, every: int = 25, first: int = 25) -> None:
        self.every = every
        self.first = first
        self.bed = False
        t = np.arange(BURST_SAMPLES) / SAMPLE_RATE
        self.burst = (BURST_LEVEL * np.sin(2 * np.pi * BURST_HZ * t)).astype(np.float32)

    def onset(self, k: int) -> int:
        """Mic sample number of burst k's first sample."""
        return (self.first + k * self.every) * FRAME + (k * 331) % FRAME

    def frame(self, n: int) -> np.ndarray:
        out = np.zeros(FRAME, np.float32)
        if self.bed:
            t = (np.arange(FRAME) + n * FRAME) / SAMPLE_RATE
            out += (0.1 * np.sin(2 * np.pi * BED_HZ * t)).astype(np.float32)
        lo, hi = n * FRAME, (n + 1) * FRAME
        k = max(0, (n - self.first) // self.every)
        for j in (k - 1, k):
            if j < 0:
                continue
            s = self.onset(j)
            a, b = max(lo, s), min(hi, s + BURST_SAMPLES)
            if a < b:
                out[a - lo : b - lo] += self.burst[a - s : b - s]
        return out

    def onsets_between(self, n0: int, n1: int) -> list[int]:
        """Onset samples of the bursts whose frame is in [n0, n1)."""
        return [self.onset(k) for k in range(max(0, (n0 - self.first) // self.every),
                                           max(0, (n1 - self.first) // self.every + 1))
                if n0 * FRAME <= self.onset(k) < n1 * FRAME]


def bot_latencies(mic, recorder, onsets: list[int]) -> list[float]:
    """Mouth-to-ear (s) of each onset in the ear bot's recording (arrival times, no jitter buffer)."""
    from tests.e2e.spectrum import band

    x = recorder.audio()
    if len(x) == 0:
        return []
    ears = recorder.sample_times()
    hot = np.flatnonzero(np.abs(band(x, BURST_HZ, 300)) > THRESHOLD)
    out = []
    for s in onsets:
        mouth = mic.mouth_time(s)
        i = np.searchsorted(ears[hot], mouth) if len(hot) else 0
        if i < len(hot) and ears[hot[i]] - mouth < 0.4:
            out.append(float(ears[hot[i]] - mouth))
    return out


def page_skew(page, tries: int = 15) -> float:
    """Page epoch clock minus Python's time.time(), in s, from the tightest round trip."""
    best = None
    for _ in range(tries):
        a = time.time()
        p = page.evaluate("() => performance.timeOrigin + performance.now()") / 1000.0
        b = time.time()
        if best is None or b - a < best[0]:
            best = (b - a, p - (a + b) / 2)
    return best[1]


STEP_MS = 40.0  # a change of the calibration offset this large is the audio clock losing time


def calibrations(lat: dict) -> tuple[np.ndarray, np.ndarray, list[tuple[int, float]]]:
    """The page's calibrations in order: their detection time on the audio clock (context
    ms), their offset to the page's clock (start time - detection time, ms), and the clock
    steps among them as (index of the first calibration after the step, its size in ms).

    A real-time audio clock keeps the offset steady to within its render quantum; when the
    audio thread is starved (a loaded machine) the graph renders late and never catches
    up, and the offset steps up by what it lost. A clock that runs at the wrong rate
    (Firefox's mock output) moves it by about as much from each calibration to the next:
    that trend is the median change, and a step is a change further than STEP_MS from it
    that the three calibrations before and after agree on."""
    rate = lat["rate"]
    cal = sorted((f / rate * 1000.0, t0 - f / rate * 1000.0) for t0, f in lat["cal"])
    if not cal:
        return np.array([]), np.array([]), []
    at, off = np.array(cal).T
    trend = float(np.median(np.diff(off))) if len(off) > 1 else 0.0
    steps = []
    for i in range(1, len(off)):
        before, after = off[max(0, i - 3):i], off[i:i + 3]
        # the two medians are (len(before) + len(after)) / 2 calibrations apart
        change = float(np.median(after) - np.median(before)) - trend * (len(before) + len(after)) / 2
        if abs(off[i] - off[i - 1] - trend) > STEP_MS and abs(change) > STEP_MS:
            steps.append((i, change))
    return at, off, steps


def page_latencies(lat: dict, mouths_epoch: list[float], skew: float) -> tuple[list[float], int]:
    """Mouth-to-page (s) of each mouth time, from the page's detections; also how many
    detections were left out for falling between the two calibrations of a clock step
    (which side of it they were on cannot be told)."""
    at_cal, off, steps = calibrations(lat)
    if not len(off):
        return [], 0
    bounds = [0] + [i for i, _ in steps] + [len(off)]
    ears, skipped = [], []
    for f in lat["remote"]:
        at = f / lat["rate"] * 1000.0
        j = int(np.searchsorted(at_cal, at))
        if 0 < j < len(off) and j in bounds[1:-1]:
            skipped.append((lat["timeOrigin"] + at + float(off[j])) / 1000.0 - skew)
            continue
        # the nearest calibrations on the audio clock, on the detection's side of any step
        k = max(b for b in bounds if b <= max(j - 1, 0))
        lo, hi = k, min(b for b in bounds if b > k)
        seg = np.arange(lo, hi)
        near = seg[np.argsort(np.abs(at_cal[seg] - at))[:7]]
        ears.append((lat["timeOrigin"] + at + float(np.median(off[near]))) / 1000.0 - skew)
    ears = np.array(sorted(ears))
    out = []
    for m in mouths_epoch:
        i = np.searchsorted(ears, m)
        if i < len(ears) and ears[i] - m < 0.4:
            out.append(float(ears[i] - m))
    if mouths_epoch:
        first, last = min(mouths_epoch), max(mouths_epoch) + 0.4
        straddling = sum(first <= e <= last for e in skipped)
    else:
        straddling = 0
    return out, straddling


def clock_figures(lat: dict, t_from: float, t_to: float) -> dict:
    """The page's audio clock against its wall clock over [t_from, t_to] (page ms): its
    steps (ms lost each time the graph was starved), its drift between them (ms per 10 s,
    positive when the audio clock runs slow: the least-squares slope of the offsets, the
    steps taken out) and the offsets' spread around that (interquartile range, ms). A
    real-time output reads a drift of ~0; Firefox's mock output lost seconds per phase."""
    at_cal, off, steps = calibrations(lat)
    t0 = at_cal + off   # each calibration's start on the page's clock
    level = off.copy()
    for i, size in steps:
        level[i:] -= size
    inside = (t0 >= t_from) & (t0 <= t_to)
    out: dict = {"calibrations": int(inside.sum()),
                 "steps_ms": [round(size, 1) for i, size in steps if t_from <= t0[i] <= t_to]}
    if inside.sum() >= 3:
        out["drift_ms_per_10_s"] = round(float(np.polyfit(t0[inside], level[inside], 1)[0]) * 10_000, 1)
        q75, q25 = np.percentile(level[inside], [75, 25])
        out["offset_iqr_ms"] = round(float(q75 - q25), 2)
    return out


def after_stalls(lat: dict, mouths: list[float], mono_to_epoch: float, skew: float,
                 stalls: list[float]) -> dict:
    """Latency into the page of the bursts spoken within 0.5 s after a stall's end, and
    of those spoken later (back at the usual latency if the server's queue recovered)."""
    ends = np.array(stalls) + STALL
    soon, later = [], []
    for m in mouths:
        got, _ = page_latencies(lat, [m + mono_to_epoch], skew)
        if not got or not len(ends):
            continue
        past = ends[ends <= m]
        if past.size and m - past[-1] <= 0.5:
            soon.append(got[0])
        elif past.size:
            later.append(got[0])
    return {"within_0_5_s_after_stall_ms": summary(soon), "later_ms": summary(later)}


def summary(xs: list[float]) -> dict:
    if not xs:
        return {"n": 0}
    ms = 1000 * np.array(xs)
    return {"n": len(xs), "median": round(float(np.median(ms)), 1),
            "p95": round(float(np.percentile(ms, 95)), 1), "max": round(float(ms.max()), 1)}


def _metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def jb_delta(s0: dict, s1: dict) -> dict:
    """Mean jitter-buffer delay, target and minimum (ms) over the phase, from getStats."""
    n = s1.get("jitterBufferEmittedCount", 0) - s0.get("jitterBufferEmittedCount", 0)
    out = {"emitted": n}
    for key in ("jitterBufferDelay", "jitterBufferTargetDelay", "jitterBufferMinimumDelay"):
        if key in s1 and n > 0:
            out[key + "_ms"] = round(1000 * (s1[key] - s0.get(key, 0)) / n, 1)
    for key in ("concealedSamples", "totalSamplesReceived", "packetsReceived"):
        if key in s1:
            out[key] = s1[key] - s0.get(key, 0)
    out["receiverTarget"] = s1.get("receiverTarget")
    out["playoutDelayHint"] = s1.get("playoutDelayHint")
    return out


def phase_figures(page, phase: str, onsets: list[int], mouths: list[float], mono_to_epoch: float,
                  bot_lat: list[float], s0: dict, s1: dict, m0: str, m1: str, stalls: list[float]) -> dict:
    """One page's figures for one phase (the bursts' mouth times known)."""
    lat = page.evaluate("() => window.__lat")
    skew = page_skew(page)
    page_lat, straddling = page_latencies(lat, [m + mono_to_epoch for m in mouths], skew)
    # the phase's span on the page's clock (ms since its timeOrigin)
    span = [(m + mono_to_epoch + skew) * 1000.0 - lat["timeOrigin"] for m in mouths[:1] + mouths[-1:]]
    framing = [1000 * (FRAME - s % FRAME) / SAMPLE_RATE for s in onsets]
    depth = _metric(m1, "sussurro_voice_jitter_depth_mean")
    jb = jb_delta(s0, s1)
    p, b = summary(page_lat), summary(bot_lat)
    phase_out = {
        "bursts": len(onsets),
        "into_page_ms": p,
        "bot_to_bot_ms": b,
        "audio_clock": clock_figures(lat, *span) if span else {},
        "detections_across_a_clock_step": straddling,
        "breakdown_ms": {
            "capture_framing_mean": round(statistics.fmean(framing), 1) if framing else None,
            "server_queue_mean": round(20 * depth, 1),
            "server_tick_median": round(_metric(m1, "sussurro_mixer_tick_us_median") / 1000, 2),
            # how long the talker's worst frames wait for their tick (the
            # grid moves to make it small), at the phase's end
            "server_playout_slack": round(20 * _metric(m1, "sussurro_voice_playout_slack"), 1),
        },
        "browser_jitter_buffer": jb,
        "server": {
            "jitter_depth_mean_frames": depth,
            "underruns": _metric(m1, "sussurro_jitter_underruns_total")
            - _metric(m0, "sussurro_jitter_underruns_total"),
            "overflows": _metric(m1, "sussurro_jitter_overflows_total")
            - _metric(m0, "sussurro_jitter_overflows_total"),
        },
    }
    bd = phase_out["breakdown_ms"]
    if b.get("n") and bd["capture_framing_mean"] is not None:
        # tick phase (0-20 ms), network and the bot's decode: the rest of bot to bot
        bd["tick_phase_network_decode"] = round(
            b["median"] - bd["capture_framing_mean"] - bd["server_queue_mean"], 1)
    if p.get("n") and b.get("n"):
        bd["browser_total_after_arrival"] = round(p["median"] - b["median"], 1)
        if "jitterBufferDelay_ms" in jb:
            bd["browser_jitter_buffer"] = jb["jitterBufferDelay_ms"]
            bd["browser_decode_playout_graph"] = round(
                p["median"] - b["median"] - jb["jitterBufferDelay_ms"], 1)
    if phase == "stalls":
        # bot to bot is meaningless here (the ear shares the stalled loop)
        phase_out.pop("bot_to_bot_ms")
        phase_out["breakdown_ms"] = {}
        phase_out["stalls"] = len(stalls)
        phase_out.update(after_stalls(lat, mouths, mono_to_epoch, skew, stalls))
    return phase_out


def open_chromium(stack: contextlib.ExitStack, tmp: Path):
    """A listening Chromium page (tests/browser/harness.py's flags), closed with `stack`."""
    from playwright.sync_api import sync_playwright

    from tests.browser.harness import BASE_ARGS, CHROMIUM, PHONE

    pw = stack.enter_context(sync_playwright())
    context = pw.chromium.launch_persistent_context(
        user_data_dir=str(tmp / "profile"), executable_path=CHROMIUM, headless=True,
        args=BASE_ARGS, viewport=PHONE, locale="it-IT", bypass_csp=True)
    stack.callback(context.close)
    page = context.pages[0] if context.pages else context.new_page()
    page.add_init_script(PC_HOOK)
    return page


NULL_SINK = "sussurro_bench"
# Firefox's output buffer on the null sink. Firefox's own (~10 ms) runs dry whenever its
# audio thread waits for a core, and each time the graph loses what it did not render
# (steps of 50-120 ms several times a phase at load 10); 100 ms rides through most waits.
# The detection is in the graph, before the output buffer: its size is not measured.
PULSE_LATENCY_MS = 100


@contextlib.contextmanager
def null_sink(tmp: Path, timeout: float = 10.0):
    """A private PulseAudio daemon with one null sink, for Firefox's audio output: yields
    its server address (for PULSE_SERVER), or None when `pulseaudio` is not installed
    (scripts/bench_setup.sh installs it). Firefox runs its audio graph on its output
    stream; a null sink consumes it on the system's clock and plays nowhere, so the graph
    runs in real time on a machine with no sound card (the mock output Firefox offers
    instead runs on a sleep loop that falls behind). Its runtime dir, state and socket
    live in `tmp` (no session bus, no user daemon touched); stopped on exit."""
    exe = shutil.which("pulseaudio")
    if exe is None:
        yield None
        return
    home = tmp / "pulse"
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    sock = home / "native"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "XDG_RUNTIME_DIR": str(home), "PULSE_RUNTIME_PATH": str(home / "runtime"),
           "PULSE_STATE_PATH": str(home / "state")}
    log = (home / "pulseaudio.log").open("w")
    # -n: no default script, only these two modules (no hardware detection, no bus)
    proc = subprocess.Popen(
        [exe, "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--system=no",
         "--log-target=stderr", "--log-level=error",
         "-L", f"module-null-sink sink_name={NULL_SINK} rate=48000 channels=2",
         "-L", f"module-native-protocol-unix socket={sock} auth-anonymous=1"],
        env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + timeout
        while not sock.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("pulseaudio did not start: "
                                   + (home / "pulseaudio.log").read_text()[-2000:])
            time.sleep(0.05)
        yield f"unix:{sock}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        log.close()


def open_firefox(stack: contextlib.ExitStack, tmp: Path, output: str = "pulse"):
    """A listening Firefox ESR page over WebDriver BiDi (tests/browser/firefox.py, loopback
    WebRTC), closed with `stack`, and the name of its audio output. Autoplay allowed, as
    Chromium's flag does (the page joins with a real tap anyway). Its output is the bench's
    own PulseAudio null sink (real-time clock), or, without pulseaudio, the driver's mock
    output (a clock that drifts: figures rough, the drift printed per phase); `output`
    "mock" asks for the mock output anyway (a before/after). Timers at full precision:
    the calibrations and the clock skew read performance.now()."""
    from tests.browser.firefox import Firefox

    prefs = {"media.autoplay.default": 0, "privacy.reduceTimerPrecision": False}
    server = stack.enter_context(null_sink(tmp)) if output == "pulse" else None
    if server is not None:
        prefs["media.cubeb.force_mock_context"] = False
        output = "pulseaudio null sink"
    elif output == "pulse":
        output = "mock (pulseaudio missing: scripts/bench_setup.sh)"
    ff = Firefox(tmp / "profile-firefox", fake_mic=False, prefs=prefs,
                 env={"PULSE_SERVER": server, "PULSE_LATENCY_MSEC": str(PULSE_LATENCY_MS)}
                 if server else None)
    stack.callback(ff.close)
    ff.add_init_script(PC_HOOK)
    return ff, output


def join_listening(page, url: str, name: str) -> None:
    """The page joins by the room's link and skips its microphone: a listener."""
    page.goto(url)
    page.fill("#name", name)
    page.click("#join-btn")
    if hasattr(page, "wait_for_selector"):
        page.wait_for_selector("#mic-skip")
        page.click("#mic-skip")
        return
    # Firefox's driver: the mic card can still be moving in when its button is found
    # ("move target out of bounds"); tap again, at most three times.
    from tests.browser.firefox import BidiError

    for attempt in range(3):
        try:
            page.click("#mic-skip")
            return
        except BidiError:
            if attempt == 2:
                raise
            time.sleep(0.3)


def run(args: argparse.Namespace) -> dict:
    """The bench in a temporary dir (the server's database, the browsers' profiles, the
    PulseAudio daemon's runtime dir), removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="browser_latency_"))
    try:
        return _run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args: argparse.Namespace, tmp: Path) -> dict:
    import httpx

    from client.bot import Bot
    from client.rtc_peer import Silence
    from server.media.rtc import restrict_host_addresses
    from tests.browser.bot_thread import BotThread
    from tests.browser.harness import wait_until
    from tests.support.server_proc import ServerProc

    restrict_host_addresses(["127.0.0.1"])
    source = Bursts(every=args.every)
    result: dict = {"seconds": args.seconds, "receiver": args.receiver,
                    "load_avg_1min_start": round(os.getloadavg()[0], 2)}
    with ServerProc(tmp / "lat.db") as srv:
        bots = BotThread()
        try:
            async def seat():
                speaker = await Bot.create(srv.base_url, "Voce", source, preset="intruso", dtx=True)
                ear = await Bot.join(srv.base_url, speaker.client.code, "Orecchio", Silence(), dtx=True)
                bots.bots += [speaker, ear]
                return speaker, ear

            speaker, ear = bots.run(seat())
            code = speaker.client.code
            with contextlib.ExitStack() as stack:
                pages = {}   # browser name -> page (Playwright's, or the Firefox driver)
                for name in args.browsers:
                    if name == "chromium":
                        page, output = open_chromium(stack, tmp), "headless Chromium's fake output"
                    else:
                        page, output = open_firefox(stack, tmp, args.firefox_output)
                    result.setdefault(name, {})["audio_output"] = output
                    join_listening(page, srv.url(f"/r/{code}"), f"Pagina {name}")
                    pages[name] = page
                for name, page in pages.items():
                    wait_until(lambda page=page: page.evaluate(
                        "() => (window.__pcs || []).some((p) => p.connectionState === 'connected')"
                        " && !!document.getElementById('remote-audio').srcObject"),
                        timeout=30, what=f"{name}'s voice connected")
                async def voices():
                    await asyncio.gather(speaker.start_voice(timeout=60), ear.start_voice(timeout=60))

                bots.run(voices(), timeout=90)
                for name, page in pages.items():
                    if args.receiver == "default":
                        page.evaluate("""() => { for (const pc of window.__pcs) for (const r of pc.getReceivers()) {
                            if ('jitterBufferTarget' in r) r.jitterBufferTarget = null;
                            if ('playoutDelayHint' in r) r.playoutDelayHint = null; } }""")
                    if name == "chromium":
                        state = page.evaluate(INSTALL, [WORKLET, BURST_HZ, THRESHOLD, HOLD_S])
                    else:
                        state = page.evaluate(INSTALL_SP, [BURST_HZ, THRESHOLD, HOLD_S])
                    result.setdefault(name, {})["page_audio_context"] = state
                mono_to_epoch = time.time() - time.monotonic()
                time.sleep(2.0)  # settle: first calibrations, connection warm
                for name, page in pages.items():
                    result[name]["clock_skew_page_ms"] = round(1000 * page_skew(page), 2)
                phases = ["quiet", "continuous"] + (["stalls"] if args.stalls else [])
                for phase in phases:
                    source.bed = phase != "quiet"
                    speaker.voice.mic.dtx = phase == "quiet"
                    time.sleep(1.5)  # the new stream settles (queues, playout)
                    mic = speaker.voice.mic
                    n0 = len(mic.captured)
                    s0 = {name: page.evaluate(STATS) or {} for name, page in pages.items()}
                    m0 = httpx.get(srv.url("/metrics"), timeout=10).text
                    stalls = []
                    if phase == "stalls":
                        # The speaker's loop blocks 200 ms every STALL_EVERY s: its mic then
                        # sends the frames it owes at once, a real catch-up burst.
                        end = time.monotonic() + args.seconds
                        while time.monotonic() + STALL_EVERY < end:
                            time.sleep(STALL_EVERY - STALL)
                            stalls.append(time.monotonic())
                            bots.loop.call_soon_threadsafe(time.sleep, STALL)
                        time.sleep(max(0.0, end - time.monotonic()))
                    else:
                        time.sleep(args.seconds)
                    s1 = {name: page.evaluate(STATS) or {} for name, page in pages.items()}
                    m1 = httpx.get(srv.url("/metrics"), timeout=10).text
                    n1 = len(mic.captured) - 20  # the last bursts may still be on their way
                    time.sleep(0.6)
                    onsets = source.onsets_between(n0, n1)
                    if phase == "stalls":
                        # when the sound was due, not when the stalled loop got to it
                        mouths = [mic._start + s / SAMPLE_RATE for s in onsets]
                    else:
                        mouths = [mic.mouth_time(s) for s in onsets]
                    bot_lat = bot_latencies(mic, ear.recorder, onsets)
                    result.setdefault("load_avg_1min_phase_end", {})[phase] = round(os.getloadavg()[0], 2)
                    for name, page in pages.items():
                        result[name][phase] = phase_figures(
                            page, phase, onsets, mouths, mono_to_epoch, bot_lat, s0[name], s1[name],
                            m0, m1, stalls)
        finally:
            bots.stop()
    result["load_avg_1min_end"] = round(os.getloadavg()[0], 2)
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=12.0, help="length of each phase")
    p.add_argument("--every", type=int, default=25, help="frames between two bursts")
    p.add_argument("--stalls", action="store_true",
                   help="a third phase: the speaker stalls 200 ms every 3.1 s and catches up")
    p.add_argument("--browsers", type=lambda v: [b for b in v.split(",") if b],
                   default=["chromium", "firefox"],
                   help="the listening pages, together in the room: chromium, firefox or both")
    p.add_argument("--firefox-output", choices=("pulse", "mock"), default="pulse",
                   help="Firefox's audio output: the bench's PulseAudio null sink (real-time"
                   " clock), or Firefox's mock output device (its clock drifts)")
    p.add_argument("--receiver", choices=("app", "default"), default="app",
                   help="keep the app's receiver playout setting, or reset it to the browser's default")
    args = p.parse_args(argv)
    print(json.dumps(run(args), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
