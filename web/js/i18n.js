// Translations. The languages are data (game/langs/<code>/, served by server/edge/langs.py):
// /i18n/langs.json lists them in menu order ({code, name, speech, order, plural, ui}: the
// endonym, the speech-synthesis locale, the plural rule, whether the UI speaks it) and
// /i18n/<code>.json is one language's strings, every area merged. Italian is the fallback.
// Every visible string goes through t().

import { pluralKey } from "./plural.js";
import * as storage from "./storage.js";

const FALLBACK = "it";
let langs = [];
const dicts = {};
let current = FALLBACK;
const listeners = new Set();

async function getJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

/** Load the manifest, then every UI language's dictionary once (they are small and the
 *  picker switches instantly). */
export async function loadAll() {
  langs = await getJson("/i18n/langs.json");
  await Promise.all(uiLangs().map(async ({ code }) => {
    dicts[code] = await getJson(`/i18n/${code}.json`);
  }));
}

/** The languages the UI speaks, in menu order: [{code, name, speech, order, plural}]. */
export function uiLangs() {
  return langs.filter((l) => l.ui);
}

function speaks(code) {
  return uiLangs().some((l) => l.code === code);
}

/** A language's entry in the manifest (a language of words only too), or null. */
export function langInfo(code) {
  return langs.find((l) => l.code === code) || null;
}

/** A language as menus name it: its own name for itself (Italiano, Français, ...). */
export function langName(code) {
  return langInfo(code)?.name || String(code || "").toUpperCase();
}

/** The speech-synthesis locale of a language (es-ES), or its code. */
export function speechLocale(code) {
  return langInfo(code)?.speech || code;
}

/** The browser's voice for a language: its speech locale's (es-ES), else one of the
 *  language (es-MX), else null (the engine then goes by the utterance's lang). */
export function voiceFor(voices, code) {
  const norm = (s) => String(s || "").toLowerCase().replace("_", "-");
  const locale = norm(speechLocale(code));
  return voices.find((v) => norm(v.lang) === locale)
    || voices.find((v) => norm(v.lang).split("-")[0] === code) || null;
}

/** The language to use when the player never picked one: room's, then browser's. */
export function initialLang(roomLang) {
  const picked = storage.lang.get();
  if (speaks(picked)) return picked;
  if (speaks(roomLang)) return roomLang;
  for (const l of navigator.languages || [navigator.language || ""]) {
    const short = String(l).slice(0, 2).toLowerCase();
    if (speaks(short)) return short;
  }
  return FALLBACK;
}

export function getLang() {
  return current;
}

/** Switch language; `remember` when the player picked it explicitly. */
export function setLang(l, remember = false) {
  if (!speaks(l)) return;
  if (remember) storage.lang.set(l);
  if (l === current) return;
  current = l;
  document.documentElement.lang = l;
  for (const fn of listeners) fn(l);
}

export function onLangChange(fn) {
  listeners.add(fn);
}

export function has(key) {
  return key in (dicts[current] || {}) || key in (dicts[FALLBACK] || {});
}

/** t("clue.turn_of", {name: "Ada"}) -> "Tocca ad Ada". Falls back to Italian, then the key. */
export function t(key, params = {}) {
  return tIn(current, key, params);
}

/** `t` in a given language whatever the player picked (a narration spoken in the room's). */
export function tIn(lang, key, params = {}) {
  // A count `n` picks the language's plural form where the key has one (`KEY.one`).
  const own = dicts[lang] && key in dicts[lang];
  const d = own ? dicts[lang] : dicts[FALLBACK];
  const rule = langInfo(own ? lang : FALLBACK)?.plural;
  const text = d?.[pluralKey(d, rule, key, params)] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}
