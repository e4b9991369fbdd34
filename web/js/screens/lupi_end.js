// Lupi Mannari's end: which faction won (ghosts included), every card, the seer's looks,
// the ghosts in order; then, as every game's end, the game's points, the evening's podium,
// the host's change of game and the rematch.

import { face } from "../avatar.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { nameOf, roleName } from "../names.js";
import { state } from "../state.js";
import { lineText } from "../narrator.js";
import { nextRules, rematchBar } from "./controls.js";
import { eveningPanel, gamePoints } from "./podium.js";

export function lupiEnd(view) {
  const r = view.result || {};
  const winners = new Set(r.winners || []);
  const moderator = Boolean(view.me?.moderator);
  const title = moderator ? t("lupi.end.mod") : winners.has(state.player) ? t("end.you_won") : t("end.you_lost");
  const roomP = (pid) => state.room?.players?.find((p) => p.id === pid) || {};
  return [
    h("section", { class: `card end-head ${moderator ? "" : winners.has(state.player) ? "won" : "lost"}` },
      h("h1", { id: "end-title" }, title),
      h("p", { id: "end-side", "data-outcome": r.outcome }, t(`lupi.end.${r.outcome}`)),
      (view.narration?.lines || []).map((line) => h("p", { class: "hint" }, lineText(line)))),
    h("section", { class: "card" },
      h("h2", {}, t("lupi.end.cards")),
      h("ul", { class: "end-list", id: "end-roles" }, (r.players || []).map((p) => h("li", {
        class: `end-row ${winners.has(p.id) ? "winner" : ""}`, "data-pid": p.id, "data-role": p.role,
      },
      h("span", { class: "avatar small" }, face({ id: p.id, name: p.name, ...roomP(p.id) }, 36)),
      h("span", { class: "end-main" },
        h("strong", {}, p.name, winners.has(p.id) ? ` · ${t("end.winner")}` : ""),
        h("span", {}, roleName(p.role, view.preset), " · ",
          p.alive ? t("lupi.end.alive") : t("lupi.badge.ghost"),
          r.points?.[p.id] ? ` · ${t("lupi.end.points", { n: r.points[p.id] })}` : "")))))),
    (r.peeks || []).length ? h("section", { class: "card" },
      h("h2", {}, t("lupi.end.peeks")),
      h("ul", { class: "death-list", id: "end-peeks" }, r.peeks.map((s) => h("li", {},
        t("lupi.card.seen", { n: s.night, name: nameOf(s.player),
          answer: s.wolf ? t("lupi.answer.wolf") : t("lupi.answer.human") }))))) : null,
    h("section", { class: "card" },
      h("h2", {}, t("lupi.deaths")),
      h("ul", { class: "death-list" }, (r.deaths || []).map((d) => h("li", {},
        t(`lupi.death.${d.cause}`, { n: d.day, name: nameOf(d.player) }))))),
    gamePoints(r),
    eveningPanel(),
    nextRules(),
    rematchBar(),
  ];
}
