// The bar on every screen: name, connection, mic mute, language, help.

import { h, fill } from "./dom.js";
import { getLang, setLang, t, uiLangs } from "./i18n.js";
import { icon } from "./icons.js";
import { openHelp } from "./help.js";
import * as session from "./session.js";
import { state } from "./state.js";

export function topbar(el) {
  function draw() {
    const micOn = state.mic === "on";
    const muted = state.micMuted;
    const gameMuted = state.view?.phase !== "over" ? state.view?.me?.muted : null;
    fill(el,
      h("span", { class: "brand" }, "Sussurro"),
      state.code ? h("span", { class: `conn conn-${state.conn}`, title: t(`conn.${state.conn}`), role: "img", "aria-label": t(`conn.${state.conn}`) }) : null,
      h("span", { class: "spacer" }),
      micOn ? h("button", {
        class: `iconbtn mic-toggle ${muted ? "is-off" : ""}`,
        "aria-label": muted ? t("mic.unmute") : t("mic.mute"),
        "aria-pressed": muted ? "true" : "false",
        onclick: () => session.toggleMute(),
      }, icon(muted ? "micOff" : "mic")) : null,
      gameMuted ? h("span", {
        class: "game-muted", id: "game-muted", role: "img", "data-reason": gameMuted,
        "aria-label": t(`muted.${gameMuted}`), title: t(`muted.${gameMuted}`),
      }, icon("micOff", 20)) : null,
      h("label", { class: "lang" },
        h("span", { class: "sr-only" }, t("app.language")),
        icon("globe", 18),
        h("select", {
          "aria-label": t("app.language"),
          onchange: (ev) => setLang(ev.target.value, true),
        }, uiLangs().map((l) => h("option", {
          value: l.code, lang: l.code, title: l.name, selected: l.code === getLang(),
        }, l.code.toUpperCase())))),
      h("button", { class: "iconbtn", "aria-label": t("help.open"), onclick: () => openHelp() }, icon("help")),
    );
  }
  draw();
  let lastMuted = null;
  return {
    update(keys) {
      const mutedNow = state.view?.me?.muted ?? null;
      const mutedChanged = mutedNow !== lastMuted;
      lastMuted = mutedNow;
      if (mutedChanged || ["lang", "mic", "micMuted", "conn", "code"].some((k) => keys.has(k))) draw();
    },
  };
}
