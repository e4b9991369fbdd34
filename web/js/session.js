// The player's seat in a room: HTTP join/create, the WebSocket, voice and mic.
// Screens call these functions; incoming messages land in `state`.

import * as audio from "./audio.js";
import { initialLang, setLang, t } from "./i18n.js";
import { Connection } from "./net.js";
import { Voice, getMic } from "./rtc.js";
import { micAlreadyGranted, voiceSupported } from "./support.js";
import { micApiAvailable } from "./secure.js";
import { playerById, state, update } from "./state.js";
import * as storage from "./storage.js";
import * as volumes from "./volumes.js";

let conn = null;
let voice = null;
let micStream = null;
let refCounter = 0;
let lastTurnCue = "";
let bestRtt = Infinity;
let iceServers = [];
let serverVoice = true;
let welcomed = false;  // the current socket got its welcome
let iceTimer = null;

// docs/protocol.md's close codes that mean "do not come back".
const CLOSE_REASONS = {
  4000: "replaced", 4001: "bad_token", 4003: "kicked", 4004: "left", 4005: "room_closed", 4029: "flood",
};
// Refusals after which the seat is gone.
const SEAT_LOST = ["bad_token", "kicked", "unknown_room"];

// ---------- HTTP ----------

async function post(url, body) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  let data = null;
  try { data = await res.json(); } catch { /* empty body */ }
  if (!res.ok) {
    const err = new Error(data?.message || data?.detail?.message || res.statusText);
    err.code = data?.code || data?.detail?.code || (res.status === 404 ? "unknown_room" : "http_error");
    throw err;
  }
  return data;
}

export async function roomInfo(code) {
  const res = await fetch(`/api/rooms/${encodeURIComponent(code)}`);
  if (!res.ok) return null;
  return res.json();
}

export async function createRoom({ name, color, preset, lang }) {
  const data = await post("/api/rooms", { name, color, preset, lang });
  return enterRoom(data.code, { player: data.player, token: data.token, node: data.node });
}

export async function joinRoom(code, { name, color }) {
  const data = await post(`/api/rooms/${encodeURIComponent(code)}/join`, { name, color });
  return enterRoom(code, { player: data.player, token: data.token, node: data.node });
}

/**
 * Cluster mode: the URL of the node serving room `code` now, asked of this page's server
 * first, then of the other nodes (a page whose own server died still finds its room).
 */
// Where room `code` is served now: its node's URL; {retryAfter: s} when a node said the
// room is moving (503 + Retry-After); null when nobody knew. A node that does not answer
// within LOCATE_TIMEOUT ms (frozen) is skipped.
const LOCATE_TIMEOUT = 2000;
async function locate(code, nodes) {
  let retryAfter = 0;
  for (const base of ["", ...new Set(nodes)]) {
    try {
      const res = await fetch(`${base}/api/rooms/${encodeURIComponent(code)}`,
        { signal: AbortSignal.timeout(LOCATE_TIMEOUT) });
      if (res.ok) return (await res.json()).node || null;
      // (Retry-After is not exposed across origins: the body says it too.)
      const body = await res.json().catch(() => ({}));
      const wait = Number(res.headers.get("Retry-After")) || Number(body.retry_after) || 0;
      if (res.status === 503 && wait > 0) retryAfter = retryAfter ? Math.min(retryAfter, wait) : wait;
    } catch { /* that node is down: ask the next */ }
  }
  return retryAfter ? { retryAfter } : null;
}

// ---------- the seat ----------

/**
 * The shared screen (issue 13): a spectator pass for room `code` (remembered on this
 * device, else asked for), then the same socket and voice as a seat, listening only.
 */
export async function watchRoom(code) {
  code = code.toUpperCase();
  let pass = storage.tv.get(code);
  if (!pass?.token) {
    const data = await post(`/api/rooms/${encodeURIComponent(code)}/watch`, {});
    pass = { spectator: data.spectator, token: data.token, node: data.node };
  }
  return enterRoom(code, pass);
}

