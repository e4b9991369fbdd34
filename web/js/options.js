// The host's settings: the game chooser (every preset of every engine) and the
// undercover engine's options (game/undercover/presets.py): word language,
// categories, how many infiltrators, powers (auto or picked), timers, whether the
// eliminated may speak. Editable by the host only; everyone else reads it. Each
// engine's options form is listed in screens/engines.js.

import { h } from "./dom.js";
import { has, langName, t } from "./i18n.js";
import { wordListField } from "./wordlist.js";

// What the rules allow (presets and their limits, powers, word languages and
// categories, timer bounds) comes from the server's GET /api/catalog, read once at
// start-up by loadCatalog(): nothing of game/ is copied here.
let catalog = { presets: {}, powers: [], langs: [], categories: {}, timers: { keys: [] } };
/** Preset names, in the server's order (filled by loadCatalog). */
export let PRESETS = [];
// Display order of the timer inputs; keys the catalog adds go after these.
const TIMER_ORDER = ["clue", "debate", "vote", "powers", "guess", "pick"];

/** Fetch the rules' catalog once (app start-up); retries a little, never throws. */
export async function loadCatalog(tries = 3) {
  for (let i = 0; i < tries; i++) {
    try {
      const res = await fetch("/api/catalog");
      if (res.ok) {
        catalog = await res.json();
        PRESETS = Object.keys(catalog.presets || {});
        return catalog;
      }
    } catch {
      // network hiccup: try again below
    }
    if (i + 1 < tries) await new Promise((ok) => setTimeout(ok, 500 * (i + 1)));
  }
  console.warn("sussurro: could not load /api/catalog; the settings form will be incomplete");
  return catalog;
}

/** Use a catalog read elsewhere: the one-phone page asks the core it runs in the page. */
export function setCatalog(c) {
  catalog = c;
  PRESETS = Object.keys(catalog.presets || {});
}

/** The word categories of a language: [id, label] in the catalog's order. The label is
 * the word data's own name in that language, else the UI translation, else the id. */
function categoriesOf(lang) {
  const names = catalog.categories?.[lang] || Object.values(catalog.categories || {})[0] || {};
  return Object.keys(names).map((id) => [id, names[id] || uiCategory(id)]);
}

function uiCategory(id) {
  return has(`cat.${id}`) ? t(`cat.${id}`) : id;
}

function timerKeys(timers) {
  const keys = catalog.timers?.keys || Object.keys(timers);
  return [...TIMER_ORDER.filter((k) => keys.includes(k)), ...keys.filter((k) => !TIMER_ORDER.includes(k))];
}

function countSelect(id, label, value, max, disabled, onChange, mode = "balance") {
  // "balance": auto (the balance table) or 0..max; "002" (Sosia): random or 1..max.
  const word = mode === "002" ? "random" : "auto";
  const first = mode === "002" ? 1 : 0;
  return h("div", { class: "opt opt-choice" },
    h("label", { for: id }, label),
    h("select", {
      id, disabled,
      onchange: (ev) => onChange(ev.target.value === word ? word : Number(ev.target.value)),
    },
    h("option", { value: word, selected: value === word }, mode === "002" ? t("imp.opt.random") : t("opt.auto_balance")),
    Array.from({ length: max + 1 - first }, (_, i) => i + first).map((n) => h("option", { value: n, selected: value === n }, String(n)))));
}

/** Checkboxes for `universe` (`chosen` ticked); `onChange` gets the ticked ones in the
 * universe's order. One set per drawn list: ticks made before the room answers the
 * first all count. */
export function checkList(name, universe, chosen, labelOf, disabled, onChange) {
  const set = new Set(chosen);
  return h("div", { class: "checks" }, universe.map((item) => h("label", { class: "check" },
    h("input", {
      type: "checkbox", name, value: item, checked: set.has(item), disabled,
      onchange: (ev) => {
        if (ev.target.checked) set.add(item); else set.delete(item);
        onChange(universe.filter((x) => set.has(x)));
      },
    }),
    h("span", {}, labelOf(item)))));
}

