// Everything remembered on this device: profile, seat tokens per room, notepad marks.

const PREFIX = "sussurro:";

function read(key, fallback) {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch { /* private mode or full: the game still works, just forgets */ }
}

export const profile = {
  get: () => read("profile", { name: "", color: null }),
  set: (p) => write("profile", p),
};

export const lang = {
  get: () => read("lang", null),
  set: (l) => write("lang", l),
};

/** Seat in a room: {player, token}. */
export const seat = {
  get: (code) => read(`seat:${code}`, null),
  set: (code, value) => write(`seat:${code}`, value),
  clear: (code) => write(`seat:${code}`, null),
};

/** A spectator pass per room, for the shared screen: {spectator, token}. */
export const tv = {
  get: (code) => read(`tv:${code}`, null),
  set: (code, value) => write(`tv:${code}`, value),
  clear: (code) => write(`tv:${code}`, null),
};

/** The microphone was granted once on this device: ask again silently after a reload. */
export const mic = {
  get: () => read("mic", null),
  set: (v) => write("mic", v),
};

/** My own volume per voice in a room: {pid: {percent: 0..150, muted}}. */
export const volumes = {
  get: (code) => read(`volumes:${code}`, {}),
  set: (code, levels) => write(`volumes:${code}`, Object.keys(levels).length ? levels : null),
};

/** My own choice of mono (one earbud) in a room, while its voices are placed by seat. */
export const mono = {
  get: (code) => read(`mono:${code}`, false) === true,
  set: (code, on) => write(`mono:${code}`, on ? true : null),
};

/** Notepad marks per room and game: {pid: "suspect" | "trusted"}. */
export const notes = {
  get: (code, game) => read(`notes:${code}:${game}`, {}),
  set: (code, game, marks) => write(`notes:${code}:${game}`, marks),
};