/** Take a seat (fresh or remembered), or a spectator pass (`seat.spectator`), and connect. */
export function enterRoom(code, seat) {
  code = code.toUpperCase();
  const tv = Boolean(seat.spectator);
  (tv ? storage.tv : storage.seat).set(code, seat);
  const path = tv ? `/r/${code}/tv` : `/r/${code}`;
  if (location.pathname !== path) {
    history.replaceState(null, "", `${path}${location.search}`);
  }
  update({
    code, player: seat.player || null, spectator: seat.spectator || null, token: seat.token,
    room: null, view: null, mouths: {}, links: {}, whispers: {}, whisperingTo: null, whisperHeld: null,
    whisperHeldTap: false,
  });
  if (conn) conn.close();
  if (!voice) {
    voice = new Voice((msg) => send(msg), document.getElementById("remote-audio"), (v) => {
      if (v === "audio_blocked" || v === "audio_ok") update({ audioBlocked: v === "audio_blocked" });
      else update({ voice: v });
    });
  }
  conn = new Connection(seat.token, {
    onMessage: handleMessage,
    onStatus: (s) => { welcomed = false; update({ conn: s }); },
    onFinal: (closeCode) => leaveRoom(CLOSE_REASONS[closeCode] || "closed"),
    locate: (nodes) => locate(code, nodes),
  }, seat.node || null);
  conn.open();
  // The mic was granted before on this device: take it again so a reload restores voice,
  // but only where the browser says it is still granted (no prompt); otherwise the
  // prompt waits for the player's tap on the mic card (Safari asks from a gesture only).
  if (storage.mic.get() === "on" && state.mic === "unknown" && voiceSupported()) {
    micAlreadyGranted().then((granted) => {
      if (granted && state.mic === "unknown" && state.code === code) requestMic();
    });
  }
  return code;
}

export function leaveRoom(reason = null) {
  const code = state.code;
  if (code) (state.spectator ? storage.tv : storage.seat).clear(code);
  if (conn) conn.close();
  conn = null;
  clearTimeout(iceTimer);
  voice?.close();
  // A forgotten seat (bad token) can be taken again from the same link; otherwise go home.
  const tail = state.spectator ? "/tv" : "";
  const path = reason === "bad_token" && code ? `/r/${code}${tail}` : "/";
  history.replaceState(null, "", `${path}${location.search}`);
  update({
    code: null, player: null, spectator: null, token: null, room: null, view: null, conn: "idle",
    lastError: reason ? { code: reason, message: reason, at: Date.now() } : null,
  });
}

volumes.setSender((msg) => send(msg));

export function send(msg) {
  // An offer on a socket the server has not welcomed yet would be answered before the
  // welcome resets the voice's count of answers, and that answer would go to the wrong
  // peer: the welcome starts the voice anyway.
  if (msg.type === "rtc_offer" && !welcomed) return false;
  const ok = conn?.send(msg) ?? false;
  if (!ok && msg.type !== "ping" && msg.type !== "rtc_offer" && msg.type !== "ice") {
    update({ lastError: { code: "offline", message: t("error.offline"), at: Date.now() } });
  }
  return ok;
}

/** Send a game action; returns its ref so a screen can match the server's refusal. */
export function act(action) {
  refCounter += 1;
  const ref = `a${refCounter}`;
  update({ pending: ref });
  send({ type: "action", action, ref });
  return ref;
}

// ---------- incoming ----------

