// Lupi Mannari's options in the lobby (game/werewolf/presets.py): the narration's language,
// how many wolves (auto: 004's table), whether there is a veggente, who moderates (the app,
// or one of the seats), the spoken narration, the timers. Editable by the host only.

import { h } from "./dom.js";
import { langName, t } from "./i18n.js";
import { getCatalog, timerField } from "./options.js";
import { state } from "./state.js";

const TIMER_ORDER = ["night", "seer", "wolves", "day", "vote", "defence"];

/**
 * @param {{preset: string, options: object}} settings   the room's settings
 * @param {boolean} editable                             I am the host
 * @param {(msg: {options: object}) => void} send        a `settings` patch
 */
export function lupiOptions(settings, editable, send) {
  const o = settings.options || {};
  const disabled = !editable;
  const catalog = getCatalog();
  const rules = catalog.presets?.[settings.preset] || {};
  const part = catalog.engines?.werewolf || {};
  const maxLupi = rules.max_lupi ?? 7;
  const timers = o.timers || {};
  const keys = part.timers?.keys || Object.keys(timers);
  const tmin = catalog.timers?.min ?? 5;
  const tmax = catalog.timers?.max ?? 1800;
  const set = (key, value) => send({ options: { [key]: value } });
  const players = state.room?.players || [];
  const langs = catalog.langs || [];

  return h("div", { class: "options" },
    h("div", { class: "opt opt-choice" },
      h("label", { for: "opt-lang" }, t("opt.lupi.lang")),
      h("select", { id: "opt-lang", disabled, onchange: (ev) => set("lang", ev.target.value) },
        langs.map((l) => h("option", { value: l, lang: l, selected: l === o.lang }, langName(l))))),
    h("div", { class: "opt opt-choice" },
      h("label", { for: "opt-lupi" }, t("opt.lupi.lupi")),
      h("select", {
        id: "opt-lupi", disabled,
        onchange: (ev) => set("lupi", ev.target.value === "auto" ? "auto" : Number(ev.target.value)),
      },
      h("option", { value: "auto", selected: o.lupi === "auto" }, t("opt.auto_balance")),
      Array.from({ length: maxLupi }, (_, i) => h("option", { value: i + 1, selected: o.lupi === i + 1 }, String(i + 1))))),
    h("div", { class: "opt opt-choice" },
      h("label", { for: "opt-moderator" }, t("opt.lupi.moderator")),
      h("select", {
        id: "opt-moderator", disabled,
        onchange: (ev) => set("moderator", ev.target.value || null),
      },
      h("option", { value: "", selected: !o.moderator }, t("opt.lupi.moderator_app")),
      players.map((p) => h("option", { value: p.id, selected: o.moderator === p.id }, p.name)))),
    h("label", { class: "opt opt-bool", for: "opt-veggente" },
      h("input", { id: "opt-veggente", type: "checkbox", checked: o.veggente !== false, disabled,
        onchange: (ev) => set("veggente", ev.target.checked) }),
      h("span", {}, t("opt.lupi.veggente"))),
    h("label", { class: "opt opt-bool", for: "opt-voice" },
      h("input", { id: "opt-voice", type: "checkbox", checked: o.narration_voice !== false,
        disabled: disabled || Boolean(o.moderator), onchange: (ev) => set("narration_voice", ev.target.checked) }),
      h("span", {}, t("opt.lupi.voice"))),
    h("p", { class: "hint opt-wide", id: "opt-table-hint" }, t("opt.lupi.table_hint")),
    h("fieldset", { class: "opt opt-list" },
      h("legend", {}, t("opt.timers")),
      h("div", { class: "timers" }, [...TIMER_ORDER.filter((k) => keys.includes(k)), ...keys.filter((k) => !TIMER_ORDER.includes(k))]
        .map((key) => {
          const max = part.timers?.max?.[key] ?? tmax;
          return timerField({
            key, label: t(`opt.timer.${key}`), value: timers[key], min: tmin, max, disabled,
            onValue: (n) => set("timers", { [key]: n }),
          });
        }))));
}
