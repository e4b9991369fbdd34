// Messages above the screen: who whispers to me, whom I whisper to, lost connection or voice,
// my own voice's link when it is unstable or gone (with a line of advice),
// and a toast for refusals that no screen shows in place.

import { h, fill } from "./dom.js";
import { errorText, shownInline } from "./errors.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";
import * as session from "./session.js";
import { playerById, state } from "./state.js";

let toastTimer = null;
let lastToast = 0;

export function banners(el) {
  const toast = document.getElementById("toast");
  function draw() {
    const items = [];
    if (state.code && state.audioBlocked) {
      items.push(h("button", { class: "banner banner-audio", id: "audio-unblock", onclick: () => session.unblockAudio() },
        icon("ear", 18), " ", t("audio.tap_to_hear")));
    }
    if (state.code && state.conn === "closed") {
      items.push(h("div", { class: "banner banner-warn" }, t("conn.lost")));
    } else if (state.code && state.voice === "down") {
      // The socket is up but the voice's path died (a network change, a blackout): the
      // voice is being replaced by itself; the seat and the game are untouched.
      items.push(h("div", { class: "banner banner-warn", id: "voice-down", role: "status" }, t("voice.down")));
    }
    const myLink = state.player ? state.links?.[state.player] : null;
    if (state.code && state.conn !== "closed" && state.voice !== "down"
        && (myLink === "poor" || myLink === "gone")) {
      // My own voice's link, as everyone sees it on my avatar: what it is, what helps.
      const poor = myLink === "poor";
      items.push(h("div", { class: "banner banner-warn banner-link", role: "status", "data-link": myLink },
        icon(poor ? "signal" : "signalOff", 18), " ",
        h("span", { class: "banner-link-text" },
          h("strong", {}, t(poor ? "net.link.own_poor" : "net.link.own_gone")),
          h("span", { class: "banner-link-hint" }, t(poor ? "net.link.own_poor_hint" : "net.link.own_gone_hint")))));
    }
    for (const pid of Object.keys(state.whispers)) {
      const name = playerById(pid)?.name || "?";
      items.push(h("div", { class: "banner banner-whisper", "data-whisper-from": pid },
        icon("ear", 18), " ", t("whisper.from", { name })));
    }
    if (state.whisperingTo) {
      const name = playerById(state.whisperingTo)?.name || "?";
      items.push(h("div", { class: "banner banner-whisper-out" }, t("whisper.to", { name })));
    }
    if (state.whisperHeld && !state.whisperingTo) {
      // Nobody hears me. A finger still down lets go as usual; a page that holds no
      // finger (reconnected, reloaded) needs a clear tap to talk to everyone again.
      const name = playerById(state.whisperHeld)?.name || "?";
      items.push(h("div", { class: "banner banner-whisper-held" },
        h("span", {}, t(state.whisperHeldTap ? "whisper.hushed" : "whisper.held", { name })),
        h("button", { type: "button", class: "btn", id: "whisper-unhush", onclick: () => session.whisperStop() },
          t("whisper.speak_all"))));
    }
    fill(el, items);
  }
  function showToast() {
    const err = state.lastError;
    if (!err || err.at === lastToast) return;
    lastToast = err.at;
    // Refusals of the action a screen is waiting for are shown in place, not here.
    if (shownInline(err)) return;
    toast.textContent = errorText(err);
    toast.classList.remove("toast-info");
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { toast.hidden = true; }, 4000);
  }
  let lastNotice = 0;
  function showNotice() {
    const n = state.notice;
    if (!n || n.at === lastNotice) return;
    lastNotice = n.at;
    toast.textContent = n.text;
    toast.classList.add("toast-info");
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { toast.hidden = true; }, 5000);
  }
  draw();
  return {
    update(keys) {
      if (["whispers", "whisperingTo", "whisperHeld", "whisperHeldTap", "conn", "voice", "lang", "room", "audioBlocked", "links", "player"].some((k) => keys.has(k))) draw();
      if (keys.has("lastError")) showToast();
      if (keys.has("notice")) showNotice();
    },
  };
}
