// The secret card: hidden until pressed and held, so a neighbour's glance shows nothing.

import { h, holdable } from "./dom.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";
import { factText, powerName, roleName } from "./names.js";

/** The undercover card: my word, my role and power, what I was told about others. */
export function secretCard(view) {
  const me = view.me || {};
  return heldCard([
    h("span", { class: "label" }, t("card.word")),
    h("strong", { class: "secret-word", id: "secret-word" }, me.word ?? t("card.no_word")),
    me.role ? h("p", { class: "secret-role" }, t("card.role"), ": ", h("strong", {}, roleName(me.role, view.preset))) : null,
    me.power ? h("p", { class: "secret-power", "data-power": me.power },
      t("card.power"), ": ", h("strong", {}, powerName(me.power)),
      h("small", {}, t(`power.${me.power}.help`))) : null,
    me.drunk ? h("p", { class: "hint" }, t("card.drunk")) : null,
    (me.known || []).length ? h("ul", { class: "known" }, me.known.map((f) => h("li", { "data-fact": f.fact }, factText(f)))) : null,
  ]);
}

/** Any engine's secret card: `face` (its lines) shows only while the card is pressed and held. */
export function heldCard(face) {
  const secret = h("div", { class: "secret-face", "aria-hidden": "true" }, face);
  const cover = h("div", { class: "secret-cover" }, icon("eye", 28), h("span", {}, t("card.hold")));
  // Named by what it shows ("hold to see", then the card while held): an aria-label
  // would hide the card's words from its name (axe: label-content-name-mismatch).
  const el = h("button", { type: "button", class: "secret-card", id: "secret-card" }, cover, secret);
  const show = () => { el.classList.add("revealed"); secret.setAttribute("aria-hidden", "false"); };
  const hide = () => { el.classList.remove("revealed"); secret.setAttribute("aria-hidden", "true"); };
  // A tap shows it for a moment too, for players who do not think to hold.
  holdable(el, { start: show, stop: hide, tap: () => { show(); setTimeout(hide, 1500); }, delay: 150 });
  return el;
}
