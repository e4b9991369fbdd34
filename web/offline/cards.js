// The secret card of each engine on the one-phone page, shown only while held: the
// undercover word card (web/js/card.js), Impostore's card (what the role lets one know:
// the word, or the hint, the category), Lupi Mannari's role card (web/js lupi_panel's face).

import { heldCard, secretCard } from "/static/js/card.js";
import { h } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";
import { factText, roleName } from "/static/js/names.js";
import { roleCardFace } from "/static/js/screens/lupi_panel.js";

/** Impostore: the same lines as the room's card (web/js/screens/impostor.js). */
function impostorFace(v) {
  const me = v.me || {};
  const impostor = me.role === "impostore";
  const lines = [h("p", { class: "secret-role" }, t("imp.card.you_are"), " ",
    h("strong", { id: "my-role" }, roleName(me.role, v.preset)))];
  if (me.word) {
    lines.push(h("span", { class: "label" }, t("card.word")), h("strong", { class: "secret-word", id: "secret-word" }, me.word));
  } else if (me.hint) {
    lines.push(h("span", { class: "label" }, t("imp.card.hint")), h("strong", { class: "secret-word", id: "secret-hint" }, me.hint));
  } else if (impostor && v.rules?.impostor_info === "hint") {
    lines.push(h("p", { id: "secret-nothing" }, t("imp.card.no_hint")));
  } else if (impostor && !me.category) {
    lines.push(h("p", { id: "secret-nothing" }, t("imp.card.nothing")));
  }
  if (me.category) {
    lines.push(h("p", { class: "secret-category" },
      t("imp.card.category", { name: me.category === "custom" ? t("cat.custom") : me.category_name })));
  }
  if (me.impostor_count) lines.push(h("p", {}, t("imp.card.count", { n: me.impostor_count })));
  if (me.role && me.role !== "innocente") lines.push(h("small", { class: "hint" }, t(`imp.role.${me.role}.help`)));
  if ((me.known || []).length) {
    lines.push(h("ul", { class: "known" }, me.known.map((f) => h("li", { "data-fact": f.fact }, factText(f)))));
  }
  return lines;
}

/** The card of `view` (a seat's own view), whatever the engine. */
export function cardFor(view) {
  if (view.game === "impostor") return heldCard(impostorFace(view));
  if (view.game === "werewolf") return heldCard(roleCardFace(view));
  return secretCard(view);
}