/**
 * A timer's field, in whole seconds. A text field that brings up the digit keyboard,
 * not a number field: a redraw of the lobby (someone sits down) can fall between
 * selecting the old value and typing the new one, and only a text field's selection can
 * be given back to the redrawn field, so the digits replace the old value instead of
 * being appended to it. `onValue` gets the seconds (null for an empty field when
 * `empty` is allowed); anything else is refused aloud and sends nothing.
 */
export function timerField({ key, label, value, min = null, max = null, empty = false,
  placeholder = null, disabled, onValue }) {
  const field = h("input", {
    id: `opt-timer-${key}`, type: "text", inputmode: "numeric", pattern: "[0-9]*",
    maxlength: 5, autocomplete: "off", value: value ?? "", placeholder, disabled,
    "aria-describedby": `opt-timer-${key}-range`,
    oninput: (ev) => { ev.target.setCustomValidity(""); ev.target.removeAttribute("aria-invalid"); },
    onchange: (ev) => {
      const raw = ev.target.value.trim();
      const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
      const inRange = (min === null || n >= min) && (max === null || n <= max);
      if (raw === "" && empty) onValue(null);
      else if (Number.isInteger(n) && inRange) onValue(n);
      else {
        ev.target.setAttribute("aria-invalid", "true");
        ev.target.setCustomValidity(t("opt.timer_range", { min: min ?? 0, max: max ?? "∞" }));
        ev.target.reportValidity();
      }
    },
  });
  return h("label", { class: "timer", for: field.id },
    h("span", {}, label),
    field,
    h("span", { class: "sr-only", id: `opt-timer-${key}-range` },
      t("opt.timer_range", { min: min ?? 0, max: max ?? "∞" })));
}

/** The games and their styles as <option>s, grouped by game (the catalog's `family`:
 * Impostore's styles Classica, Caos, Esperti and Sosia together). */
export function presetOptions(selected, extra = []) {
  const list = [...extra.filter((p) => !PRESETS.includes(p)), ...PRESETS];
  const families = [];
  for (const p of list) {
    const fam = catalog.presets?.[p]?.family || p;
    let group = families.find((f) => f.name === fam);
    if (!group) families.push(group = { name: fam, presets: [] });
    group.presets.push(p);
  }
  const option = (p) => h("option", { value: p, selected: p === selected }, t(`preset.${p}`));
  return families.map((f) => (f.presets.length > 1
    ? h("optgroup", { label: has(`family.${f.name}`) ? t(`family.${f.name}`) : f.name }, f.presets.map(option))
    : option(f.presets[0])));
}

/** The game chooser of the lobby: every preset of every engine, from the catalog. */
export function presetChooser(settings, editable, send) {
  const preset = settings.preset || "intruso";
  // The room's own value stays listed even if the catalog lacks it (it failed to load).
  return h("div", { class: "opt opt-choice" },
    h("label", { for: "opt-preset" }, t("home.game")),
    h("select", { id: "opt-preset", disabled: !editable, onchange: (ev) => send({ preset: ev.target.value, options: {} }) },
      presetOptions(preset, [preset])),
    // On one phone (no whispers, nobody hosting) a preset may say so in its own words.
    h("small", { class: "hint" }, t(settings.options?.one_phone && has(`preset.${preset}.short_one_phone`)
      ? `preset.${preset}.short_one_phone` : `preset.${preset}.short`)));
}

/** The engine that plays a preset, as the catalog says ("undercover" if unknown). */
export function engineOf(preset) {
  return catalog.presets?.[preset]?.engine || "undercover";
}

/** The catalog as loaded (engines read their own part: catalog.engines[name]). */
export function getCatalog() {
  return catalog;
}

/**
 * The undercover engine's options (Intruso, Infiltré, Sosia).
 * @param {{preset: string, options: object}} settings   the room's settings
 * @param {boolean} editable                             I am the host
 * @param {(msg: {preset?: string, options: object}) => void} send  a `settings` patch
 */
