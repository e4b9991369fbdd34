// The room's own word list (game/custom_words.py): the host pastes it or loads a text file;
// the server checks it and keeps it with the room's settings. The table only ever sees its
// size ({count}); the host's draft and the refusal of a list survive the lobby's redraws.

import { h } from "./dom.js";
import { claimErrors, errorText } from "./errors.js";
import { t } from "./i18n.js";
import * as session from "./session.js";

let draft = "";
let refusal = null;   // the last refusal of a list the host sent: {code, message, detail}
let sent = 0;

// A refused list is shown under the field, not as a toast.
claimErrors((err) => {
  if (typeof err.ref !== "string" || !err.ref.startsWith("words-")) return false;
  refusal = err;
  return true;
});

/**
 * The custom list field of a settings form.
 * @param {object} o          the room's options (custom_words is null or {count})
 * @param {boolean} editable  I am the host
 * @param {"words"|"pairs"} kind  Impostore's words with hints, or the undercover pairs
 * @param {object} limits     the catalog's custom_words limits ({max_bytes, max_entries})
 */
export function wordListField(o, editable, kind, limits = {}) {
  const current = o.custom_words;
  const count = current && typeof current === "object" ? current.count : null;
  const send = (value) => {
    sent += 1;
    refusal = null;
    session.send({ type: "settings", options: { custom_words: value }, ref: `words-${sent}` });
  };
  const area = h("textarea", {
    id: "opt-words", rows: 5, spellcheck: "false", autocapitalize: "off",
    "aria-label": t("words.paste"),
    placeholder: kind === "pairs" ? t("words.placeholder_pairs") : t("words.placeholder_words"),
    oninput: (ev) => { draft = ev.target.value; },
  });
  area.value = draft;
  const file = h("input", {
    type: "file", id: "opt-words-file", accept: ".txt,text/plain", class: "file",
    onchange: async (ev) => {
      const f = ev.target.files?.[0];
      if (!f) return;
      draft = await f.text();
      area.value = draft;
    },
  });
  return h("fieldset", { class: "opt opt-list opt-words" },
    h("legend", {}, t("words.title")),
    h("p", { class: "hint", id: "words-status" }, count ? t("words.count", { n: count }) : t("words.none")),
    !editable ? null : [
      h("small", { class: "hint" }, kind === "pairs" ? t("words.hint_pairs") : t("words.hint_words"),
        " ", t("words.limits", { n: limits.max_entries ?? 200 })),
      area,
      h("div", { class: "row" },
        h("label", { class: "btn btn-ghost file-label", for: "opt-words-file" }, t("words.upload")), file,
        h("button", {
          class: "btn", id: "opt-words-use", type: "button",
          onclick: () => { if (area.value.trim()) send(area.value); },
        }, t("words.use")),
        count ? h("button", {
          class: "btn btn-ghost", id: "opt-words-clear", type: "button", onclick: () => send(null),
        }, t("words.clear")) : null),
      h("p", { class: "inline-error", id: "words-error", role: "alert" }, refusal ? errorText(refusal) : ""),
    ]);
}
