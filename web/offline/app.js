// The one-phone page: a whole game on one phone passed around, offline. The game core
// runs here under Pyodide (./core.js); a service worker (./sw.js) keeps everything for
// offline use; the phone keeps the game (./store.js) so a reload loses nothing.

import { h } from "/static/js/dom.js";
import { errorText } from "/static/js/errors.js";
import { getLang, initialLang, loadAll, onLangChange, setLang, t, uiLangs } from "/static/js/i18n.js";
import { setCatalog } from "/static/js/options.js";
import { call, inFlight, lastCallMs, startCore } from "./core.js";
import { endScreen, eveningCard } from "./end.js";
import { mountPlay } from "./play.js";
import { mountSetup } from "./setup.js";
import { said, setVoice, voiceOn } from "./speech.js";
import { store } from "./store.js";

const root = document.getElementById("app");
const statusEl = document.getElementById("offline-status");
let screen = null;
let screenName = "";
// `impossible`: why this page cannot be kept for offline use where it was opened
// ("insecure", "certificate", "no_sw"); the game still plays while the network is there.
const offline = { ready: false, version: null, error: null, impossible: null };
const timings = {};

/** Show a refusal ({code, detail}) for a moment. Its code is kept, not its words: a change
 *  of language meanwhile words it again (issue 37 item 6). */
function toast(err) {
  const el = document.getElementById("toast");
  toast.err = err;
  el.textContent = errorText(err);
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; toast.err = null; }, 3500);
}

// A start that failed (`boot-error`): its code, worded again on a change of language.
let bootError = null;

function drawBootError() {
  root.replaceChildren(h("p", { class: "form-error", id: "boot-error" }, errorText({ code: bootError })));
}

function drawStatus() {
  statusEl.dataset.ready = offline.ready ? "yes" : "no";
  if (offline.impossible) statusEl.dataset.impossible = offline.impossible;
  statusEl.textContent = offline.impossible ? t(`reach.offline_${offline.impossible}`)
    : offline.error ? t("offline.sw_failed")
      : offline.ready ? t("offline.ready") : t("offline.preparing");
}

/** Why offline use cannot work here, known before trying: null when it may. */
function offlineImpossible() {
  // Browsers give service workers to secure contexts only (https, or localhost).
  if (!window.isSecureContext) return "insecure";
  if (!("serviceWorker" in navigator)) return "no_sw";
  return null;
}

function topbar() {
  // The bar and the tab's title, both in the language shown.
  document.title = `Sussurro · ${t("offline.title")}`;
  const bar = document.getElementById("topbar");
  bar.replaceChildren(
    h("a", { class: "brand", href: "/" }, "Sussurro"),
    h("span", { class: "spacer" }),
    h("button", {
      class: "iconbtn", id: "voice-toggle", "aria-pressed": voiceOn() ? "true" : "false",
      "aria-label": t(voiceOn() ? "offline.voice_off" : "offline.voice_on"),
      onclick: () => { setVoice(!voiceOn()); topbar(); },
    }, voiceOn() ? "🔊" : "🔇"),
    h("label", { class: "lang" },
      h("span", { class: "sr-only" }, t("app.language")),
      h("select", { "aria-label": t("app.language"), onchange: (ev) => setLang(ev.target.value, true) },
        uiLangs().map((l) => h("option", {
          value: l.code, lang: l.code, title: l.name, selected: l.code === getLang(),
        }, l.code.toUpperCase())))));
}

/** The service worker: registered on every visit; on the first one the page waits for it
 *  (it downloads everything once, and the page then loads from its cache). */
async function serviceWorker() {
  offline.impossible = offlineImpossible();
  if (offline.impossible) {
    drawStatus();
    return;
  }
  try {
    navigator.serviceWorker.addEventListener("message", (ev) => {
      if (ev.data?.type === "status") {
        offline.ready = ev.data.ready;
        offline.version = ev.data.version;
        drawStatus();
      }
    });
    const reg = await navigator.serviceWorker.register("/offline/sw.js", { scope: "/offline/" });
    if (!navigator.serviceWorker.controller) {
      await Promise.race([
        new Promise((ok) => navigator.serviceWorker.addEventListener("controllerchange", ok, { once: true })),
        new Promise((ok, fail) => {
          const w = reg.installing || reg.waiting;
          w?.addEventListener("statechange", () => { if (w.state === "redundant") fail(new Error("install failed")); });
        }),
      ]);
    }
    navigator.serviceWorker.controller?.postMessage({ type: "status" });
  } catch (err) {
    offline.error = String(err);
    // A certificate the browser does not trust: it refuses the worker's script at once.
    if (err?.name === "SecurityError" && /SSL|certificate/i.test(err.message)) offline.impossible = "certificate";
    drawStatus();
  }
}

