// Before a game on one phone: the players' names (3 to 16) and the game with its rules,
// drawn by the same options forms as a room's lobby and checked by the core itself.

import { h } from "/static/js/dom.js";
import { errorText } from "/static/js/errors.js";
import { t } from "/static/js/i18n.js";
import { PRESETS, engineOf, getCatalog, presetChooser } from "/static/js/options.js";
import { optionsForm } from "/static/js/screens/engines.js";
import { call } from "./core.js";

const MIN = 3;
const MAX = 16;

/** `saved`: the last setup ({names, preset, options}); `onStart(setup)` starts a game;
 *  `evening()`: the evening's card so far (or null), drawn in the language of the moment. */
export function mountSetup(root, saved, { onStart, evening }) {
  const cat = getCatalog();
  const first = PRESETS.includes(saved?.preset) ? saved.preset : PRESETS[0];
  const s = {
    names: saved?.names?.length ? [...saved.names] : ["", "", ""],
    preset: first,
    options: saved?.preset === first ? { ...saved.options } : defaults(first),
  };
  const msg = h("p", { class: "form-error", role: "alert", id: "setup-error" });
  // What the message says, as a function: a change of language words it again.
  let said = null;
  const say = (words) => { said = words; msg.textContent = words ? words() : ""; };
  const namesEl = h("div", { class: "names" });
  const rulesEl = h("div", { class: "rules" });
  const el = h("div", { class: "screen onephone-setup" });
  root.append(el);

  /** Every text of the screen in the language now; the names typed and the rules
   *  chosen (`s`) stay as they are. */
  function draw() {
    say(said);
    // (replaceChildren would draw a null as the text "null": no evening yet is left out.)
    el.replaceChildren(...[
      h("section", { class: "hero" },
        h("h1", {}, t("offline.title")),
        h("p", { class: "tagline" }, t("offline.tagline"))),
      evening?.(),
      h("section", { class: "card" }, h("h2", {}, t("offline.players")), namesEl),
      h("section", { class: "card settings" }, h("h2", {}, t("lobby.settings")), rulesEl),
      msg,
      h("button", { class: "btn btn-primary btn-big", id: "start", onclick: () => start() }, t("offline.start")),
    ].filter(Boolean));
    drawNames();
    drawRules();
  }

  function defaults(preset) {
    return { ...(cat.presets?.[preset]?.defaults || {}), one_phone: true };
  }

  function drawNames() {
    namesEl.replaceChildren(
      ...s.names.map((name, i) => h("div", { class: "name-row" },
        h("input", {
          type: "text", class: "name-input", maxlength: 20, value: name, autocomplete: "off",
          "aria-label": t("offline.player_n", { n: i + 1 }), placeholder: t("offline.player_n", { n: i + 1 }),
          oninput: (ev) => { s.names[i] = ev.target.value; },
        }),
        s.names.length > MIN ? h("button", {
          class: "iconbtn", "aria-label": t("offline.remove", { n: i + 1 }),
          onclick: () => { s.names.splice(i, 1); drawNames(); },
        }, "×") : null)),
      s.names.length < MAX ? h("button", {
        class: "btn", id: "add-player",
        onclick: () => { s.names.push(""); drawNames(); namesEl.querySelectorAll("input")[s.names.length - 1]?.focus(); },
      }, t("offline.add_player")) : null,
      h("p", { class: "hint" }, t("offline.players_hint", { min: MIN, max: MAX })));
  }

  function drawRules() {
    const settings = { preset: s.preset, options: s.options };
    rulesEl.replaceChildren(
      h("div", { class: "options" }, presetChooser(settings, true, send)),
      optionsForm(engineOf(s.preset))(settings, true, send));
  }

  async function send(patch) {
    say(null);
    if (patch.preset && patch.preset !== s.preset) {
      s.preset = patch.preset;
      s.options = defaults(patch.preset);
    } else {
      for (const [key, value] of Object.entries(patch.options || {})) {
        // A patch, as in a room: {"timers": {"clue": 30}} changes one timer.
        s.options[key] = value && typeof value === "object" && !Array.isArray(value) && typeof s.options[key] === "object"
          ? { ...s.options[key], ...value } : value;
      }
      try {
        s.options = await call("validate", { preset: s.preset, options: s.options, n: 0 });
      } catch (err) {
        say(() => errorText(err));
      }
    }
    drawRules();
  }

  async function start() {
    say(null);
    const names = s.names.map((n) => n.trim().replace(/\s+/g, " "));
    if (names.length < MIN || names.some((n) => !n)) { say(() => t("offline.need_names", { min: MIN })); return; }
    const folded = names.map((n) => n.toLocaleLowerCase());
    if (new Set(folded).size !== names.length) { say(() => t("offline.same_name")); return; }
    try {
      const options = await call("validate", { preset: s.preset, options: { ...s.options, one_phone: true }, n: names.length });
      await onStart({ names, preset: s.preset, options });
    } catch (err) {
      say(() => errorText(err));
    }
  }

  draw();
  // A change of language redraws the screen in place (a new mount would lose the names).
  return { unmount() {}, redraw: draw };
}
