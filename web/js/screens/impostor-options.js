// Impostore's rules in the lobby (game/impostor/presets.py): after the style (the game
// chooser above), every rule of 002: how many impostors, what their card shows, whether they
// know each other, the optional roles, rounds of clues, guided or free turns, floor control,
// the first speaker, how the game is won, the secret vote, the pace, the words.
// Limits and choices come from the catalog (catalog.engines.impostor).

import { h } from "../dom.js";
import { has, langName, t } from "../i18n.js";
import { checkList, getCatalog, timerField } from "../options.js";
import { wordListField } from "../wordlist.js";

function select(id, label, value, choices, disabled, onChange, hint = null) {
  return h("div", { class: "opt opt-choice" },
    h("label", { for: id }, label),
    h("select", { id, disabled, onchange: (ev) => onChange(ev.target.value) },
      choices.map(([v, text]) => h("option", { value: String(v), selected: String(v) === String(value) }, text))),
    hint ? h("small", { class: "hint" }, hint) : null);
}

function flag(id, label, value, disabled, onChange, hint = null) {
  return h("label", { class: "opt opt-bool", for: id },
    h("input", { id, type: "checkbox", checked: Boolean(value), disabled, onchange: (ev) => onChange(ev.target.checked) }),
    h("span", {}, label),
    hint ? h("small", { class: "hint" }, hint) : null);
}

function sameTimers(a, b) {
  return ["clue", "discuss", "guess"].every((k) => (a?.[k] ?? null) === (b?.[k] ?? null));
}

/**
 * @param {{preset: string, options: object}} settings  the room's settings
 * @param {boolean} editable                            I am the host
 * @param {(msg: {options: object}) => void} send       a `settings` patch
 */
export function impostorOptions(settings, editable, send) {
  const o = settings.options || {};
  const cat = getCatalog().engines?.impostor || {};
  const disabled = !editable;
  const set = (key, value) => send({ options: { [key]: value } });
  const langs = getCatalog().langs || [];
  const names = cat.categories?.[o.lang] || {};
  const catIds = Object.keys(names);
  const cats = Array.isArray(o.categories) ? o.categories : null;
  const maxImp = Math.max(...Object.values(cat.max_impostors || { 16: 7 }));
  const roleNeed = cat.roles || {};
  const paces = cat.paces || {};
  const pace = Object.keys(paces).find((p) => sameTimers(paces[p], o.timers)) || "custom";
  const timers = o.timers || {};
  const tmin = cat.timers?.min ?? 5;
  const tmax = cat.timers?.max ?? 1800;

  return h("div", { class: "options impostor-options" },
    select("opt-lang", t("opt.lang"), o.lang, langs.map((l) => [l, langName(l)]), disabled, (v) => set("lang", v)),
    select("opt-impostors", t("imp.opt.impostors"), o.impostors,
      [["random", t("imp.opt.random")], ...Array.from({ length: maxImp }, (_, i) => [i + 1, String(i + 1)])],
      disabled, (v) => set("impostors", v === "random" ? "random" : Number(v)), t("imp.opt.impostors_hint")),
    o.impostors === "random"
      ? flag("opt-tell-count", t("imp.opt.tell_count"), o.tell_count, disabled, (v) => set("tell_count", v)) : null,
    select("opt-info", t("imp.opt.info"), o.impostor_info,
      (cat.impostor_info || ["hint", "category", "nothing"]).map((k) => [k, t(`imp.opt.info.${k}`)]),
      disabled, (v) => set("impostor_info", v)),
    flag("opt-know", t("imp.opt.impostors_know"), o.impostors_know, disabled, (v) => set("impostors_know", v)),
    h("fieldset", { class: "opt opt-list" },
      h("legend", {}, t("imp.opt.roles")),
      checkList("role", Object.keys(roleNeed), o.roles || [], (r) => t(`imp.role_option.${r}`), disabled,
        (list) => set("roles", list)),
      h("small", { class: "hint" }, t("imp.opt.roles_hint"))),
    select("opt-rounds", t("imp.opt.rounds"), o.rounds,
      Array.from({ length: cat.max_rounds || 5 }, (_, i) => [i + 1, String(i + 1)]), disabled, (v) => set("rounds", Number(v))),
    select("opt-turns", t("imp.opt.turns"), o.turns,
      (cat.turns || ["guided", "free"]).map((k) => [k, t(`imp.opt.turns.${k}`)]), disabled, (v) => set("turns", v),
      t(`imp.opt.turns.${o.turns}.hint`)),
    o.turns === "guided"
      ? flag("opt-floor", t("imp.opt.floor"), o.floor, disabled, (v) => set("floor", v)) : null,
    flag("opt-first", t("imp.opt.first_innocent"), o.first_innocent, disabled, (v) => set("first_innocent", v)),
    select("opt-win", t("imp.opt.win_mode"), o.win_mode,
      (cat.win_modes || ["first_vote", "elimination"]).map((k) => [k, t(`imp.opt.win.${k}`)]),
      disabled, (v) => set("win_mode", v), t(`imp.opt.win.${o.win_mode}.hint`)),
    flag("opt-secret", t("imp.opt.secret_vote"), o.secret_vote, disabled, (v) => set("secret_vote", v)),
    h("fieldset", { class: "opt opt-list opt-pace" },
      h("legend", {}, t("imp.opt.pace")),
      h("div", { class: "row", role: "radiogroup" }, [...Object.keys(paces), "custom"].map((p) => h("label", { class: "check" },
        h("input", {
          type: "radio", name: "pace", id: `opt-pace-${p}`, value: p, checked: pace === p,
          disabled: disabled || (p === "custom" && pace !== "custom"),
          onchange: () => { if (paces[p]) set("timers", { ...paces[p] }); },
        }),
        h("span", {}, t(`imp.opt.pace.${p}`))))),
      h("div", { class: "timers" }, ["clue", "discuss", "guess"].map((key) => timerField({
        key, label: t(`imp.opt.timer.${key}`), value: timers[key], min: tmin, max: tmax, empty: true,
        placeholder: t("imp.opt.timer_none"), disabled,
        onValue: (n) => set("timers", { [key]: n }),
      }))),
      h("small", { class: "hint" }, t("imp.opt.pace_hint"))),
    h("fieldset", { class: "opt opt-list" },
      h("legend", {}, t("opt.categories")),
      h("label", { class: "check" }, h("input", {
        type: "checkbox", id: "opt-cat-all", checked: cats === null, disabled,
        onchange: (ev) => set("categories", ev.target.checked ? null : [...catIds]),
      }), t("opt.categories_all")),
      cats === null ? null : checkList("category", catIds, cats,
        (c) => names[c] || (has(`cat.${c}`) ? t(`cat.${c}`) : c), disabled,
        (list) => set("categories", list.length ? list : null))),
    wordListField(o, editable, "words", cat.custom_words),
    flag("opt-eliminated-speak", t("opt.eliminated_speak"), o.eliminated_speak, disabled, (v) => set("eliminated_speak", v)));
}
