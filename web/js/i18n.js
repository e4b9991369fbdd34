// Translations: Italian first, then French and English. Every visible string goes through t().

import { pluralKey } from "./plural.js";
import * as storage from "./storage.js";

export const LANGS = ["it", "fr", "en"];
const dicts = {};
let current = "it";
const listeners = new Set();

async function getJson(url) {
  const res = await fetch(url);
  return res.json();
}

/** Load the three dictionaries once (they are small and the picker switches instantly).
 *  Each language is the core file `i18n/LANG.json` plus one file per area listed in
 *  `i18n/areas.json` (`i18n/AREA.LANG.json`), so each game's strings live apart. */
export async function loadAll() {
  const areas = await getJson("/static/i18n/areas.json");
  await Promise.all(LANGS.map(async (l) => {
    const parts = await Promise.all([
      getJson(`/static/i18n/${l}.json`),
      ...areas.map((a) => getJson(`/static/i18n/${a}.${l}.json`)),
    ]);
    dicts[l] = Object.assign({}, ...parts);
  }));
}

/** The language to use when the player never picked one: room's, then browser's. */
export function initialLang(roomLang) {
  const picked = storage.lang.get();
  if (LANGS.includes(picked)) return picked;
  if (LANGS.includes(roomLang)) return roomLang;
  for (const l of navigator.languages || [navigator.language || ""]) {
    const short = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(short)) return short;
  }
  return "it";
}

export function getLang() {
  return current;
}

/** Switch language; `remember` when the player picked it explicitly. */
export function setLang(l, remember = false) {
  if (!LANGS.includes(l)) return;
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
  return key in (dicts[current] || {}) || key in (dicts.it || {});
}

/** t("clue.turn_of", {name: "Ada"}) -> "Tocca ad Ada". Falls back to Italian, then the key. */
export function t(key, params = {}) {
  return tIn(current, key, params);
}

/** `t` in a given language whatever the player picked (a narration spoken in the room's). */
export function tIn(lang, key, params = {}) {
  // A count `n` picks the language's plural form where the key has one (`KEY.one`).
  const d = dicts[lang] && key in dicts[lang] ? dicts[lang] : dicts.it;
  const text = d?.[pluralKey(d, d === dicts[lang] ? lang : "it", key, params)] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}
