// The in-game help: the games, the ten powers, the evening's points and awards, the voice,
// in the project's own words.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";
import { getCatalog } from "./options.js";
import { state } from "./state.js";

export const POWERS = ["muto", "pappagallo", "buffone", "gemelli", "vendicatore",
  "giudice", "spia", "cupido", "ubriacone", "sabotatore"];
const AWARDS = ["best_detective", "uncatchable", "mind_reader", "suspicious_face", "friendly_fire",
  "scapegoat", "unlucky", "chameleon"];
const TABS = ["intruso", "infiltre", "impostore", "sosia", "evening", "powers", "voice", "lupi"];

function paragraphs(text) {
  return text.split("\n").filter(Boolean).map((line) => h("p", {}, line));
}

function body(tab) {
  if (tab === "evening") {
    return h("div", {}, paragraphs(t("help.evening.body")), h("dl", { class: "powers-list" }, AWARDS.map((a) => [
      h("dt", {}, t(`award.${a}`)),
      h("dd", {}, t(`award.${a}.help`)),
    ])));
  }
  if (tab === "powers") {
    return h("dl", { class: "powers-list" }, POWERS.map((p) => [
      h("dt", {}, t(`power.${p}`)),
      h("dd", {}, t(`power.${p}.help`)),
    ]));
  }
  return h("div", {}, paragraphs(t(`help.${tab}.body`)));
}

/** The help tab of the room's game: its own, else its family's (Impostore's styles). */
function tabOf(preset) {
  if (TABS.includes(preset)) return preset;
  const family = getCatalog().presets?.[preset]?.family;
  return TABS.includes(family) ? family : "intruso";
}

export function openHelp(start = tabOf(state.room?.preset)) {
  const rootEl = document.getElementById("dialog-root");
  const previous = document.activeElement;
  let tab = start;
  const content = h("div", { class: "help-body" });
  const tabs = h("div", { class: "tabs", role: "tablist" });
  const close = () => {
    rootEl.replaceChildren();
    document.removeEventListener("keydown", onKey);
    previous?.focus?.();
  };
  const onKey = (ev) => { if (ev.key === "Escape") close(); };
  function draw() {
    tabs.replaceChildren(...TABS.map((name) => h("button", {
      role: "tab", class: "tab", "aria-selected": name === tab ? "true" : "false",
      onclick: () => { tab = name; draw(); },
    }, t(`help.tab.${name}`))));
    content.replaceChildren(h("h3", {}, t(`help.tab.${tab}`)), body(tab));
  }
  draw();
  const dialog = h("div", { class: "overlay", onclick: (ev) => { if (ev.target === ev.currentTarget) close(); } },
    h("section", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-label": t("help.title") },
      h("header", { class: "dialog-head" },
        h("h2", {}, t("help.title")),
        h("button", { class: "iconbtn", "aria-label": t("app.close"), onclick: close }, icon("close"))),
      tabs, content));
  rootEl.replaceChildren(dialog);
  document.addEventListener("keydown", onKey);
  dialog.querySelector(".dialog-head button").focus();
}
