// Entry: load translations and the rules' catalog (GET /api/catalog), route (/ or /r/CODE),
// draw the top bar and the right screen.

import * as audio from "./js/audio.js";
import { setLinks, setMouths } from "./js/avatar.js";
import { topbar } from "./js/topbar.js";
import { getLang, initialLang, loadAll, onLangChange, setLang, t } from "./js/i18n.js";
import { gameScreen } from "./js/screens/engines.js";
import { mountHome } from "./js/screens/home.js";
import { mountLobby } from "./js/screens/lobby.js";
import { mountTv } from "./js/screens/tv.js";
import { loadCatalog } from "./js/options.js";
import * as session from "./js/session.js";
import { state, subscribe, update } from "./js/state.js";
import * as storage from "./js/storage.js";
import { banners } from "./js/banners.js";
import { toneLevels } from "./js/audio.js";

const root = document.getElementById("app");
let screen = null;
let screenName = "";

// The shared screen (issue 13): /r/CODE/tv, a spectator pass instead of a seat.
const TV_PATH = /^\/r\/([A-Za-z0-9]+)\/tv\/?$/;

function wantedScreen() {
  if (state.spectator) return "tv";
  if (!state.token) return "home";
  if (!state.room) return "connecting";
  if (state.room.state === "lobby") return "lobby";
  // Without an explicit room state, a game view means a game is on. Each engine has its
  // own game screen: a rematch of another game mounts that one.
  return state.view?.phase ? `game:${state.view.game || ""}` : "lobby";
}

function render(keys) {
  const name = wantedScreen();
  if (name !== screenName || keys === "lang") {
    screen?.unmount?.();
    root.replaceChildren();
    screenName = name;
    if (name === "home") screen = mountHome(root);
    else if (name === "lobby") screen = mountLobby(root);
    else if (name === "tv") screen = mountTv(root);
    else if (name.startsWith("game:")) screen = gameScreen(name.slice(5))(root);
    else {
      root.append(Object.assign(document.createElement("p"), { className: "loading", textContent: t("app.connecting") }));
      screen = null;
    }
    window.scrollTo(0, 0);
  } else {
    screen?.update?.(keys);
  }
}

async function boot() {
  await Promise.all([loadAll(), loadCatalog()]);
  setLang(initialLang(null));
  const bar = topbar(document.getElementById("topbar"));
  const banner = banners(document.getElementById("banners"));

  subscribe((keys) => {
    if (keys.has("mouths")) setMouths(state.mouths);
    if (keys.size === 1 && keys.has("mouths")) return;   // hot path: 10+ times a second
    bar.update(keys);
    banner.update(keys);
    render(keys);
    setMouths(state.mouths);   // redrawn avatars start closed: give them the current levels
    setLinks(state.links);     // and unmarked: give them each voice's link
  });
  onLangChange(() => {
    bar.update(new Set(["lang"]));
    banner.update(new Set(["lang"]));
    render("lang");
    setMouths(state.mouths);
    setLinks(state.links);
  });

  // Browsers keep audio muted until a gesture: every tap resumes it (Safari and Firefox
  // also suspend it in the background: coming back resumes it too).
  audio.keepAudioAlive(() => {
    if (state.audioBlocked) session.unblockAudio();
  });

  // Test hook (read-only views of the page's state and audio).
  window.__sussurro = {
    get state() { return state; },
    get analyser() { return audio.getAnalyser(); },
    toneLevels,
    audioState: () => audio.audioState(),
    lang: getLang,
    // Feed a server message as if it came from the socket (previews and UI checks).
    receive: (msg) => session.handleMessage(msg),
    set: (patch) => update(patch),
    voiceInfo: () => session.voiceInfo(),
  };

  const tv = location.pathname.match(TV_PATH);
  if (tv) {
    // A screen may be told its language (?lang=fr): kept on this device like a pick.
    const lang = new URLSearchParams(location.search).get("lang");
    if (lang) setLang(lang, true);
    session.watchRoom(tv[1]).catch((err) => update({
      lastError: { code: err.code || "http_error", message: err.message, at: Date.now() },
    }));
    render(new Set());
    return;
  }
  const match = location.pathname.match(/^\/r\/([A-Za-z0-9]+)/);
  const code = match ? match[1].toUpperCase() : null;
  const seat = code ? storage.seat.get(code) : null;
  if (code && seat?.token) session.enterRoom(code, seat);
  render(new Set());
}

boot();
