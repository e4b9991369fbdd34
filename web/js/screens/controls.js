// The buttons and forms several screens share: leaving the room, the host's settings form
// (the lobby's, and the end's before a rematch), the rematch bar. It imports no screen:
// the engine's options form is looked up in the registry.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { engineOf, presetChooser } from "../options.js";
import * as session from "../session.js";
import { isHost, state } from "../state.js";
import { monoSwitch, spatialSwitch } from "../volumes.js";
import { optionsForm } from "./registry.js";

/** Give the seat up for good (the server revokes the token and closes with 4004). */
export function leaveButton() {
  return h("button", {
    class: "btn btn-ghost", id: "leave-btn",
    onclick: () => { if (confirm(t("lobby.leave_confirm"))) session.send({ type: "leave" }); },
  }, t("lobby.leave"));
}

function sendSettings(patch) {
  // The server merges the patch, validates it and echoes the normalised room to all.
  session.send({ type: "settings", ...patch });
}

/** The host's settings: the game and style, then its engine's rules (lobby and end). */
export function settingsForm(amHost) {
  const s = state.room?.settings || {};
  return [
    h("div", { class: "options" }, presetChooser(s, amHost, sendSettings)),
    optionsForm(engineOf(s.preset))(s, amHost, sendSettings),
    h("div", { class: "options voice-options" }, spatialSwitch(amHost, session.send), monoSwitch()),
  ];
}

let rulesOpen = false;

/** On the end screen: the host may change the game or the rules before the rematch. */
export function nextRules() {
  if (!isHost()) return null;
  // Remembered at the click itself: a redraw may come before the details' toggle event.
  const details = h("details", { class: "card next-rules", id: "next-rules", open: rulesOpen },
    h("summary", { onclick: () => { rulesOpen = !details.open; } }, t("end.change_rules")),
    settingsForm(true));
  return details;
}

/** The rematch button's words: the same rules, or the game the host switched to. */
function rematchLabel() {
  const next = state.room?.settings?.preset;
  const played = state.view?.preset;
  return next && played && next !== played ? t("end.rematch_other", { game: t(`preset.${next}`) }) : t("end.rematch");
}

/** At the foot of every end screen: the host's rematch (the others wait for it), and leave. */
export function rematchBar() {
  return h("div", { class: "start-bar" }, isHost()
    ? h("button", { class: "btn btn-primary btn-big", id: "rematch-btn", onclick: () => session.send({ type: "rematch" }) }, rematchLabel())
    : h("p", { class: "hint waiting" }, t("end.wait_rematch")),
  leaveButton());
}
