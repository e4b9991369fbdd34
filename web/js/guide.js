// The first-visit page (web/guide.html), served over plain http by `sussurro serve --lan`:
// phones need https for the microphone, and the server's certificate is one it made
// itself, so the first https visit shows the browser's warning. This page says, with
// drawings, how to go through it on Android Chrome and iOS Safari, then sends the
// player on to the same page at its https address (same host and port).

import { h } from "./dom.js";
import { getLang, initialLang, loadAll, onLangChange, setLang, t, uiLangs } from "./i18n.js";
import { secureUrl } from "./secure.js";

const root = document.getElementById("guide");

/** A phone drawn in CSS: a browser screen with its warning, the control to tap ringed. */
function phone(kind, parts) {
  return h("div", { class: `phone phone-${kind}`, "aria-hidden": "true" },
    h("div", { class: "phone-bar" }, h("span", { class: "phone-url" }, location.hostname)),
    h("div", { class: "phone-screen" }, parts));
}

const warnIcon = () => h("svg:svg", { class: "phone-warn", viewBox: "0 0 24 24", width: 28, height: 28 },
  h("svg:path", { d: "M12 2 1 21h22L12 2z", fill: "#d93025" }),
  h("svg:rect", { x: 11, y: 9, width: 2, height: 6, fill: "#fff" }),
  h("svg:rect", { x: 11, y: 17, width: 2, height: 2, fill: "#fff" }));
const lines = (n) => Array.from({ length: n }, (_, i) => h("span", { class: `phone-line w${i % 3}` }));
const tap = (label, extra = "") => h("span", { class: `phone-tap ${extra}` }, label);
const pill = (extra = "") => h("span", { class: `phone-pill ${extra}` });

function step(n, drawing, text) {
  return h("li", { class: "guide-step" },
    drawing,
    h("p", {}, h("strong", {}, t("guide.step", { n })), " ", text));
}

function draw() {
  const host = location.hostname;
  const url = secureUrl();
  document.title = `Sussurro · ${t("guide.title")}`;
  const go = (id) => h("a", { class: "btn btn-primary btn-big guide-go", id, href: url }, t("guide.continue"));
  const picker = h("div", { class: "guide-langs", role: "group", "aria-label": t("app.language") },
    uiLangs().map(({ code, name }) => h("button", {
      type: "button", class: `btn btn-ghost ${code === getLang() ? "is-on" : ""}`, lang: code,
      title: name, "aria-pressed": code === getLang() ? "true" : "false",
      onclick: () => setLang(code, true),
    }, code.toUpperCase())));
  root.replaceChildren(
    picker,
    h("h1", {}, t("guide.title")),
    h("p", {}, t("guide.intro")),
    go("guide-continue"),
    h("p", { class: "hint", id: "guide-address" }, t("guide.address", { url })),
    h("section", { class: "card guide-os", id: "guide-android" },
      h("h2", {}, t("guide.android_title")),
      h("ol", { class: "guide-steps" },
        step(1, phone("android", [warnIcon(), h("b", {}, t("guide.chrome_title")), lines(3),
          h("div", { class: "phone-row" }, tap(t("guide.chrome_advanced"), "ghost"), pill("blue"))]),
        t("guide.android_1")),
        step(2, phone("android", [warnIcon(), lines(5),
          tap(t("guide.chrome_proceed", { host }), "link")]),
        t("guide.android_2", { host })))),
    h("section", { class: "card guide-os", id: "guide-ios" },
      h("h2", {}, t("guide.ios_title")),
      h("ol", { class: "guide-steps" },
        step(1, phone("ios", [warnIcon(), h("b", {}, t("guide.safari_title")), lines(2),
          tap(t("guide.safari_details"), "ghost"), pill("blue wide")]),
        t("guide.ios_1")),
        step(2, phone("ios", [lines(4), tap(t("guide.safari_visit"), "link"), lines(2)]),
          t("guide.ios_2")),
        step(3, phone("ios", [lines(2), h("div", { class: "phone-dialog" }, lines(2),
          h("div", { class: "phone-row" }, pill("grey"), tap(t("guide.safari_confirm"), "ghost")))]),
        t("guide.ios_3")))),
    h("p", { class: "hint" }, t("guide.other")),
    h("p", { class: "hint" }, t("guide.words_note")),
    h("p", { class: "hint" }, t("guide.why")),
    go("guide-continue-end"));
}

async function boot() {
  await loadAll();
  setLang(initialLang(null));
  onLangChange(draw);
  draw();
}

boot();
