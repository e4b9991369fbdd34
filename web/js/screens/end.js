// The end: who won, every role, word and power, both words side by side, the whole board.

import { face } from "../avatar.js";
import { h } from "../dom.js";
import { has, t } from "../i18n.js";
import { nameOf, powerName, roleName } from "../names.js";
import { state } from "../state.js";
import { clueBoard } from "./board.js";
import { nextRules, rematchBar } from "./controls.js";
import { eveningPanel, gamePoints } from "./podium.js";

/** The result's per-player rows, whatever container the core used (list or map). */
function rows(result, view) {
  const src = result.players || result.roles || [];
  const list = Array.isArray(src)
    ? src
    : Object.entries(src).map(([id, r]) => (typeof r === "object" ? { id, ...r } : { id, role: r }));
  if (list.length) return list.map((r) => ({ ...r, id: r.id || r.player }));
  return view.players.map((p) => ({ id: p.id }));
}

/** The two words: {civili, intruso} or a list, under the names the core may use. */
function words(result) {
  const w = result.words || {};
  if (Array.isArray(w)) return { civili: w[0], intruso: w[1] };
  return {
    civili: w.civili ?? w.civile ?? result.civili_word ?? result.word_civili ?? null,
    intruso: w.intrusi ?? w.intruso ?? result.intruso_word ?? null,
  };
}

export function endScreen(view) {
  const result = view.result || {};
  const winners = new Set(result.winners || []);
  const iWon = winners.has(state.player);
  const ws = words(result);
  const list = rows(result, view);
  const sideKey = result.outcome || null;
  return [
    h("section", { class: `card end-head ${iWon ? "won" : "lost"}` },
      h("h1", { id: "end-title" }, iWon ? t("end.you_won") : t("end.you_lost")),
      sideKey ? h("p", { id: "end-side" }, has(`end.side.${view.preset}.${sideKey}`)
        ? t(`end.side.${view.preset}.${sideKey}`) : t(`end.side.${sideKey}`)) : null,
      h("p", { class: "winners", id: "winners" }, t("end.winners", {
        names: [...winners].map(nameOf).join(", ") || t("end.nobody"),
      }))),
    result.category ? h("p", { class: "hint category", id: "end-category" },
      t("end.category", { name: has(`cat.${result.category}`) ? t(`cat.${result.category}`) : result.category })) : null,
    h("section", { class: "card words" },
      h("div", { class: "word-box" }, h("span", { class: "label" }, roleName("civile", view.preset)), h("strong", { id: "word-civili" }, ws.civili ?? "—")),
      h("div", { class: "word-box" }, h("span", { class: "label" }, roleName("intruso", view.preset)), h("strong", { id: "word-intruso" }, ws.intruso ?? "—"))),
    h("section", { class: "card" },
      h("h2", {}, t("end.players")),
      h("ul", { class: "end-list" }, list.map((r) => h("li", {
        class: `end-row ${winners.has(r.id) ? "winner" : ""}`, "data-pid": r.id,
      },
      h("span", { class: "avatar small" }, face({ id: r.id, name: nameOf(r.id), ...(state.room?.players?.find((p) => p.id === r.id) || {}) }, 36)),
      h("span", { class: "end-main" },
        h("strong", {}, nameOf(r.id), winners.has(r.id) ? ` · ${t("end.winner")}` : ""),
        h("span", {}, roleName(r.role, view.preset), " · ", r.word ?? t("card.no_word"),
          r.power ? ` · ${powerName(r.power)}` : "")))))),
    h("section", { class: "card" }, clueBoard(result.clues || view.clues || [], view)),
    gamePoints(result),
    eveningPanel(),
    nextRules(),
    rematchBar(),
  ];
}
