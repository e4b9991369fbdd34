// Voice: one RTCPeerConnection to the server. The mic goes up (sendrecv), the personal
// mix comes down. No trickle ICE: the offer is sent once gathering is complete.

import { attachRemote, resume } from "./audio.js";

const GATHER_TIMEOUT_MS = 5000;
// A peer that has not connected this long after its answer is replaced by a fresh one.
const CONNECT_TIMEOUT_MS = 8000;
const MAX_RETRIES = 6;

/** Ask for the mic with voice processing, unless the page runs the audio tests. */
export async function getMic() {
  if (!navigator.mediaDevices?.getUserMedia) {
    const err = new Error("no mediaDevices");
    err.name = "NotFoundError";
    throw err;
  }
  const test = new URLSearchParams(location.search).has("testaudio");
  // Echo cancellation and noise suppression would eat the steady test tones.
  const processing = !test;
  return navigator.mediaDevices.getUserMedia({
    audio: {
      echoCancellation: processing,
      noiseSuppression: processing,
      autoGainControl: processing,
    },
  });
}

export class Voice {
  /**
   * @param {(msg: object) => boolean} send  sends a WebSocket message
   * @param {HTMLAudioElement} audioEl       plays the mix
   * @param {(state: string) => void} onState
   */
  constructor(send, audioEl, onState) {
    this.send = send;
    this.audioEl = audioEl;
    // iOS Safari plays media full screen unless told inline (the markup says so too).
    audioEl.playsInline = true;
    audioEl.setAttribute("playsinline", "");
    this.onState = onState;
    this.pc = null;
    this.mic = null;
    // Answers come back in the order the offers went out (one room actor): count them
    // so an answer to a replaced offer is never applied to the newer peer.
    this.sent = 0;
    this.answered = 0;
    this.mine = 0;
  }

  /** (Re)connect with a fresh RTCPeerConnection; `mic` may be null (listen only). */
  async start(mic, iceServers = [], retry = 0) {
    this.close();
    this.mic = mic;
    this.iceServers = iceServers;
    this.retry = retry;
    const pc = new RTCPeerConnection({ iceServers });
    this.pc = pc;
    this.onState("connecting");
    const track = mic?.getAudioTracks()[0];
    if (track) pc.addTransceiver(track, { direction: "sendrecv", streams: [mic] });
    else pc.addTransceiver("audio", { direction: "recvonly" });
    pc.ontrack = (ev) => {
      smallestPlayoutDelay(ev.receiver);
      const stream = ev.streams[0] || new MediaStream([ev.track]);
      this.audioEl.srcObject = stream;
      // Autoplay may be refused after a reload: the page offers a tap to unmute.
      this.audioEl.play().then(() => this.onState("audio_ok")).catch(() => this.onState("audio_blocked"));
      attachRemote(stream);
      resume();
    };
    pc.onconnectionstatechange = () => {
      if (this.pc !== pc) return;
      const s = pc.connectionState;
      if (s === "connected") {
        this.retry = 0;
        this.onState("on");
      } else if (s === "failed") {
        this.onState("failed");
        this.retryLater(pc, 1000);
      }
      else if (s === "disconnected" || s === "closed") this.onState("connecting");
    };
    const offer = await pc.createOffer();
    try {
      // "Send me stereo": the server then places the voices around the table when the
      // room asks for it. Chrome decodes stereo only when its own description says so.
      await pc.setLocalDescription({ type: "offer", sdp: withStereo(offer.sdp) });
    } catch {
      await pc.setLocalDescription(offer);  // a browser that refuses the edit: mono
    }
    await waitGathering(pc);
    if (this.pc !== pc) return;
    this.sent += 1;
    this.mine = this.sent;
    if (!this.send({ type: "rtc_offer", sdp: pc.localDescription.sdp, ref: `rtc${this.sent}` })) {
      this.sent -= 1;   // not sent: the next welcome starts again
      this.mine = 0;
    }
  }

  /** The server's answer (or its refusal, sdp null) to the oldest offer still open. */
  async answer(sdp) {
    this.answered += 1;
    if (this.answered !== this.mine || !sdp) return;
    const pc = this.pc;
    if (!pc || pc.signalingState !== "have-local-offer") return;
    await pc.setRemoteDescription({ type: "answer", sdp });
    // ICE can stall (a busy server, a peer replaced mid-check): start over if it does.
    this.retryLater(pc, CONNECT_TIMEOUT_MS);
  }

  retryLater(pc, delay) {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      if (this.pc !== pc || pc.connectionState === "connected") return;
      if (this.retry >= MAX_RETRIES) { this.onState("failed"); return; }
      this.start(this.mic, this.iceServers, this.retry + 1).catch(() => this.onState("failed"));
    }, delay);
  }

  /** A new socket: offers in flight on the old one will never be answered. */
  resetCount() {
    this.sent = 0;
    this.answered = 0;
    this.mine = 0;
  }

  setMuted(muted) {
    for (const track of this.mic?.getAudioTracks() || []) track.enabled = !muted;
  }

  close() {
    clearTimeout(this.watchdog);
    if (this.pc) {
      this.pc.ontrack = null;
      this.pc.onconnectionstatechange = null;
      this.pc.close();
    }
    this.pc = null;
    this.onState("off");
  }
}

/**
 * Ask the receiver to play out as early as the network allows: a target of 0 for
 * its jitter buffer (`jitterBufferTarget`, ms, or the older `playoutDelayHint`, s),
 * where the browser offers either. Every 20 ms counts in a spoken game; the buffer
 * still grows by itself when packets arrive unevenly.
 */
function smallestPlayoutDelay(receiver) {
  try {
    if ("jitterBufferTarget" in receiver) receiver.jitterBufferTarget = 0;
    else if ("playoutDelayHint" in receiver) receiver.playoutDelayHint = 0;
  } catch {
    // Not settable here: the browser's own playout delay stays.
  }
}

/** The offer with `stereo=1` on its Opus fmtp line (RFC 7587: the receiver takes stereo). */
export function withStereo(sdp) {
  const opus = new Set([...sdp.matchAll(/^a=rtpmap:(\d+) opus\/48000/gim)].map((m) => m[1]));
  return sdp.replace(/^a=fmtp:(\d+) ([^\r\n]*)/gm, (line, pt, params) =>
    (opus.has(pt) && !/(^|;)\s*stereo=1/.test(params) ? `${line};stereo=1` : line));
}

function waitGathering(pc) {
  if (pc.iceGatheringState === "complete") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (pc.iceGatheringState !== "complete") return;
      pc.removeEventListener("icegatheringstatechange", done);
      clearTimeout(timer);
      resolve();
    };
    // Without STUN gathering ends fast; the timeout guards odd network stacks.
    const timer = setTimeout(resolve, GATHER_TIMEOUT_MS);
    pc.addEventListener("icegatheringstatechange", done);
  });
}
