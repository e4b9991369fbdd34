// Voice: one RTCPeerConnection to the server. The mic goes up (sendrecv), the personal
// mix comes down. No trickle ICE: the offer is sent once gathering is complete.

import { attachRemote, resume } from "./audio.js";

const GATHER_TIMEOUT_MS = 5000;

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
    this.onState = onState;
    this.pc = null;
    this.mic = null;
  }

  /** (Re)connect with a fresh RTCPeerConnection; `mic` may be null (listen only). */
  async start(mic, iceServers = []) {
    this.close();
    this.mic = mic;
    const pc = new RTCPeerConnection({ iceServers });
    this.pc = pc;
    this.onState("connecting");
    const track = mic?.getAudioTracks()[0];
    if (track) pc.addTransceiver(track, { direction: "sendrecv", streams: [mic] });
    else pc.addTransceiver("audio", { direction: "recvonly" });
    pc.ontrack = (ev) => {
      const stream = ev.streams[0] || new MediaStream([ev.track]);
      this.audioEl.srcObject = stream;
      this.audioEl.play().catch(() => { /* resumed on the first tap */ });
      attachRemote(stream);
      resume();
    };
    pc.onconnectionstatechange = () => {
      if (this.pc !== pc) return;
      const s = pc.connectionState;
      if (s === "connected") this.onState("on");
      else if (s === "failed") this.onState("failed");
      else if (s === "disconnected" || s === "closed") this.onState("connecting");
    };
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    await waitGathering(pc);
    if (this.pc !== pc) return;
    this.send({ type: "rtc_offer", sdp: pc.localDescription.sdp });
  }

  async answer(sdp) {
    if (!this.pc || this.pc.signalingState !== "have-local-offer") return;
    await this.pc.setRemoteDescription({ type: "answer", sdp });
  }

  setMuted(muted) {
    for (const track of this.mic?.getAudioTracks() || []) track.enabled = !muted;
  }

  close() {
    if (this.pc) {
      this.pc.ontrack = null;
      this.pc.onconnectionstatechange = null;
      this.pc.close();
    }
    this.pc = null;
    this.onState("off");
  }
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
