// The host's settings form (game/presets.py's options): preset, word language,
// categories, how many infiltrators, powers (auto or picked), timers, whether the
// eliminated may speak. Editable by the host only; everyone else reads it.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { POWERS } from "./help.js";

export const PRESETS = ["intruso", "infiltre", "sosia"];
const LANGS = ["it", "fr", "en"];
// Category ids of the word data, shared by every language (game/words/*.json).
export const CATEGORIES = ["animals", "food", "drinks", "places", "nature", "home", "objects",
  "clothes", "jobs", "sports", "transport", "body", "arts", "leisure"];
// Upper bounds per preset (game/presets.py): [intrusi, fantasmi].
const MAX = { intruso: [4, 2], infiltre: [4, 1], sosia: [4, 0] };
const TIMERS = ["clue", "debate", "vote", "powers", "guess", "pick"];

function countSelect(id, label, value, max, disabled, onChange) {
  return h("div", { class: "opt opt-choice" },
    h("label", { for: id }, label),
    h("select", {
      id, disabled,
      onchange: (ev) => onChange(ev.target.value === "auto" ? "auto" : Number(ev.target.value)),
    },
    h("option", { value: "auto", selected: value === "auto" }, t("opt.auto_balance")),
    Array.from({ length: max + 1 }, (_, n) => h("option", { value: n, selected: value === n }, String(n)))));
}

function checkList(name, universe, chosen, labelOf, disabled, onChange) {
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
 * @param {{preset: string, options: object}} settings   the room's settings
 * @param {boolean} editable                             I am the host
 * @param {(msg: {preset?: string, options: object}) => void} send  a `settings` patch
 */
export function settingsForm(settings, editable, send) {
  const preset = settings.preset || "intruso";
  const o = settings.options || {};
  const disabled = !editable;
  const [maxI, maxF] = MAX[preset] || MAX.intruso;
  const set = (key, value) => send({ options: { [key]: value } });
  const powersAuto = o.powers === "auto";
  const cats = Array.isArray(o.categories) ? o.categories : null;
  const timers = o.timers || {};

  return h("div", { class: "options" },
    h("div", { class: "opt opt-choice" },
      h("label", { for: "opt-preset" }, t("home.game")),
      h("select", { id: "opt-preset", disabled, onchange: (ev) => send({ preset: ev.target.value, options: {} }) },
        PRESETS.map((p) => h("option", { value: p, selected: p === preset }, t(`preset.${p}`)))),
      h("small", { class: "hint" }, t(`preset.${preset}.short`))),
    h("div", { class: "opt opt-choice" },
      h("label", { for: "opt-lang" }, t("opt.lang")),
      h("select", { id: "opt-lang", disabled, onchange: (ev) => set("lang", ev.target.value) },
        LANGS.map((l) => h("option", { value: l, selected: l === o.lang }, t(`lang.${l}`))))),
    countSelect("opt-intrusi", t(`opt.intrusi.${preset}`), o.intrusi, maxI, disabled, (v) => set("intrusi", v)),
    maxF > 0 ? countSelect("opt-fantasmi", t(`opt.fantasmi.${preset}`), o.fantasmi, maxF, disabled, (v) => set("fantasmi", v)) : null,
    h("fieldset", { class: "opt opt-list" },
      h("legend", {}, t("opt.powers")),
      h("div", { class: "row", role: "radiogroup" },
        h("label", { class: "check" }, h("input", {
          type: "radio", name: "powers-mode", id: "opt-powers-auto", checked: powersAuto, disabled,
          onchange: () => set("powers", "auto"),
        }), t("opt.powers_auto")),
        h("label", { class: "check" }, h("input", {
          type: "radio", name: "powers-mode", id: "opt-powers-pick", checked: !powersAuto, disabled,
          onchange: () => set("powers", []),
        }), t("opt.powers_pick"))),
      powersAuto ? h("small", { class: "hint" }, t("opt.powers_auto_hint"))
        : checkList("power", POWERS, o.powers || [], (p) => t(`power.${p}`), disabled, (list) => set("powers", list))),
    h("fieldset", { class: "opt opt-list" },
      h("legend", {}, t("opt.categories")),
      h("label", { class: "check" }, h("input", {
        type: "checkbox", id: "opt-cat-all", checked: cats === null, disabled,
        onchange: (ev) => set("categories", ev.target.checked ? null : [...CATEGORIES]),
      }), t("opt.categories_all")),
      cats === null ? null
        : checkList("category", CATEGORIES, cats, (c) => t(`cat.${c}`), disabled,
          (list) => set("categories", list.length ? list : null))),
    h("fieldset", { class: "opt opt-list" },
      h("legend", {}, t("opt.timers")),
      h("div", { class: "timers" }, TIMERS.map((key) => h("label", { class: "timer", for: `opt-timer-${key}` },
        h("span", {}, t(`opt.timer.${key}`)),
        h("input", {
          id: `opt-timer-${key}`, type: "number", min: 5, max: 1800, step: 5, inputmode: "numeric",
          value: timers[key] ?? "", disabled,
          onchange: (ev) => {
            const n = Math.round(Number(ev.target.value));
            if (Number.isFinite(n) && n >= 5 && n <= 1800) set("timers", { ...timers, [key]: n });
          },
        }))))),
    h("label", { class: "opt opt-bool", for: "opt-eliminated-speak" },
      h("input", {
        id: "opt-eliminated-speak", type: "checkbox", checked: Boolean(o.eliminated_speak), disabled,
        onchange: (ev) => set("eliminated_speak", ev.target.checked),
      }),
      h("span", {}, t("opt.eliminated_speak"))));
}
