// What each engine of the core (view.game, catalog.presets[p].engine) draws: its game
// screen and its options form in the lobby. A new engine adds its line here.

import { lupiOptions } from "../lupi_options.js";
import { undercoverOptions } from "../options.js";
import { mountGame } from "./game.js";
import { mountImpostor } from "./impostor.js";
import { impostorOptions } from "./impostor-options.js";
import { mountLupi } from "./lupi.js";

export const engines = {
  undercover: { game: mountGame, options: undercoverOptions },
  impostor: { game: mountImpostor, options: impostorOptions },
  werewolf: { game: mountLupi, options: lupiOptions },
};

/** The screen that draws a game of `engine` (the undercover one when unknown). */
export function gameScreen(engine) {
  return (engines[engine] || engines.undercover).game;
}

/** The lobby's options form for a game of `engine`. */
export function optionsForm(engine) {
  return (engines[engine] || engines.undercover).options;
}
