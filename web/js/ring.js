// The progress ring: time left in the phase, from the view's deadline and the server clock.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { serverNow, state } from "./state.js";

const R = 20;
const LEN = 2 * Math.PI * R;

export function ring() {
  const arc = h("svg:circle", {
    cx: 24, cy: 24, r: R, fill: "none", stroke: "currentColor", "stroke-width": 5,
    "stroke-dasharray": LEN.toFixed(2), "stroke-dashoffset": "0", "stroke-linecap": "round",
    transform: "rotate(-90 24 24)", class: "ring-arc",
  });
  const label = h("span", { class: "ring-label" });
  const el = h("div", { class: "ring", role: "timer", "aria-live": "off" },
    h("svg:svg", { viewBox: "0 0 48 48", width: 48, height: 48, "aria-hidden": "true" },
      h("svg:circle", { cx: 24, cy: 24, r: R, fill: "none", class: "ring-track", "stroke-width": 5 }),
      arc),
    label);
  let timer = null;
  let localStart = null;     // fallback clock when the server never told its time
  let phaseKey = "";

  function tick() {
    const v = state.view;
    if (!v || typeof v.deadline !== "number") {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const key = `${v.phase}:${v.round}:${v.phase_started}:${v.turn}`;
    if (key !== phaseKey) { phaseKey = key; localStart = Date.now() / 1000; }
    const total = Math.max(0.001, v.deadline - (v.phase_started ?? v.deadline));
    // Without server_time, assume the phase began when we first saw it.
    const now = state.offsetKnown ? serverNow() : (v.phase_started ?? 0) + (Date.now() / 1000 - localStart);
    const left = Math.max(0, v.deadline - now);
    const frac = Math.max(0, Math.min(1, left / total));
    arc.setAttribute("stroke-dashoffset", (LEN * (1 - frac)).toFixed(2));
    el.classList.toggle("ring-low", left < 5);
    const secs = Math.ceil(left);
    label.textContent = secs >= 60 ? `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}` : String(secs);
    el.setAttribute("aria-label", t("ring.left", { s: secs }));
  }
  tick();
  timer = setInterval(tick, 250);
  return { el, stop: () => clearInterval(timer), tick };
}
