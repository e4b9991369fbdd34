"""Mouth-to-page latency: a bot speaks bursts at known times, a real Chromium page times them.

    .venv/bin/python bench/browser_latency.py [--seconds 12] [--receiver app|default]

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
  100 ms below it (sample-accurate within the graph).

Clock: the detector's context frames are put on the page's wall clock by a
local signal: every second the page starts a 2 kHz oscillator "now"
(performance.now() read just before), through the same band-pass and the
same detector on a second input; the median of (start time - detected frame
time) over the nearest calibrations is the offset. This cancels the filter's
and threshold's delay and the graph's render-ahead: a remote onset's time is
"when it was available to the page's audio graph", what a local source started
at that moment would be. The page's clock (timeOrigin + now) and Python's
time.time() are compared by round trips (the skew is printed and removed).

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

Bounded: about 2 (or 3) x seconds + 30 s. Prints one JSON object; nothing is asserted
(figures go to bench/ROOM.md, with the machine's load).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
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

# Installs the detector on the received stream and starts the local calibrations.
INSTALL = """async ([worklet, hz, thr, hold]) => {
  const el = document.getElementById("remote-audio");
  const stream = el.srcObject;
  const ctx = new AudioContext({ latencyHint: "interactive", sampleRate: 48000 });
  const url = URL.createObjectURL(new Blob([worklet], { type: "text/javascript" }));
  await ctx.audioWorklet.addModule(url);
  const node = new AudioWorkletNode(ctx, "onset", {
    numberOfInputs: 2, numberOfOutputs: 1, channelCount: 1, channelCountMode: "explicit",
    processorOptions: { thr, hold: Math.round(hold * ctx.sampleRate) },
  });
  const band = () => {
    const b = ctx.createBiquadFilter();
    b.type = "bandpass"; b.frequency.value = hz; b.Q.value = 4;
    return b;
  };
  const remoteBand = band();
  ctx.createMediaStreamSource(stream).connect(remoteBand).connect(node, 0, 0);
  const localBand = band();
  localBand.connect(node, 0, 1);
  const mute = ctx.createGain();
  mute.gain.value = 0;
  node.connect(mute).connect(ctx.destination);
  const out = { remote: [], cal: [], rate: ctx.sampleRate, timeOrigin: performance.timeOrigin };
  let pending = null;
  node.port.onmessage = (e) => {
    if (e.data.input === 0) out.remote.push(e.data.frame);
    else if (pending !== null) { out.cal.push([pending, e.data.frame]); pending = null; }
  };
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
  await ctx.resume();
  setInterval(calibrate, 1000);
  window.__lat = out;
  return ctx.state;
}"""

# Firefox's detector: the same band-passes and the same onset rule in a ScriptProcessorNode
# (the page's Content-Security-Policy, script-src 'self', refuses a blob: worklet module,
# and WebDriver BiDi has no switch to bypass it as Playwright's Chromium has). Frames are
# counted by the processor itself, the remote and the local input on one count, so its
# buffering delay is the same for both and the calibration cancels it as before. Each
# buffer's frames are anchored on the context's clock (playbackTime), so a buffer the
# main thread dropped under load does not shift every later count.
INSTALL_SP = """async ([hz, thr, hold]) => {
  const el = document.getElementById("remote-audio");
  const stream = el.srcObject;
  const ctx = new AudioContext({ latencyHint: "interactive", sampleRate: 48000 });
  const proc = ctx.createScriptProcessor(256, 2, 1);
  const merge = ctx.createChannelMerger(2);
  const band = () => {
    const b = ctx.createBiquadFilter();
    b.type = "bandpass"; b.frequency.value = hz; b.Q.value = 4;
    return b;
  };
  ctx.createMediaStreamSource(stream).connect(band()).connect(merge, 0, 0);
  const localBand = band();
  localBand.connect(merge, 0, 1);
  merge.connect(proc);
  const mute = ctx.createGain();
  mute.gain.value = 0;
  proc.connect(mute).connect(ctx.destination);
  const out = { remote: [], cal: [], rate: ctx.sampleRate, timeOrigin: performance.timeOrigin };
  const holdN = Math.round(hold * ctx.sampleRate);
  const below = [holdN, holdN];
  let pending = null;
  proc.onaudioprocess = (e) => {
    const frame = Math.round(e.playbackTime * ctx.sampleRate);
    for (let k = 0; k < 2; k++) {
      const ch = e.inputBuffer.getChannelData(k);
      for (let i = 0; i < ch.length; i++) {
        if (Math.abs(ch[i]) > thr) {
          if (below[k] >= holdN) {
            if (k === 0) out.remote.push(frame + i);
            else if (pending !== null) { out.cal.push([pending, frame + i]); pending = null; }
          }
          below[k] = 0;
        } else {
          below[k] += 1;
        }
      }
    }
  };
  window.__spKeep = proc;   // a ScriptProcessor nobody references may be collected
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
  await ctx.resume();
  setInterval(calibrate, 1000);
  window.__lat = out;
  return ctx.state;
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


def page_latencies(lat: dict, mouths_epoch: list[float], skew: float) -> tuple[list[float], float]:
    """Mouth-to-page (s) of each mouth time, from the page's detections; also the
    calibration offset's spread (ms, interquartile range)."""
    rate = lat["rate"]
    cal = [(t0 - f / rate * 1000.0, t0) for t0, f in lat["cal"]]
    if not cal:
        return [], float("nan")
    offsets = np.array([c[0] for c in cal])
    times = np.array([c[1] for c in cal])
    ears = []
    for f in lat["remote"]:
        at = f / rate * 1000.0
        near = np.argsort(np.abs(times - at))[:7]  # the nearest calibrations: drift-proof
        ears.append((lat["timeOrigin"] + at + float(np.median(offsets[near]))) / 1000.0 - skew)
    ears = np.array(sorted(ears))
    out = []
    for m in mouths_epoch:
        i = np.searchsorted(ears, m)
        if i < len(ears) and ears[i] - m < 0.4:
            out.append(float(ears[i] - m))
    q75, q25 = np.percentile(offsets, [75, 25])
    return out, float(q75 - q25)


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
    page_lat, cal_iqr = page_latencies(lat, [m + mono_to_epoch for m in mouths], skew)
    framing = [1000 * (FRAME - s % FRAME) / SAMPLE_RATE for s in onsets]
    depth = _metric(m1, "sussurro_voice_jitter_depth_mean")
    jb = jb_delta(s0, s1)
    p, b = summary(page_lat), summary(bot_lat)
    phase_out = {
        "bursts": len(onsets),
        "into_page_ms": p,
        "bot_to_bot_ms": b,
        "calibration_iqr_ms": round(cal_iqr, 2),
        "calibrations": len(lat["cal"]),
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


def open_firefox(stack: contextlib.ExitStack, tmp: Path):
    """A listening Firefox ESR page over WebDriver BiDi (tests/browser/firefox.py: its mock
    output device, loopback WebRTC), closed with `stack`. Autoplay allowed, as Chromium's
    flag does (the page joins with a real tap anyway)."""
    from tests.browser.firefox import Firefox

    ff = Firefox(tmp / "profile-firefox", fake_mic=False, prefs={"media.autoplay.default": 0})
    stack.callback(ff.close)
    ff.add_init_script(PC_HOOK)
    return ff


def join_listening(page, url: str, name: str) -> None:
    """The page joins by the room's link and skips its microphone: a listener."""
    page.goto(url)
    page.fill("#name", name)
    page.click("#join-btn")
    if hasattr(page, "wait_for_selector"):
        page.wait_for_selector("#mic-skip")
    else:
        page.wait("#mic-skip")
    page.click("#mic-skip")


def run(args: argparse.Namespace) -> dict:
    import httpx

    from client.bot import Bot
    from client.rtc_peer import Silence
    from server.media.rtc import restrict_host_addresses
    from tests.browser.bot_thread import BotThread
    from tests.browser.harness import wait_until
    from tests.support.server_proc import ServerProc

    restrict_host_addresses(["127.0.0.1"])
    tmp = Path(tempfile.mkdtemp(prefix="browser_latency_"))
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
                    page = (open_chromium(stack, tmp) if name == "chromium" else open_firefox(stack, tmp))
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
    p.add_argument("--receiver", choices=("app", "default"), default="app",
                   help="keep the app's receiver playout setting, or reset it to the browser's default")
    args = p.parse_args(argv)
    print(json.dumps(run(args), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
