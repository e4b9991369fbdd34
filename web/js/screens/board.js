// The clue board: every clue of every round, kept for the whole game.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { nameOf } from "../names.js";

export function clueBoard(clues, view) {
  const rounds = new Map();
  for (const c of clues) {
    if (!rounds.has(c.round)) rounds.set(c.round, []);
    rounds.get(c.round).push(c);
  }
  return [
    h("h2", {}, t("board.title")),
    clues.length === 0 ? h("p", { class: "hint" }, t("board.empty")) : null,
    [...rounds.entries()].sort((a, b) => b[0] - a[0]).map(([round, list]) => h("div", { class: "board-round" },
      h("h3", {}, t("game.round", { n: round })),
      h("ol", { class: "board", id: `board-round-${round}` }, list.map((c) => h("li", {
        class: `clue ${c.skipped ? "skipped" : ""} ${c.player === view?.me?.id ? "mine" : ""}`, "data-player": c.player,
      },
      h("span", { class: "clue-name" }, nameOf(c.player)),
      h("span", { class: "clue-text" }, c.skipped ? t("board.skipped") : c.text)))))),
  ];
}