export function handleMessage(msg) {
  if (typeof msg.server_time === "number") measureOffset(msg);
  switch (msg.type) {
    case "welcome":
      welcomed = true;
      // `room` here is the code; the full room follows in its own message.
      update({ player: msg.player ?? state.player, spectator: msg.spectator ?? null });
      iceServers = Array.isArray(msg.ice_servers) ? msg.ice_servers : [];
      refreshIceLater(msg.server_time);
      serverVoice = msg.voice !== false;
      voice?.resetCount();
      if (!msg.spectator) reconcileWhisper(msg.whisper ?? null);
      // Every (re)connection gets a fresh RTCPeerConnection: the old peer died with the socket.
      startVoice();
      // My own volumes are kept on this device: the server hears them again on each socket.
      volumes.resend();
      break;
    case "ice_servers":
      // Fresh TURN credentials: a voice that starts over from now on uses them.
      iceServers = Array.isArray(msg.ice_servers) ? msg.ice_servers : [];
      if (voice) voice.iceServers = iceServers;
      refreshIceLater(msg.server_time);
      break;
    case "room": {
      const { type, ...room } = msg;
      update({ room });
      applyRoomLang();
      break;
    }
    case "view":
      onView(msg.view);
      break;
    case "mouths":
      update({ mouths: msg.levels || {} });
      break;
    case "links":
      // Every player's voice link, whole each time (after the welcome, then on changes).
      update({ links: msg.links || {} });
      break;
    case "whisper": {
      // The whisperer gets the same message: only whispers *to me* make a banner.
      if (msg.to && msg.to !== state.player) {
        if (msg.from === state.player && msg.active) {
          // The server's word: the whisper (perhaps resumed after a new socket) is on.
          update({ whisperingTo: msg.to, whisperHeld: null, whisperHeldTap: false });
        } else if (msg.from === state.player) {
          // Ended without me (the target left, lost their voice, the phase changed): the
          // server keeps me silent for everyone until I let go, and says so.
          update({
            whisperingTo: null, whisperHeld: msg.hushed ? msg.to : null,
            whisperHeldTap: Boolean(msg.hushed) && !holdingWhisper(),
          });
          if (msg.hushed) {
            const name = playerById(msg.to)?.name || "?";
            update({ notice: { text: t(`whisper.ended.${msg.reason}`, { name }), at: Date.now() } });
          }
        }
        break;
      }
      const whispers = { ...state.whispers };
      if (msg.active) whispers[msg.from] = true;
      else delete whispers[msg.from];
      update({ whispers });
      break;
    }
    case "cue":
      // The sound itself is in the voice mix; the page adds the chime and a buzz for my turn.
      if (msg.name === "your_turn") turnCue(turnKey(state.view));
      else if (msg.name === "vote_open" && navigator.vibrate) {
        try { navigator.vibrate(80); } catch { /* not allowed yet */ }
      }
      break;
    case "rtc_answer":
      voice?.answer(msg.sdp).catch(() => update({ voice: "failed" }));
      break;
    case "error":
      if (typeof msg.ref === "string" && msg.ref.startsWith("rtc")) {
        // Refused (a full minute's offers, a bad one): the voice asks again later by itself.
        voice?.answer(null);
      }
      // A refused whisper_start: I am not whispering (if I was hushed, I still am).
      if (msg.code === "whisper_not_allowed" && state.whisperingTo) update({ whisperingTo: null });
      update({ lastError: { code: msg.code, message: msg.message, ref: msg.ref, detail: msg.detail, at: Date.now() } });
      if (SEAT_LOST.includes(msg.code)) leaveRoom(msg.code);
      break;
    default:
      break;
  }
}

/**
 * TURN credentials ("EXPIRY:ID") live minutes (docs/deploy.md): ask the server for fresh
 * ones (`ice`) at four fifths of their life, so a voice that has to start over mid-evening
 * still gets a relay.
 */
function refreshIceLater(serverTime) {
  clearTimeout(iceTimer);
  const expiries = iceServers
    .map((s) => Number.parseInt(String(s.username || "").split(":")[0], 10))
    .filter((n) => Number.isFinite(n) && n > 0);
  if (!expiries.length || typeof serverTime !== "number") return;
  const life = Math.min(...expiries) - serverTime;
  iceTimer = setTimeout(() => send({ type: "ice" }), Math.max(5, life * 0.8) * 1000);
}

function onView(view) {
  const prev = state.view;
  // A new phase may hide mouths shown until now: every mouth closes, and the server
  // sends levels again only where a visible one moves.
  if (prev && view && prev.phase !== view.phase) update({ view, mouths: {} });
  else update({ view });
  // A fact that arrives mid-game (the Sabotatore swapped words with me) deserves a word.
  const before = new Set((prev?.me?.known || []).map((f) => `${f.fact}:${f.player}`));
  for (const f of view?.me?.known || []) {
    if (prev && prev.phase !== "over" && !before.has(`${f.fact}:${f.player}`) && f.fact === "word_swapped") {
      update({ notice: { text: t("fact.word_swapped"), at: Date.now() } });
    }
  }
  if (view && view.phase === "clues" && view.turn && view.turn === state.player) {
    if (!prev || turnKey(prev) !== turnKey(view)) turnCue(turnKey(view));
  }
}

/** One turn: the round, the round of clues within it (Impostore plays several), who. */
function turnKey(view) {
  return `${view?.round}:${view?.clue_round ?? ""}:${view?.phase}:${view?.turn}`;
}

function turnCue(key) {
  if (key === lastTurnCue) return;   // the cue message and the view both announce it
  lastTurnCue = key;
  audio.yourTurn();
}

function measureOffset(msg) {
  // Pongs give a round trip: keep the sample with the smallest one (half of it is the
  // one-way delay). Other messages only seed the offset until the first pong.
  if (typeof msg.rtt === "number") {
    if (msg.rtt > bestRtt * 1.5) return;
    bestRtt = Math.min(bestRtt, msg.rtt);
    update({ offset: msg.server_time + msg.rtt / 2 - Date.now() / 1000, offsetKnown: true });
  } else if (bestRtt === Infinity) {
    update({ offset: msg.server_time - Date.now() / 1000, offsetKnown: true });
  }
}

