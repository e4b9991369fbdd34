// Each player's own volumes: on every other voice's avatar, a slider (0-150 %) and a
// personal mute. The server applies them to this player's mix only (`volumes` message);
// they are kept on this device per room and sent again on every (re)connection. With the
// room's voices placed around the table, each player may also choose mono for themself.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { state } from "./state.js";
import * as storage from "./storage.js";

const MAX_PERCENT = 150;
let sender = null;

/** Where `volumes` messages go (session.send); set once by the session. */
export function setSender(send) {
  sender = send;
}

function current() {
  return state.code ? storage.volumes.get(state.code) : {};
}

function monoChosen() {
  return state.code ? storage.mono.get(state.code) : false;
}

/** The whole set as the server takes it: {gains: {pid: 0..1.5}, muted: [pid], mono?}. */
export function message(levels = current(), mono = monoChosen()) {
  const gains = {};
  const muted = [];
  for (const [pid, v] of Object.entries(levels)) {
    if (v?.muted) muted.push(pid);
    else if (typeof v?.percent === "number" && v.percent !== 100) gains[pid] = v.percent / 100;
  }
  const msg = { type: "volumes", gains, muted };
  if (mono) msg.mono = true;
  return msg;
}

/** Send the kept volumes (after a welcome: the server forgot them with the old socket). */
export function resend() {
  const msg = message();
  if (sender && (Object.keys(msg.gains).length || msg.muted.length || msg.mono)) sender(msg);
}

function set(pid, patch) {
  if (!state.code) return;
  const levels = { ...current() };
  const next = { percent: 100, muted: false, ...levels[pid], ...patch };
  if (next.percent === 100 && !next.muted) delete levels[pid];
  else levels[pid] = next;
  storage.volumes.set(state.code, levels);
  sender?.(message(levels));
}

/** True when this player has changed `pid`'s voice here (lowered, raised or muted). */
export function volumeChanged(pid) {
  return Boolean(current()[pid]);
}

/** The slider and mute of `player`'s voice (nothing for my own). */
export function volumeControl(player) {
  if (!player?.id || player.id === state.player) return null;
  const kept = current()[player.id] || {};
  const percent = typeof kept.percent === "number" ? kept.percent : 100;
  const muted = Boolean(kept.muted);
  const name = player.name || "?";
  const shown = h("output", { class: "vol-value" }, `${percent} %`);
  const slider = h("input", {
    type: "range", min: 0, max: MAX_PERCENT, step: 5, value: String(percent), class: "vol-slider",
    "aria-label": t("volume.slider", { name }), "data-pid": player.id, disabled: muted,
    oninput: () => { shown.textContent = `${slider.value} %`; },
    onchange: () => set(player.id, { percent: Number(slider.value) }),
  });
  const mute = h("button", {
    type: "button", class: `vol-mute ${muted ? "on" : ""}`, "data-pid": player.id,
    "aria-pressed": muted ? "true" : "false",
    "aria-label": t(muted ? "volume.unmute" : "volume.mute", { name }),
    onclick: () => {
      const now = mute.getAttribute("aria-pressed") !== "true";
      mute.setAttribute("aria-pressed", now ? "true" : "false");
      mute.classList.toggle("on", now);
      mute.setAttribute("aria-label", t(now ? "volume.unmute" : "volume.mute", { name }));
      mute.textContent = now ? t("volume.muted") : t("volume.mute_short");
      slider.disabled = now;
      set(player.id, { muted: now });
    },
  }, muted ? t("volume.muted") : t("volume.mute_short"));
  return h("div", { class: "vol", "data-pid": player.id }, mute, slider, shown);
}

/** My own mono (one earbud), shown while the room places the voices around the table. */
export function monoSwitch() {
  if (!state.room?.settings?.voice?.spatial || !state.code) return null;
  return h("label", { class: "opt opt-bool spatial mono", for: "opt-mono" },
    h("input", {
      id: "opt-mono", type: "checkbox", name: "mono", checked: monoChosen(),
      onchange: (ev) => {
        storage.mono.set(state.code, ev.target.checked);
        sender?.(message(current(), ev.target.checked));
      },
    }),
    h("span", {}, t("volume.mono"), h("small", { class: "hint" }, t("volume.mono_hint"))));
}

/** The host's switch for voices placed around the table (a room voice setting). */
export function spatialSwitch(amHost, send) {
  const on = Boolean(state.room?.settings?.voice?.spatial);
  return h("label", { class: "opt opt-bool spatial", for: "opt-spatial" },
    h("input", {
      id: "opt-spatial", type: "checkbox", name: "spatial", checked: on, disabled: !amHost,
      onchange: (ev) => send({ type: "settings", voice: { spatial: ev.target.checked } }),
    }),
    h("span", {}, t("volume.spatial"), h("small", { class: "hint" }, t("volume.spatial_hint"))));
}