export function undercoverOptions(settings, editable, send) {
  const preset = settings.preset || "intruso";
  const o = settings.options || {};
  const disabled = !editable;
  const rules = catalog.presets?.[preset] || Object.values(catalog.presets || {})[0] || {};
  const maxI = rules.max_intrusi ?? 0;
  const maxF = rules.max_fantasmi ?? 0;
  const powersAllowed = rules.powers_allowed !== false;
  const categories = categoriesOf(o.lang || rules.lang);
  const catIds = categories.map(([id]) => id);
  const catLabel = Object.fromEntries(categories);
  const tmin = catalog.timers?.min ?? null;
  const tmax = catalog.timers?.max ?? null;
  const langs = catalog.langs || [];
  const langList = !o.lang || langs.includes(o.lang) ? langs : [o.lang, ...langs];
  const set = (key, value) => send({ options: { [key]: value } });
  const powersAuto = o.powers === "auto";
  const powers = catalog.powers?.length ? catalog.powers : Array.isArray(o.powers) ? o.powers : [];
  const cats = Array.isArray(o.categories) ? o.categories : null;
  const timers = o.timers || {};

  return h("div", { class: "options" },
    h("div", { class: "opt opt-choice" },
      h("label", { for: "opt-lang" }, t("opt.lang")),
      h("select", { id: "opt-lang", disabled, onchange: (ev) => set("lang", ev.target.value) },
        langList.map((l) => h("option", { value: l, lang: l, selected: l === o.lang }, langName(l))))),
    countSelect("opt-intrusi", t(`opt.intrusi.${preset}`), o.intrusi, maxI, disabled, (v) => set("intrusi", v),
      rules.count || "balance"),
    maxF > 0 ? countSelect("opt-fantasmi", t(`opt.fantasmi.${preset}`), o.fantasmi, maxF, disabled, (v) => set("fantasmi", v)) : null,
    !powersAllowed ? null : h("fieldset", { class: "opt opt-list" },
      h("legend", {}, t("opt.powers")),
      h("div", { class: "row", role: "radiogroup" },
        h("label", { class: "check" }, h("input", {
          type: "radio", name: "powers-mode", id: "opt-powers-auto", checked: powersAuto, disabled,
          onchange: () => set("powers", "auto"),
        }), t("opt.powers_auto")),
        h("label", { class: "check" }, h("input", {
          type: "radio", name: "powers-mode", id: "opt-powers-pick", checked: !powersAuto, disabled,
          onchange: () => set("powers", []),
        }), t(o.one_phone ? "opt.powers_pick_table" : "opt.powers_pick"))),
      powersAuto ? h("small", { class: "hint" }, t("opt.powers_auto_hint"))
        : checkList("power", powers, o.powers || [], (p) => t(`power.${p}`), disabled, (list) => set("powers", list))),
    h("fieldset", { class: "opt opt-list" },
      h("legend", {}, t("opt.categories")),
      h("label", { class: "check" }, h("input", {
        type: "checkbox", id: "opt-cat-all", checked: cats === null, disabled,
        onchange: (ev) => set("categories", ev.target.checked ? null : [...catIds]),
      }), t("opt.categories_all")),
      cats === null ? null
        : checkList("category", [...catIds, ...cats.filter((c) => !catIds.includes(c))], cats,
          (c) => catLabel[c] || uiCategory(c), disabled,
          (list) => set("categories", list.length ? list : null))),
    h("fieldset", { class: "opt opt-list" },
      h("legend", {}, t("opt.timers")),
      // Sosia keeps 002's pace: no timer by default, an empty field clears one.
      h("div", { class: "timers" }, timerKeys(timers).map((key) => timerField({
        key, label: t(`opt.timer.${key}`), value: timers[key], min: tmin, max: tmax, disabled,
        empty: rules.timers_optional === true,
        placeholder: rules.timers_optional ? t("imp.opt.timer_none") : null,
        onValue: (n) => set("timers", { [key]: n }),
      })),
      // The moment to read one's card before the first clue (0: none); one phone has none.
      o.one_phone || o.reading_time === undefined ? null : timerField({
        key: "reading", label: t("opt.reading_time"), value: o.reading_time, min: 0, max: 60,
        disabled, onValue: (n) => set("reading_time", n),
      }))),
    wordListField(o, editable, "pairs", catalog.engines?.undercover?.custom_words),
    h("label", { class: "opt opt-bool", for: "opt-eliminated-speak" },
      h("input", {
        id: "opt-eliminated-speak", type: "checkbox", checked: Boolean(o.eliminated_speak), disabled,
        onchange: (ev) => set("eliminated_speak", ev.target.checked),
      }),
      h("span", {}, t("opt.eliminated_speak"))));
}
