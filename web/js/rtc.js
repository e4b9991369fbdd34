// Voice: one RTCPeerConnection to the server. The mic goes up (sendrecv), the personal
// mix comes down. No trickle ICE: the offer is sent once gathering is complete.

import { attachRemote, resume } from "./audio.js";

const GATHER_TIMEOUT_MS = 5000;
// A peer that has not connected this long after its answer is replaced by a fresh one:
// generous for the first (a busy server), shorter once the voice is being recovered.
const CONNECT_TIMEOUT_MS = 8000;
const RECONNECT_TIMEOUT_MS = 6000;
// A connected voice is watched: the server sends every listener at least one packet per
// 400 ms (Opus DTX in silence), so nothing received this long (two keepalives missed)
// means the path is dead (Wi-Fi to mobile data, a blackout); "disconnected" this long
// means the same. A false alarm costs a fresh peer: a few hundred ms of silence.
const WATCH_MS = 200;
const STALL_MS = 1000;
const DISCONNECTED_MS = 1500;
const PATH_BACK_MS = 700;  // see probe()
const FIRST_PACKET_MS = 4000;  // a new peer's first packet may wait for the room's loop
// Waits before the next attempt once one failed (the last repeats): the voice never gives
// up while the socket is up; the server's RTC_OFFERS_PER_MINUTE (12) is never reached.
const BACKOFF_MS = [0, 500, 1000, 2000, 4000];
const REFUSED_MS = 10000;  // the server refused an offer: ask again, slowly

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

  /**
   * (Re)connect with a fresh RTCPeerConnection; `mic` may be null (listen only). `retry`
   * counts the attempts since the voice last worked: from the first on, the page says the
   * voice is down ("down") rather than connecting.
   */
  async start(mic, iceServers = [], retry = 0) {
    this.close(retry ? "down" : "connecting");
    this.mic = mic;
    this.iceServers = iceServers;
    this.retry = retry;
    const pc = new RTCPeerConnection({ iceServers, ...testPolicy() });
    this.pc = pc;
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
      clearTimeout(this.dropTimer);
      if (s === "connected") {
        clearTimeout(this.watchdog);
        this.retry = 0;
        this.onState("on");
        this.watch(pc);
      } else if (s === "failed") {
        this.recover(pc);
      } else if (s === "disconnected") {
        // ICE may come back by itself; if it does not soon, a new peer is quicker.
        this.onState("down");
        this.dropTimer = setTimeout(() => this.recover(pc), DISCONNECTED_MS);
      }
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
    if (this.answered !== this.mine) return;
    const pc = this.pc;
    if (!pc || pc.signalingState !== "have-local-offer") return;
    if (!sdp) {
      this.recover(pc, REFUSED_MS);
      return;
    }
    try {
      await pc.setRemoteDescription({ type: "answer", sdp });
    } catch {
      this.recover(pc);
      return;
    }
    // ICE can stall (a busy server, a peer replaced mid-check): start over if it does.
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      if (this.pc === pc && pc.connectionState !== "connected") this.recover(pc);
    }, this.retry ? RECONNECT_TIMEOUT_MS : CONNECT_TIMEOUT_MS);
    if (this.retry) this.probe(pc);
  }

  /**
   * A peer made while the path was dead can hold back for seconds after it returns (its
   * checks and DTLS handshake backed off): once the server's packets reach it again and
   * it is still not connected PATH_BACK_MS later (times the attempt's number), a fresh
   * peer is quicker.
   */
  probe(pc) {
    clearInterval(this.watcher);
    let last = -1;
    let heardAt = 0;
    this.watcher = setInterval(async () => {
      if (this.pc !== pc || pc.connectionState === "connected") return;
      let got = 0;
      try {
        (await pc.getStats()).forEach((r) => {
          if (r.type === "candidate-pair") got += (r.responsesReceived || 0) + (r.requestsReceived || 0);
        });
      } catch {
        return;
      }
      const now = performance.now();
      if (last >= 0 && got > last && !heardAt) heardAt = now;
      last = got;
      // The path is back: the first time no backoff. Each later attempt waits longer (a
      // loaded server may just be slow to finish DTLS), so this never loops quickly.
      if (heardAt && now - heardAt > PATH_BACK_MS * this.retry) this.recover(pc, 0, this.retry > 1);
    }, WATCH_MS);
  }

  /**
   * `pc` failed, stalled or never connected: a fresh peer after the backoff's wait (at
   * least `least` ms). Never gives up; a closed socket stops it (the offer is not sent)
   * and the next welcome starts the voice again.
   */
  recover(pc, least = 0, backoff = true) {
    if (this.pc !== pc || this.recovering === pc) return;
    this.recovering = pc;
    this.onState("down");
    clearTimeout(this.watchdog);
    clearTimeout(this.dropTimer);
    clearInterval(this.watcher);
    const wait = backoff ? Math.max(least, BACKOFF_MS[Math.min(this.retry, BACKOFF_MS.length - 1)]) : least;
    this.watchdog = setTimeout(() => {
      if (this.pc !== pc) return;
      this.start(this.mic, this.iceServers, this.retry + 1).catch(() => this.onState("failed"));
    }, wait);
  }

  /** While `pc` is connected: nothing received for STALL_MS means a dead path. */
  watch(pc) {
    clearInterval(this.watcher);
    let last = -1;
    let at = performance.now();
    this.watcher = setInterval(async () => {
      if (this.pc !== pc || pc.connectionState !== "connected") return;
      let got = 0;
      try {
        (await pc.getStats()).forEach((r) => {
          if (r.type === "inbound-rtp" && r.kind !== "video") got += r.packetsReceived || 0;
        });
      } catch {
        return;
      }
      const now = performance.now();
      if (got !== last) {
        last = got;
        at = now;
      } else if (now - at > (last > 0 ? STALL_MS : FIRST_PACKET_MS)) {
        this.recover(pc);
      }
    }, WATCH_MS);
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

  close(state = "off") {
    clearTimeout(this.watchdog);
    clearTimeout(this.dropTimer);
    clearInterval(this.watcher);
    if (this.pc) {
      this.pc.ontrack = null;
      this.pc.onconnectionstatechange = null;
      this.pc.close();
    }
    this.pc = null;
    this.recovering = null;
    this.onState(state);
  }
}

/**
 * Test-only: `?relay=1` in the page's address forces the voice through TURN
 * (`iceTransportPolicy: "relay"`), as a network that lets no UDP through to the server
 * would; tests/browser/test_turn_paths.py uses it with coturn over TCP and TLS.
 */
function testPolicy() {
  return new URLSearchParams(location.search).has("relay") ? { iceTransportPolicy: "relay" } : {};
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
