// The client's whole state in one place; screens subscribe and redraw what changed.

const listeners = new Set();

export const state = {
  code: null,          // room code
  player: null,        // my player id
  spectator: null,     // my spectator pass id (the shared screen: no seat), else null
  speakerMuted: false, // the shared screen's own speaker muted
  token: null,
  room: null,          // last `room` message
  view: null,          // last `view.view`
  mouths: {},          // pid -> 0..1, open mouths only (a pid absent: closed)
  links: {},           // pid -> "good" | "poor" | "gone": each voice's link (a pid absent: no voice)
  whispers: {},        // pid -> true while that player whispers to me
  whisperingTo: null,  // pid I am whispering to
  whisperHeld: null,   // pid my whisper was to, when it ended without me: nobody hears me until I let go
  whisperHeldTap: false, // that hush is no finger's (a new socket, a reload): only the banner's button ends it
  conn: "idle",        // idle | connecting | open | closed
  mic: "unknown",      // unknown | asking | on | denied | missing | skipped | insecure
  micMuted: false,
  voice: "off",        // off | connecting | on | failed
  offset: 0,           // server clock minus local clock, seconds
  offsetKnown: false,
  lastError: null,     // {code, message, ref}
};

/** Merge a patch and tell every subscriber which keys changed. */
export function update(patch) {
  Object.assign(state, patch);
  const keys = new Set(Object.keys(patch));
  for (const fn of listeners) fn(keys);
}

export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Server time now, from the offset measured on messages carrying `server_time`. */
export function serverNow() {
  return Date.now() / 1000 + state.offset;
}

export function playerById(pid) {
  return state.view?.players?.find((p) => p.id === pid)
    || state.room?.players?.find((p) => p.id === pid)
    || null;
}

export function isHost() {
  return Boolean(state.room && state.player && state.room.host === state.player);
}
