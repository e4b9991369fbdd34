// The game screen of each engine of the core (view.game): a new engine adds its line here.

import { mountGame } from "./game.js";

export const gameScreens = {
  undercover: mountGame,
};

/** The screen that draws a game of `engine` (the undercover one when unknown). */
export function gameScreen(engine) {
  return gameScreens[engine] || mountGame;
}
