// The end of a game on one phone: who won, every card revealed, and the evening so far
// (points, podium and awards as the core counts them from the finished games).

import { h } from "/static/js/dom.js";
import { has, t } from "/static/js/i18n.js";
import { powerName, roleName } from "/static/js/names.js";

/** The evening's standings from `game.evening` (points per seat id) with the names. */
export function eveningCard(evening, names) {
  if (!evening || !evening.games) return null;
  const rows = Object.entries(evening.points || {})
    .map(([pid, n]) => ({ pid, name: names[pid] || pid, n }))
    .sort((a, b) => b.n - a.n || a.name.localeCompare(b.name));
  const awards = evening.awards || [];
  return h("section", { class: "card evening", id: "evening" },
    h("h2", {}, t("offline.evening", { n: evening.games })),
    h("ol", { class: "podium" }, rows.map((r, i) => h("li", { class: i < 3 ? `place-${i + 1}` : "", "data-pid": r.pid },
      h("span", { class: "pname" }, r.name), " ", h("strong", {}, t("offline.points", { n: r.n }))))),
    awards.length ? h("ul", { class: "awards" }, awards.map((a) => h("li", { "data-award": a.id || a.award },
      has(`award.${a.id || a.award}`) ? t(`award.${a.id || a.award}`) : (a.id || a.award), ": ",
      (a.players || [a.player]).filter(Boolean).map((pid) => names[pid] || pid).join(", ")))) : null);
}

export function endScreen(result, preset, { evening, names, onAgain, onSetup }) {
  const winners = new Set(result.winners || []);
  const words = result.words ? Object.values(result.words).filter(Boolean) : (result.word ? [result.word] : []);
  return h("div", { class: "screen end", id: "end" },
    h("section", { class: "card" },
      h("h2", { id: "outcome", "data-outcome": result.outcome }, t(`offline.outcome.${result.outcome}`)),
      words.length ? h("p", { class: "words" }, t("offline.words"), " ", h("strong", {}, words.join(" · "))) : null,
      h("ul", { class: "reveal-list" }, (result.players || []).map((p) => h("li", {
        class: winners.has(p.id) ? "won" : "", "data-pid": p.id,
      }, h("strong", {}, p.name), " — ", roleName(p.role, preset),
      p.word ? ` · ${p.word}` : "", p.power ? ` · ${powerName(p.power)}` : "",
      winners.has(p.id) ? ` · ${t("offline.winner")}` : "")))),
    eveningCard(evening, names),
    h("button", { class: "btn btn-primary btn-big", id: "play-again", onclick: onAgain }, t("offline.play_again")),
    h("button", { class: "btn btn-ghost", id: "change-setup", onclick: onSetup }, t("offline.change_setup")));
}
