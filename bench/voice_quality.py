"""Voice quality: speech through a room and through a direct browser call, clean and impaired.

    .venv/bin/python bench/voice_quality.py [--paths room-up,room-down,direct]
        [--profiles clean,loss3,loss10,bursty,jitter,jitter-mono,cap24,blackout]
        [--seed 1] [--sentences 3]

Needs Debian's chromium, espeak-ng and `pip install pesq pystoi` (the `test` extras).

Speech: fixed Italian sentences (espeak-ng, bench/opus_quality.py's `speech`: 48 kHz,
-20 dBFS RMS each) with 1 s of silence between them, written as one 48 kHz mono 16-bit WAV
that Chromium's fake microphone plays in a loop (`--use-file-for-fake-audio-capture`).

Paths (one Chromium, one context per page):
- `room-up` / `room-down`: a real `sussurro serve` on 127.0.0.1 (tests/support/server_proc.py),
  a speaker page and a listener page running the real web client in one room's lobby
  (everyone hears everyone), both with `?testaudio=1` (no echo cancellation, noise
  suppression or gain control on the mic). Impaired: the speaker's uplink (`up`) or the
  listener's downlink (`down`);
- `direct` (the anchor): a plain RTCPeerConnection from a speaker page to a listener page,
  signalled by the bench, the same mic constraints, the browser's defaults otherwise (Opus
  with in-band FEC); impaired speaker -> listener.

Impairment: every page's ICE candidates, both ways, are rewritten (an init script wraps
`localDescription`, `setRemoteDescription` and `addIceCandidate`) to one port of a UDP relay
in a process of its own (`Relay`, 127.0.0.1), which forwards to the other side's real loopback
address (learnt from its packets) from a second port that stands for the first side. Only
RTP is impaired (first byte 128..191, second byte not 192..223, RFC 5761), in one direction;
STUN, DTLS and RTCP pass. Profiles are data (`PROFILES`), seeded per cell.

Recording: an AudioWorklet on the listener's received stream (the room page's <audio>
element's stream, as the app plays it) and another on the speaker's own mic stream (the
"mouth"), both in the same browser, in AudioContexts with latencyHint "playback" (large
render buffers: a loaded machine starves them less), each sample on the page's clock through
AudioContext.getOutputTimestamp(). Each sentence is found in the mic recording, then in the
listener's (cross-correlation); its lag is the mouth-to-ear delay and the aligned segment
(0.3 s either side) is scored: PESQ-WB (P.862.2, 16 kHz) and STOI against the WAV's sentence.

Prints one JSON object; nothing is asserted (tests/e2e/test_voice_quality.py checks the
harness). About 16 s a cell (settle, one loop plus a sentence) and ~30 s of set-up.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.signal import correlate, resample_poly

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.browser_latency import PC_HOOK, STATS, page_skew  # noqa: E402
from bench.opus_quality import pesq_wb, speech  # noqa: E402
from tests.support.udp_relay import (  # noqa: E402
    ONE_CANDIDATE,
    Impairment,
    Link,
    Relay,
    counts_delta,
)

RATE = 48000
SENTENCES = [
    "Secondo me l'intruso ha parlato di una barca a vela.",
    "Io ho detto mare, perché d'estate vado in Sardegna.",
    "Votiamo adesso, prima che finisca il tempo.",
    "Non ho capito la tua parola, puoi ripeterla?",
]
LEAD = 0.5  # s of silence before the first sentence and after the last (the loop's gap is 1 s)
GAP = 1.0  # s of silence between two sentences
PAD = 0.3  # s of the surrounding silence scored with each sentence
MAX_DELAY = 1.2  # s: the furthest an ear may lag the mouth
SETTLE = 1.0  # s at least after an impairment is switched on before recording
PATHS = ("room-up", "room-down", "direct")

# Impairment profiles (one direction, RTP only). loss: Bernoulli; burst: Gilbert-Elliott
# (average loss, mean burst in packets); jitter_ms: normal delay (mean, s.d.) clipped at 0,
# each packet on its own (reordering) unless monotone; rate_kbps: a token bucket counting
# IP+UDP headers, its queue at most queue_ms long (later packets dropped); blackout_s:
# everything dropped that long, from 0.8 s into a sentence.
PROFILES: dict[str, dict] = {
    "clean": {},
    "hiccups": {"hiccup": (150.0, 3.0, 8.0)},
    "loss3": {"loss": 0.03},
    "loss10": {"loss": 0.10},
    "bursty": {"burst": (0.05, 3.0)},
    "jitter": {"jitter_ms": (50.0, 30.0), "loss": 0.02},
    "jitter-mono": {"jitter_ms": (50.0, 30.0), "loss": 0.02, "monotone": True},
    "cap24": {"rate_kbps": 24.0, "queue_ms": 200.0},
    "blackout": {"blackout_s": 1.5},
}


# ---------------------------------------------------------------- speech

@dataclass
class Speech:
    """The looped mic file: its samples (48 kHz, as Chromium reads the WAV) and where each
    sentence lies in it (sample ranges)."""
    wav: Path
    x: np.ndarray
    spans: list[tuple[int, int]]

    @property
    def loop(self) -> int:
        return len(self.x)

    def sentence(self, i: int, pad: float = 0.0) -> np.ndarray:
        a, b = self.spans[i]
        p = int(pad * RATE)
        return self.x[a - p : b + p]


def make_speech(tmp: Path, count: int = 3) -> Speech:
    """`count` of SENTENCES spoken in Italian, 1 s apart, as one 48 kHz mono 16-bit WAV."""
    import soundfile as sf

    parts, spans, pos = [np.zeros(int(LEAD * RATE), np.float32)], [], int(LEAD * RATE)
    for i, text in enumerate(SENTENCES[:count]):
        if i:
            parts.append(np.zeros(int(GAP * RATE), np.float32))
            pos += int(GAP * RATE)
        s = speech("it", text, tmp)
        parts.append(s)
        spans.append((pos, pos + len(s)))
        pos += len(s)
    parts.append(np.zeros(int(LEAD * RATE), np.float32))
    pcm = np.clip(np.round(np.concatenate(parts) * 32768), -32768, 32767).astype(np.int16)
    wav = tmp / "speech.wav"
    sf.write(str(wav), pcm, RATE, subtype="PCM_16")
    return Speech(wav, pcm.astype(np.float32) / 32768, spans)


# ---------------------------------------------------------------- impairment

# ---------------------------------------------------------------- pages

# Every candidate a page gives or takes becomes one loopback candidate at a relay port:
# its own (what the other side is told) at `face`, the other side's at `send`.
RELAY_HOOK = """(([send, face]) => {
""" + ONE_CANDIDATE + """  let P = RTCPeerConnection.prototype;   // the native one, under any subclass
  while (!Object.getOwnPropertyDescriptor(P, "localDescription")) P = Object.getPrototypeOf(P);
  const local = Object.getOwnPropertyDescriptor(P, "localDescription");
  Object.defineProperty(P, "localDescription", { configurable: true, get() {
    const d = local.get.call(this);
    return d && { type: d.type, sdp: one(d.sdp, face), toJSON() { return { type: this.type, sdp: this.sdp }; } };
  } });
  const srd = P.setRemoteDescription;
  P.setRemoteDescription = function (d, ...rest) {
    return srd.call(this, d && { type: d.type, sdp: one(d.sdp, send) }, ...rest);
  };
  const aic = P.addIceCandidate;
  P.addIceCandidate = function (c, ...rest) {
    return c && c.candidate ? Promise.resolve() : aic.call(this, c, ...rest);
  };
  const gum = MediaDevices.prototype.getUserMedia;
  MediaDevices.prototype.getUserMedia = async function (c) {
    const s = await gum.call(this, c);
    window.__mic = s;
    window.__micConstraints = c;
    return s;
  };
})"""

RECORDER = """
class Rec extends AudioWorkletProcessor {
  constructor() { super(); this.buf = new Float32Array(4096); this.n = 0; this.start = 0; }
  process(inputs) {
    const ch = inputs[0] && inputs[0][0];
    if (this.n === 0) this.start = currentFrame;
    if (ch) this.buf.set(ch, this.n);   // no input yet: the quantum stays silent
    else this.buf.fill(0, this.n, this.n + 128);
    this.n += 128;
    if (this.n === this.buf.length) {
      this.port.postMessage({ frame: this.start, x: this.buf }, [this.buf.buffer]);
      this.buf = new Float32Array(4096);
      this.n = 0;
    }
    return true;
  }
}
registerProcessor("rec", Rec);
"""

# Records `which` stream ("mic": the page's own microphone, "ear": what it receives) from
# `rec.on` to `rec.on = false`; `stamps` put context time on the page's clock.
INSTALL_RECORDER = """async ([code, which]) => {
  const stream = which === "mic" ? window.__mic
    : (document.getElementById("remote-audio")?.srcObject || window.__remote);
  const ctx = new AudioContext({ sampleRate: 48000, latencyHint: "playback" });
  await ctx.audioWorklet.addModule(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  const node = new AudioWorkletNode(ctx, "rec", {
    numberOfInputs: 1, numberOfOutputs: 1, channelCount: 1, channelCountMode: "explicit" });
  let source = ctx.createMediaStreamSource(stream);
  source.connect(node);
  if (which === "ear") {
    // The page replaces its peer when its voice path dies (web/js/rtc.js): follow the
    // element to its new stream, or the rest of the cell records silence.
    let current = stream;
    setInterval(() => {
      const now = document.getElementById("remote-audio")?.srcObject || window.__remote;
      if (!now || now === current || !now.getAudioTracks().length) return;
      current = now;
      source.disconnect();
      source = ctx.createMediaStreamSource(now);
      source.connect(node);
      window.__rec.followed = (window.__rec.followed || 0) + 1;
    }, 100);
  }
  const mute = ctx.createGain();
  mute.gain.value = 0;
  node.connect(mute).connect(ctx.destination);
  const rec = { ctx, on: false, chunks: [], first: null, stamps: [] };
  node.port.onmessage = (e) => {
    if (!rec.on) return;
    if (rec.first === null) rec.first = e.data.frame;
    rec.chunks.push(e.data.x);
    const t = ctx.getOutputTimestamp();
    if (t.contextTime > 0) rec.stamps.push(performance.timeOrigin + t.performanceTime - 1000 * t.contextTime);
  };
  window.__rec = rec;
  await ctx.resume();
  return ctx.state;
}"""

PULL = """() => {
  const rec = window.__rec;
  rec.on = false;
  const n = rec.chunks.reduce((a, c) => a + c.length, 0);
  const all = new Float32Array(n);
  let k = 0;
  for (const c of rec.chunks) { all.set(c, k); k += c.length; }
  rec.chunks = [];
  const bytes = new Uint8Array(all.buffer);
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  const stamps = rec.stamps.slice().sort((a, b) => a - b);
  rec.stamps = [];
  const first = rec.first;
  rec.first = null;
  return { b64: btoa(s), first, offset: stamps.length ? stamps[stamps.length >> 1] : null };
}"""

START = "() => { const r = window.__rec; r.chunks = []; r.stamps = []; r.first = null; r.on = true; }"


@dataclass
class Recording:
    """Samples and the page-clock time (epoch s) of sample 0."""
    x: np.ndarray
    t0: float

    def time(self, i: float) -> float:
        return self.t0 + i / RATE

    def index(self, t: float) -> int:
        return int(round((t - self.t0) * RATE))

    @property
    def end(self) -> float:
        return self.time(len(self.x))


def pull(page) -> Recording:
    got = page.evaluate(PULL)
    if got["first"] is None or got["offset"] is None:
        raise RuntimeError("the page recorded nothing")
    x = np.frombuffer(base64.b64decode(got["b64"]), dtype=np.float32).copy()
    return Recording(x, (got["offset"] + 1000 * got["first"] / RATE) / 1000)


def inbound(page) -> dict:
    keys = ("packetsReceived", "packetsLost", "concealedSamples", "silentConcealedSamples",
            "concealmentEvents", "totalSamplesReceived", "fecPacketsReceived",
            "fecPacketsDiscarded", "insertedSamplesForDeceleration",
            "removedSamplesForAcceleration", "jitterBufferDelay", "jitterBufferEmittedCount",
            "jitterBufferTargetDelay", "jitter")
    s = page.evaluate(STATS) or {}
    return {k: s[k] for k in keys if k in s}


def stats_delta(s0: dict, s1: dict) -> dict:
    out = {k: round(s1[k] - s0.get(k, 0), 4) for k in s1 if k != "jitter"}
    if out.get("jitterBufferEmittedCount"):
        out["jitterBufferDelay_ms_mean"] = round(
            1000 * out["jitterBufferDelay"] / out["jitterBufferEmittedCount"], 1)
    if out.get("totalSamplesReceived"):
        out["concealed_share"] = round(out.get("concealedSamples", 0) / out["totalSamplesReceived"], 4)
    return out


# ---------------------------------------------------------------- scoring

def locate(ref: np.ndarray, x: np.ndarray) -> tuple[int, float]:
    """Where `ref` best matches in `x` and the normalised cross-correlation there (1: the
    same waveform). Normalised by the energy of each stretch of `x` (not below 5 % of
    `ref`'s, so near-silence cannot match): an occurrence cut by the recording's edge scores
    below a whole one, however loud."""
    n = len(ref)
    if len(x) < n:
        return 0, 0.0
    c = correlate(x, ref, mode="valid", method="fft")
    e = np.concatenate([[0.0], np.cumsum(x.astype(np.float64) ** 2)])
    stretch = np.sqrt(np.maximum(e[n:] - e[:-n], 0.0))
    size = float(np.linalg.norm(ref))
    r = c / (size * np.maximum(stretch, 0.05 * size) + 1e-12)
    i = int(np.argmax(r))
    return i, float(r[i])


def stoi16(ref: np.ndarray, deg: np.ndarray) -> float:
    from pystoi import stoi

    return float(stoi(resample_poly(ref, 1, 3), resample_poly(deg, 1, 3), 16000, extended=False))


def score_sentence(sp: Speech, i: int, mic: Recording, ear: Recording) -> dict:
    """Sentence `i`: its first whole occurrence in the mic recording that the ear recording
    covers (with MAX_DELAY to spare), then the ear's best match after it."""
    ref = sp.sentence(i)
    first, _ = locate(ref, mic.x)
    n, pad = len(ref), int(PAD * RATE)
    for k in range(-4, 5):
        m = first + k * sp.loop
        if m < 0 or m + n > len(mic.x):
            continue
        if mic.time(m) - PAD < ear.t0 or mic.time(m + n) + MAX_DELAY > ear.end:
            continue
        lo = max(0, ear.index(mic.time(m)) - int(0.05 * RATE))
        hi = min(len(ear.x), ear.index(mic.time(m)) + n + int(MAX_DELAY * RATE))
        j, corr = locate(ref, ear.x[lo:hi])
        j += lo
        if j < pad or j + n + pad > len(ear.x):
            continue
        out = {"delay_ms": round(1000 * (ear.time(j) - mic.time(m)), 1), "align_corr": round(corr, 3)}
        deg = ear.x[j - pad : j + n + pad]
        full = sp.sentence(i, PAD)
        try:
            out["pesq_wb"] = round(pesq_wb(full, deg), 3)
        except Exception as e:  # noqa: BLE001 - PESQ refuses a silent segment: say so
            out["pesq_wb"], out["pesq_error"] = None, type(e).__name__
        out["stoi"] = round(stoi16(full, deg), 3)
        if i == 0:  # the capture itself, against the file: ~4.6 when the mic is untouched
            out["mic_pesq_wb"] = round(pesq_wb(full, mic.x[m - pad : m + n + pad]), 3) if m >= pad else None
        out["mic_at"] = mic.time(m)
        return out
    return {"missing": True}


def summarise(sentences: list[dict]) -> dict:
    got = [s for s in sentences if s.get("pesq_wb") is not None]

    def mean(k: str) -> float | None:
        return round(statistics.fmean(s[k] for s in got), 3) if got else None
    return {
        "pesq_wb_mean": mean("pesq_wb"),
        "pesq_wb": [s.get("pesq_wb") for s in sentences],
        "stoi_mean": mean("stoi"),
        "delay_ms": round(statistics.median(s["delay_ms"] for s in got), 1) if got else None,
        "align_corr_min": min((s["align_corr"] for s in got), default=None),
        "mic_pesq_wb": sentences[0].get("mic_pesq_wb") if sentences else None,
        "sentences_missing": sum(1 for s in sentences if s.get("missing")),
    }


# ---------------------------------------------------------------- cells

@dataclass
class Call:
    """A speaker page and a listener page, connected, with the relay link to impair for each
    path it serves: path -> (link, direction)."""
    speaker: object
    listener: object
    impaired: dict
    loop_start: float | None = None  # page-clock epoch of one start of the mic's loop
    server: object = None  # the room's ServerProc (its /metrics), None for the direct call


# What the server says it did with the speaker's packets and the queues (room cells only)
SERVER_FIGURES = {
    "mic_recovered": "sussurro_mic_frames_recovered_total",
    "mic_concealed": "sussurro_mic_frames_concealed_total",
    "mic_reordered": "sussurro_mic_packets_reordered_total",
    "mic_late": "sussurro_mic_packets_late_total",
    "underruns": "sussurro_jitter_underruns_total",
    "overflows": "sussurro_jitter_overflows_total",
    # ticks the voice loop moved its grid earlier (audio/phase.py): the listeners' packets
    # came that much faster than their media clock
    "grid_moved_ticks": "sussurro_voice_phase_moved",
}


def server_figures(call: Call) -> dict:
    """The room server's counters of SERVER_FIGURES (loopback /metrics); {} for a direct
    call or a server that does not count them."""
    if call.server is None:
        return {}
    import httpx

    from bench.browser_latency import _metric

    text = httpx.get(call.server.url("/metrics"), timeout=5).text
    return {k: _metric(text, name) for k, name in SERVER_FIGURES.items()}


def wait_until(fn, timeout: float, what: str):
    from tests.browser.harness import wait_until as wait

    return wait(fn, timeout=timeout, what=what)


def measure(relay: Relay, call: Call, path: str, profile: str, sp: Speech, seed: int) -> dict:
    """One cell: the profile on the path's link, settle, record one loop at both pages
    (from a sentence's end, once the loop's phase is known; a loop and a sentence before),
    score every sentence."""
    link, direction = call.impaired[path]
    imp = Impairment(PROFILES[profile], random.Random(f"{seed}/{path}/{profile}"))
    relay.set(link, direction, imp)
    seconds = sp.loop / RATE + MAX_DELAY + PAD
    if call.loop_start is None:
        time.sleep(SETTLE)
        seconds += max(b - a for a, b in sp.spans) / RATE
    else:
        time.sleep(max(0.0, after_a_sentence(call, sp, SETTLE)))
    c0, s0, t0, load0 = relay.counts(link), inbound(call.listener), time.monotonic(), os.getloadavg()[0]
    f0 = server_figures(call)
    for page in (call.speaker, call.listener):
        page.evaluate(START)
    if "blackout_s" in PROFILES[profile]:
        imp.blackout = blackout_window(call, sp, PROFILES[profile]["blackout_s"])
        relay.blackout(link, direction, imp.blackout)  # the relay's process has its own copy
    time.sleep(seconds)
    mic, ear = pull(call.speaker), pull(call.listener)
    followed = call.listener.evaluate("() => window.__rec.followed || 0")
    c1, s1, t1 = relay.counts(link), inbound(call.listener), time.monotonic()
    f1 = server_figures(call)
    relay.set(link, direction, None)
    sentences = [score_sentence(sp, i, mic, ear) for i in range(len(sp.spans))]
    placed = [(i, s) for i, s in enumerate(sentences) if "mic_at" in s]
    if placed:
        i, s = placed[0]
        call.loop_start = s["mic_at"] - sp.spans[i][0] / RATE
    for s in sentences:
        s.pop("mic_at", None)
    out = {**summarise(sentences), "sentences": sentences, "relay": counts_delta(c0, c1),
           "listener_inbound_rtp": stats_delta(s0, s1), "window_s": round(t1 - t0, 1),
           **({"server": {k: f1[k] - f0.get(k, 0.0) for k in f1}} if f1 else {}),
           "load_avg_1min": [round(load0, 1), round(os.getloadavg()[0], 1)],
           "ear_streams_followed": followed}
    if "blackout_s" in PROFILES[profile]:
        out["blackout"] = (f"{PROFILES[profile]['blackout_s']} s from 0.8 s into sentence 2"
                           if imp.blackout else "none: the loop's phase was not known yet"
                           " (the call's first cell; put another profile before it)")
    return out


def after_a_sentence(call: Call, sp: Speech, least: float) -> float:
    """Seconds from now to 0.1 s after the end of the next sentence the mic plays that
    ends at least `least` s from now (the loop's phase from the previous cell)."""
    skew = page_skew(call.speaker)  # page epoch - time.time()
    now = time.time() + skew
    period = sp.loop / RATE
    k = int((now + least - call.loop_start) // period)
    ends = [call.loop_start + (k + j) * period + b / RATE + 0.1
            for j in (0, 1) for _, b in sp.spans]
    return min(t for t in ends if t >= now + least) - now


def blackout_window(call: Call, sp: Speech, length: float) -> tuple[float, float] | None:
    """The blackout on the relay's clock: 0.8 s into the second sentence of the next loop
    after 0.5 s from now (from the loop's phase a previous cell found), as the mic has it."""
    if call.loop_start is None:
        return None
    skew = page_skew(call.speaker)  # page epoch - time.time()
    period = sp.loop / RATE
    now = time.time() + skew
    t = call.loop_start + sp.spans[min(1, len(sp.spans) - 1)][0] / RATE + 0.8
    t += max(0, int(np.ceil((now + 0.5 - t) / period))) * period
    mono = time.monotonic() + (t - skew - time.time())
    return mono, mono + length


def check_relayed(cell: dict, path: str, direction: str) -> None:
    """The media went through the relay in the impaired direction (ICE took no other way):
    fail loudly otherwise."""
    got = cell["relay"][direction]
    if got["rtp"] + got["rtp_dropped"] == 0:
        raise RuntimeError(f"{path}: the relay carried no RTP {direction}: {cell['relay']}")


# ---------------------------------------------------------------- set-ups

def new_page(browser, link: Link, side: int):
    """A fresh context's page whose candidates all go through `link`: it sends to the
    link's port `side` and is known to the other end by the other port."""
    from tests.browser.harness import PHONE

    ctx = browser.new_context(viewport=PHONE, locale="it-IT", bypass_csp=True,
                              permissions=["microphone"])
    page = ctx.new_page()
    page.set_default_timeout(20000)
    page.add_init_script(PC_HOOK)
    page.add_init_script(f"{RELAY_HOOK}({json.dumps([link.ports[side], link.ports[1 - side]])});")
    return page


def connected(page) -> bool:
    return page.evaluate("() => (window.__pcs || []).some((p) => p.connectionState === 'connected')")


def open_room(stack: contextlib.ExitStack, browser, relay: Relay, tmp: Path) -> Call:
    """A real server, the speaker page (mic on) and the listener page (mic skipped) in
    one room's lobby, each through its own relay link (X: the page, Y: the server)."""
    from tests.browser.harness import Player, create_room, join_room
    from tests.support.server_proc import ServerProc

    srv = stack.enter_context(ServerProc(tmp / "vq.db"))
    up, down = relay.link(), relay.link()
    speaker = Player("Voce", 0.0, None, new_page(browser, up, 0))
    listener = Player("Orecchio", 0.0, None, new_page(browser, down, 0))
    code = create_room(srv, speaker, "?testaudio=1")
    speaker.page.click("#mic-enable")
    join_room(srv, listener, code, query="?testaudio=1")
    listener.page.click("#mic-skip")
    for p in (speaker, listener):
        wait_until(lambda p=p: connected(p.page), 40, f"{p.name}'s voice connected")
    wait_until(lambda: listener.page.evaluate(
        "() => !!document.getElementById('remote-audio').srcObject"), 20, "the mix playing")
    return Call(speaker.page, listener.page, {"room-up": (up, "xy"), "room-down": (down, "yx")},
                server=srv)


DIRECT_SPEAKER = """async () => {
  const mic = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
  const pc = new RTCPeerConnection();
  pc.addTransceiver(mic.getAudioTracks()[0], { direction: "sendonly", streams: [mic] });
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((ok) => { if (pc.iceGatheringState === "complete") ok();
    pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && ok(); });
  window.__pc = pc;
  return pc.localDescription.sdp;
}"""

DIRECT_LISTENER = """async (offer) => {
  const pc = new RTCPeerConnection();
  pc.ontrack = (e) => {
    window.__remote = e.streams[0] || new MediaStream([e.track]);
    const el = document.createElement("audio");
    el.id = "remote-audio"; el.autoplay = true; el.srcObject = window.__remote;
    document.body.append(el);
    el.play().catch(() => {});
  };
  await pc.setRemoteDescription({ type: "offer", sdp: offer });
  await pc.setLocalDescription(await pc.createAnswer());
  await new Promise((ok) => { if (pc.iceGatheringState === "complete") ok();
    pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && ok(); });
  return pc.localDescription.sdp;
}"""


def open_direct(browser, relay: Relay) -> Call:
    """Speaker page -> listener page, one RTCPeerConnection signalled here, both through
    one relay link (X: the speaker, Y: the listener). Pages on a local http origin (a
    secure context) that Playwright serves itself."""
    link = relay.link()
    pages = [new_page(browser, link, side) for side in (0, 1)]
    for page in pages:
        page.route("http://localhost/vq", lambda r: r.fulfill(
            body="<!doctype html><title>vq</title><body></body>", content_type="text/html"))
        page.goto("http://localhost/vq")
    speaker, listener = pages
    answer = listener.evaluate(DIRECT_LISTENER, speaker.evaluate(DIRECT_SPEAKER))
    speaker.evaluate("(a) => window.__pc.setRemoteDescription({ type: 'answer', sdp: a })", answer)
    for page in pages:
        wait_until(lambda page=page: connected(page), 30, "the direct call connected")
    wait_until(lambda: listener.evaluate("() => !!window.__remote"), 10, "the direct track")
    return Call(speaker, listener, {"direct": (link, "xy")})


def start_recorders(call: Call) -> None:
    call.speaker.evaluate(INSTALL_RECORDER, [RECORDER, "mic"])
    call.listener.evaluate(INSTALL_RECORDER, [RECORDER, "ear"])
    wait_until(lambda: call.listener.evaluate("() => window.__rec.ctx.state") == "running",
               10, "the recorder running")


def run(paths: list[str], profiles: list[str], seed: int = 1, sentences: int = 3,
        log=None) -> dict:
    """Every (path, profile) cell; the room's paths share one server and one room, the
    direct call its own pages. Everything is closed at the end."""
    from playwright.sync_api import sync_playwright

    from tests.browser.harness import BASE_ARGS, CHROMIUM

    unknown = [p for p in profiles if p not in PROFILES] + [p for p in paths if p not in PATHS]
    if unknown:
        raise ValueError(f"unknown: {unknown}")
    tmp = Path(tempfile.mkdtemp(prefix="voice_quality_"))
    relay = Relay()
    result: dict = {"seed": seed, "profiles": {p: PROFILES[p] for p in profiles}, "cells": {}}
    t_start = time.monotonic()
    try:
        sp = make_speech(tmp, sentences)
        result["speech"] = {"sentences": sentences, "loop_s": round(sp.loop / RATE, 2)}
        with contextlib.ExitStack() as stack:
            pw = stack.enter_context(sync_playwright())
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                *BASE_ARGS, f"--use-file-for-fake-audio-capture={sp.wav}"])
            stack.callback(browser.close)
            groups = [[p for p in paths if p.startswith("room")], [p for p in paths if p == "direct"]]
            for group in groups:
                if not group:
                    continue
                with contextlib.ExitStack() as inner:
                    call = open_room(inner, browser, relay, tmp) if group[0] != "direct" \
                        else open_direct(browser, relay)
                    start_recorders(call)
                    if log:
                        log(f"{group}: connected at {time.monotonic() - t_start:.0f} s")
                    for path in group:
                        for profile in profiles:
                            cell = measure(relay, call, path, profile, sp, seed)
                            check_relayed(cell, path, call.impaired[path][1])
                            row = result["cells"].setdefault(path, {})
                            key = profile if profile not in row else \
                                f"{profile}#{sum(k.split('#')[0] == profile for k in row) + 1}"
                            row[key] = cell  # a profile given twice: "clean", "clean#2"
                            if log:
                                log(f"{path} {key}: PESQ {cell['pesq_wb_mean']} STOI "
                                    f"{cell['stoi_mean']} delay {cell['delay_ms']} ms")
                    for page in (call.speaker, call.listener):
                        page.context.close()
    finally:
        relay.close()
        if os.environ.get("VOICE_QUALITY_KEEP"):  # the server's log, the speech: kept
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    result["seconds"] = round(time.monotonic() - t_start, 1)
    return result


def table(result: dict) -> str:
    """PESQ-WB means, one row per path, one column per profile."""
    cells = result["cells"]
    profiles = list(dict.fromkeys(k for row in cells.values() for k in row))
    lines = ["| path | " + " | ".join(profiles) + " |", "|---" * (len(profiles) + 1) + "|"]
    for path, row in cells.items():
        lines.append(f"| {path} | " + " | ".join(
            str(row[p]["pesq_wb_mean"]) if p in row else "" for p in profiles) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--paths", default=",".join(PATHS))
    p.add_argument("--profiles", default=",".join(PROFILES))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sentences", type=int, default=3, choices=range(1, len(SENTENCES) + 1))
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = p.parse_args(argv)
    result = run([v for v in args.paths.split(",") if v], [v for v in args.profiles.split(",") if v],
                 args.seed, args.sentences, None if args.quiet else
                 (lambda m: print(m, file=sys.stderr, flush=True)))
    print(json.dumps(result, indent=1))
    if not args.quiet:
        print(table(result), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