function applyRoomLang() {
  const roomLang = state.room?.settings?.options?.lang || state.view?.lang;
  setLang(initialLang(roomLang));
}

// ---------- voice and mic ----------

function startVoice() {
  if (!voiceSupported()) {
    // No WebRTC in this browser: said on the mic card; the game goes on by text.
    update({ voice: "unsupported" });
    return;
  }
  if (!voice || !serverVoice) return;
  voice.start(micStream, iceServers).catch(() => update({ voice: "failed" }));
}

/** Ask for the microphone (after the screen explained why). */
export async function requestMic() {
  if (!voiceSupported()) {
    update({ voice: "unsupported" });
    return;
  }
  if (!micApiAvailable()) {
    // Plain http on another device: the mic card shows the https address instead.
    update({ mic: "insecure" });
    if (conn?.isOpen) startVoice();
    return;
  }
  update({ mic: "asking" });
  try {
    micStream = await getMic();
    storage.mic.set("on");
    update({ mic: "on", micMuted: false });
  } catch (err) {
    micStream = null;
    const denied = err?.name === "NotAllowedError" || err?.name === "SecurityError";
    update({ mic: denied ? "denied" : "missing" });
    if (denied) storage.mic.set(null);
  }
  if (conn?.isOpen) startVoice();
}

/** Play by text only, without asking for the mic. */
export function skipMic() {
  update({ mic: "skipped" });
}

/** Voice connection details for diagnostics (tests print them when voice fails). */
export function voiceInfo() {
  const pc = voice?.pc;
  return {
    sent: voice?.sent, answered: voice?.answered, mine: voice?.mine,
    signaling: pc?.signalingState, ice: pc?.iceConnectionState,
    gathering: pc?.iceGatheringState, connection: pc?.connectionState,
  };
}

/** The shared screen's own speaker, on or off at once (the room hears nothing of it). */
export function setSpeakerMuted(muted) {
  document.getElementById("remote-audio").muted = muted;
  update({ speakerMuted: muted });
}

/** The tap that lets the browser play the voice mix (after an autoplay refusal). */
export function unblockAudio() {
  const el = document.getElementById("remote-audio");
  el.play().then(() => update({ audioBlocked: false })).catch(() => {});
}

export function toggleMute() {
  const muted = !state.micMuted;
  voice?.setMuted(muted);
  update({ micMuted: muted });
}

export function whisperStart(to) {
  if (send({ type: "whisper_start", to })) update({ whisperingTo: to });
}

/** Let go of a whisper (the finger lifted) or of a hush (the finger, or the banner's
 * button). Offline, the server ended the whisper and hushed me when my socket closed;
 * the next welcome says so and the page shows the hush again. */
export function whisperStop() {
  if (state.whisperingTo || state.whisperHeld) send({ type: "whisper_stop" });
  update({ whisperingTo: null, whisperHeld: null, whisperHeldTap: false });
}

/** A finger is (as far as the page knows) still down on a whisper or on its hush. */
export function holdingWhisper() {
  return Boolean(state.whisperingTo || (state.whisperHeld && !state.whisperHeldTap));
}

/**
 * On every welcome: make the page show what the server holds of my whisper. A new
 * socket never carries a whisper on (docs/protocol.md, "Whispers"): the server has
 * me hushed, heard by nobody, until my own gesture. If the finger that started the
 * whisper is still down on the same player, continuing that gesture resumes it (a
 * new whisper_start, the same one ear); otherwise the page shows the hush, and
 * lifting that finger, or the banner's button for a page with no finger down,
 * lets me talk to everyone again.
 */
function reconcileWhisper(w) {
  // Whispers to me: the server announces the ones still going again, after the view.
  const patch = { whispers: {} };
  if (!w) {
    Object.assign(patch, { whisperingTo: null, whisperHeld: null, whisperHeldTap: false });
  } else if (state.whisperingTo === w.to && w.resumable) {
    patch.whisperHeld = w.to;  // shown as the whisper; the server's answer confirms it
  } else {
    Object.assign(patch, { whisperingTo: null, whisperHeld: w.to, whisperHeldTap: !holdingWhisper() });
  }
  update(patch);
  if (w && state.whisperingTo === w.to) send({ type: "whisper_start", to: w.to });
}
