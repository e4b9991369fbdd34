// Every engine the client draws, registered with its game screen and its options form.
// A new engine adds its line here. The entry points (app.js, the one-phone page's setup)
// import the look-ups from this module, which is what registers them all; a screen
// imports them from registry.js instead (importing this one would close a circle).

import { lupiOptions } from "../lupi_options.js";
import { undercoverOptions } from "../options.js";
import { mountGame } from "./game.js";
import { mountImpostor } from "./impostor.js";
import { impostorOptions } from "./impostor-options.js";
import { mountLupi } from "./lupi.js";
import { register } from "./registry.js";

register("undercover", { game: mountGame, options: undercoverOptions });
register("impostor", { game: mountImpostor, options: impostorOptions });
register("werewolf", { game: mountLupi, options: lupiOptions });

export { gameScreen, optionsForm } from "./registry.js";
