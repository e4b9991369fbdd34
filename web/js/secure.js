// Where the microphone can work. Browsers expose it only to secure contexts: https pages,
// or pages of the machine itself (localhost). A phone that opened a plain http address
// is told exactly that, with the https address to open instead, rather than a generic
// "no microphone" (docs/deploy.md; `sussurro serve --lan` serves both on one port).

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** True when this page may ask for the microphone at all. */
export function micApiAvailable() {
  return Boolean(window.isSecureContext && navigator.mediaDevices?.getUserMedia);
}

/** This very page at its https address (same host and port: the server speaks both). */
export function secureUrl() {
  return `https://${location.host}${location.pathname}${location.search}`;
}

/** The notice with the link; `extra` is one more line (e.g. why to switch before joining),
 *  `actions` are elements put at its end (e.g. "play without voice"). */
export function insecureNotice(extra = null, ...actions) {
  const url = secureUrl();
  return h("section", { class: "card insecure", id: "insecure-notice", role: "alert" },
    h("h2", {}, t("net.insecure_title")),
    h("p", { class: "warn" }, t("net.insecure")),
    h("p", {}, h("a", { class: "btn btn-primary secure-link", id: "secure-link", href: url }, url)),
    extra ? h("p", { class: "hint" }, extra) : null,
    h("p", { class: "hint" }, t("net.insecure_hint")),
    actions.length ? h("div", { class: "row" }, actions) : null);
}
