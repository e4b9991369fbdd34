// The microphone: explain before asking, then say clearly what happened.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";
import { insecureNotice, micApiAvailable } from "./secure.js";
import * as session from "./session.js";
import { state } from "./state.js";
import { voiceSupported } from "./support.js";

/**
 * True until the player has chosen voice or text (issue 37 item 5): the lobby then shows
 * this card first, right under the room's code. A browser without WebRTC has no choice to
 * make (text only): its card is a notice, not a first step.
 */
export function micChoicePending() {
  if (!voiceSupported()) return false;
  const s = state.mic;
  return s === "unknown" || s === "asking" || s === "insecure" || (!micApiAvailable() && s !== "skipped");
}

export function micCard() {
  const s = state.mic;
  const enable = (label) => h("button", {
    class: "btn btn-primary", id: "mic-enable", onclick: () => session.requestMic(),
  }, icon("mic", 18), " ", label);
  let body;
  if (!voiceSupported()) {
    // Checked before anything is asked: no button that could only fail. Text play goes on.
    return h("section", { class: "card mic-card mic-unsupported", id: "voice-unsupported",
      "aria-label": t("mic.title") },
    h("h2", {}, t("mic.title")), h("p", { class: "warn", role: "alert" }, t("voice.unsupported")));
  }
  if (!micApiAvailable() && s !== "skipped") {
    // Not "no microphone": the page's address forbids it. Say so, with the https link.
    return h("div", { class: "mic-insecure", "aria-label": t("mic.title") }, insecureNotice(null,
      h("button", { class: "btn btn-ghost", id: "mic-skip", onclick: () => session.skipMic() }, t("mic.skip"))));
  }
  if (s === "unknown") {
    body = [
      h("p", {}, t("mic.explain")),
      h("div", { class: "row" },
        enable(t("mic.enable")),
        h("button", { class: "btn btn-ghost", id: "mic-skip", onclick: () => session.skipMic() }, t("mic.skip"))),
    ];
  } else if (s === "asking") {
    body = [h("p", {}, t("mic.asking"))];
  } else if (s === "on") {
    body = [h("p", { class: "ok" }, icon("mic", 18), " ", t("mic.on"),
      state.voice === "on" ? ` · ${t("voice.on")}` : ` · ${t(`voice.${state.voice}`)}`)];
  } else if (s === "denied") {
    body = [h("p", { class: "warn", role: "alert" }, t("mic.denied")), enable(t("mic.retry"))];
  } else if (s === "missing") {
    body = [h("p", { class: "warn", role: "alert" }, t("mic.missing")), enable(t("mic.retry"))];
  } else {
    body = [h("p", {}, t("mic.skipped")), enable(t("mic.enable"))];
  }
  return h("section", { class: `card mic-card mic-${s}`, "aria-label": t("mic.title") },
    h("h2", {}, t("mic.title")), body);
}
