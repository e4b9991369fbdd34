// Which screens draw each engine of the core (view.game, catalog.presets[p].engine): its
// game screen and its options form (the lobby's, the end's, the one-phone setup's).
// It imports nothing, so a screen that looks an engine up (the lobby's settings) never
// imports the engines' screens, which import the shared controls back. engines.js fills it.

const engines = new Map();

/**
 * Record what draws a game of `engine`: `game(root)` mounts its screen and returns
 * {update, unmount}; `options(settings, editable, send)` draws its rules' form.
 */
export function register(engine, { game, options }) {
  if (typeof game !== "function" || typeof options !== "function") {
    throw new TypeError(`engine ${engine}: a game screen and an options form are both needed`);
  }
  engines.set(engine, { game, options });
}

function screensOf(engine) {
  // An engine this client does not know (an older page, a newer server) draws as undercover.
  const found = engines.get(engine) || engines.get("undercover");
  if (!found) throw new Error(`no screens registered for engine ${engine} (is screens/engines.js imported?)`);
  return found;
}

/** The screen that draws a game of `engine` (the undercover one when unknown). */
export function gameScreen(engine) {
  return screensOf(engine).game;
}

/** The options form for a game of `engine` (the undercover one when unknown). */
export function optionsForm(engine) {
  return screensOf(engine).options;
}
