// What the one-phone page keeps on the phone (localStorage), so a reload or a closed tab
// loses nothing: the last setup, the game in progress (its record: seed, players, words,
// every accepted action with its time; the game clock; where the phone is in its
// passing) and the evening's finished games.

const KEY = "sussurro:onephone";

function read() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

let data = read();

function save() {
  try {
    localStorage.setItem(KEY, JSON.stringify(data));
  } catch { /* full or private mode: the game goes on, unsaved */ }
}

export const store = {
  get setup() { return data.setup || null; },
  set setup(v) { data.setup = v; save(); },
  get game() { return data.game || null; },
  set game(v) { data.game = v; save(); },
  /** The evening: {results: [game result...]} of the finished games, oldest first. */
  get evening() { return data.evening || { results: [] }; },
  set evening(v) { data.evening = v; save(); },
  /** Write the current game again after changing it in place. */
  save,
};

/**
 * The game's clock (seconds). It runs only while the phone is on the table, so passing
 * it around and reading cards costs nobody their turn, and it stops with the page: a
 * reload goes on from where the game was.
 */
export function gameClock(game) {
  let since = null;   // performance.now() when it started running
  const now = () => game.clock + (since === null ? 0 : (performance.now() - since) / 1000);
  return {
    now,
    running: () => since !== null,
    run(on) {
      if (on && since === null) since = performance.now();
      if (!on && since !== null) { game.clock = now(); since = null; store.save(); }
    },
    /** Jump to `t` (a phase that only lasts its time, skipped at the table's wish). */
    jump(t) {
      const running = since !== null;
      game.clock = Math.max(now(), t);
      since = running ? performance.now() : null;
      store.save();
    },
    /** Keep the time in the store (called now and then while it runs). */
    persist() {
      if (since !== null) { game.clock = now(); since = performance.now(); store.save(); }
    },
  };
}