function show(name, mount) {
  screen?.unmount?.();
  root.replaceChildren();
  screenName = name;
  screen = mount();
  window.scrollTo(0, 0);
}

function namesOf(players) {
  return Object.fromEntries(players.map((p) => [p.id, p.name]));
}

async function eveningNow() {
  const ev = store.evening;
  return ev.results.length ? call("evening", { results: ev.results }) : null;
}

async function showSetup() {
  const ev = store.evening;
  const evening = await eveningNow();
  show("setup", () => mountSetup(root, store.setup, {
    evening: () => (evening ? eveningCard(evening, namesOf(ev.players || [])) : null),
    onStart: startGame,
  }));
}

async function startGame(setup) {
  store.setup = setup;
  const players = setup.names.map((name, i) => ({ id: `p${i + 1}`, name }));
  // A new table (other names) starts a new evening.
  const ev = store.evening;
  if (JSON.stringify(ev.players || []) !== JSON.stringify(players)) store.evening = { results: [], players };
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  const res = await call("start", { preset: setup.preset, options: setup.options, seed, players, now: 0 });
  store.game = {
    record: { preset: setup.preset, options: res.options, seed, players, words: res.words, started_at: 0, log: [] },
    clock: 0,
    flow: { seen: [], round: null, again: null },
  };
  showGame(res);
}

function showGame(snap) {
  const game = store.game;
  show("play", () => mountPlay(root, game, snap, { toast, onOver: (result) => gameOver(result) }));
}

async function gameOver(result) {
  const game = store.game;
  if (!game.done) {
    game.done = true;
    const ev = store.evening;
    ev.results.push(result);
    store.evening = ev;
    store.save();
  }
  const evening = await eveningNow();
  show("end", () => {
    root.append(endScreen(result, game.record.preset, {
      evening, names: namesOf(game.record.players),
      onAgain: () => startGame(store.setup),
      onSetup: () => { store.game = null; showSetup(); },
    }));
    return null;
  });
}

async function boot() {
  await loadAll();
  setLang(initialLang(null));
  topbar();
  drawStatus();
  onLangChange(() => {
    topbar();
    drawStatus();
    const shown = document.getElementById("toast");
    if (toast.err && !shown.hidden) shown.textContent = errorText(toast.err);
    if (bootError) return drawBootError();
    // The screen redrawn where it is: the names typed, the card held, the seer's
    // answer, the countdown stay (a new mount would send the phone back to "pass to").
    if (screen?.redraw) screen.redraw();
    else if (screenName === "play" || screenName === "end") resume();
    else if (screenName === "setup") showSetup();
  });
  const t0 = performance.now();
  await serviceWorker();
  let manifest;
  try {
    const res = await fetch("/offline/manifest.json");
    if (!res.ok) throw Object.assign(new Error("manifest"), await res.json().catch(() => ({ code: "offline_not_built" })));
    manifest = await res.json();
  } catch (err) {
    bootError = err.code || "offline_not_built";
    drawBootError();
    return;
  }
  timings.core = await startCore({ pyodide: manifest.pyodide, core: manifest.core });
  const cat = await call("catalog");
  // The powers that need a phone per player are not offered here.
  const uc = cat.engines?.undercover;
  if (uc?.powers_one_phone) cat.powers = uc.powers_one_phone;
  setCatalog(cat);
  await resume();
  timings.playable = performance.now() - t0;
  timings.sinceNavigation = performance.now();
}

async function resume() {
  const game = store.game;
  if (!game) return showSetup();
  try {
    const snap = await call("restore", { record: game.record });
    if (snap.public.phase === "over") return gameOver(snap.result);
    showGame(snap);
  } catch (err) {
    toast({ code: err.code || "core_failed", detail: err.detail });
    store.game = null;
    showSetup();
  }
}

// For the browser tests and the benchmark: read-only looks at the page.
window.__onephone = {
  get screen() { return screenName; },
  get offline() { return { ...offline }; },
  get timings() { return { ...timings }; },
  get busy() { return inFlight() > 0; },
  get said() { return [...said]; },
  record: () => store.game?.record || null,
  stateBytes: () => call("state_bytes"),
  lastCallMs,
  call,
};

boot();
