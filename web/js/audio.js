// Web Audio: the turn chime (synthesised, no files), and the analyser on the voice mix
// that tests read through window.__sussurro.toneLevels.

let ctx = null;
let analyser = null;
let source = null;
let sink = null;

/** The one AudioContext; created lazily, resumed on the first tap (autoplay rules). */
export function audioContext() {
  if (!ctx) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    try {
      ctx = new Ctx({ latencyHint: "interactive" });
    } catch {
      ctx = new Ctx();   // older Safari takes no options
    }
  }
  return ctx;
}

/**
 * Start (or restart) the context. Every engine but Chromium's test flags creates it
 * "suspended" until a gesture, and Safari and Firefox suspend it again (Safari:
 * "interrupted") when the page goes to the background or a call takes the audio:
 * anything but "running" or "closed" is resumed. Called from gestures and on return
 * to the foreground; a refused resume just waits for the next gesture.
 */
export function resume() {
  const c = audioContext();
  if (c && c.state !== "running" && c.state !== "closed") c.resume().catch(() => {});
}

/**
 * The events that count as a user gesture in every engine: iOS Safari does not take a
 * touch's pointerdown (only pointerup/touchend/click), Chromium and Firefox take
 * pointerdown of a mouse. `fn` runs on each, inside the gesture.
 */
export const GESTURES = ["pointerdown", "pointerup", "touchend", "click", "keydown"];

/** Resume audio on every gesture and whenever the page comes back to the foreground. */
export function keepAudioAlive(onGesture = () => {}) {
  const gesture = () => { resume(); onGesture(); };
  for (const type of GESTURES) document.addEventListener(type, gesture, { passive: true, capture: true });
  const back = () => { if (document.visibilityState === "visible") resume(); };
  document.addEventListener("visibilitychange", back);
  window.addEventListener("pageshow", back);   // back from the bfcache (Safari, Firefox)
}

/** The context's state for tests and diagnostics ("none" before any sound). */
export function audioState() {
  return ctx ? ctx.state : "none";
}

/** Route the remote voice stream into an AnalyserNode (not to the speakers: <audio> plays it). */
export function attachRemote(stream) {
  const c = audioContext();
  if (!c) return null;
  if (source) source.disconnect();
  if (!analyser) {
    analyser = c.createAnalyser();
    analyser.fftSize = 8192;            // ~6 Hz bins at 48 kHz: test tones stay apart
    analyser.smoothingTimeConstant = 0.5;
    // A silent sink keeps the graph pulled even where an unconnected analyser would idle.
    sink = c.createGain();
    sink.gain.value = 0;
    analyser.connect(sink);
    sink.connect(c.destination);
  }
  source = c.createMediaStreamSource(stream);
  source.connect(analyser);
  return analyser;
}

export function getAnalyser() {
  return analyser;
}

/** dB level of the mix at each frequency (max over the nearest bins); -Infinity-free. */
export function toneLevels(freqs) {
  if (!analyser) return freqs.map(() => -200);
  const data = new Float32Array(analyser.frequencyBinCount);
  analyser.getFloatFrequencyData(data);
  const binHz = analyser.context.sampleRate / analyser.fftSize;
  return freqs.map((f) => {
    const centre = Math.round(f / binHz);
    let best = -200;
    for (let i = Math.max(0, centre - 2); i <= Math.min(data.length - 1, centre + 2); i++) {
      if (Number.isFinite(data[i]) && data[i] > best) best = data[i];
    }
    return best;
  });
}

/** A short two-note bell for "your turn". */
export function chime() {
  const c = audioContext();
  if (!c) return;
  resume();
  const now = c.currentTime;
  [[880, 0], [1318.5, 0.14]].forEach(([freq, at]) => {
    const osc = c.createOscillator();
    const gain = c.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + at);
    gain.gain.exponentialRampToValueAtTime(0.25, now + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.6);
    osc.connect(gain).connect(c.destination);
    osc.start(now + at);
    osc.stop(now + at + 0.65);
  });
}

/** Chime and a buzz on phones that can. */
export function yourTurn() {
  chime();
  if (navigator.vibrate) {
    try { navigator.vibrate([120, 60, 120]); } catch { /* not allowed before a tap */ }
  }
}
