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
  // The podium's places as the core gives them (ties share one; nobody with 0 points).
  const placeOf = {};
  for (const step of evening.podium || []) for (const pid of step.players) placeOf[pid] = step.place;
  const awards = evening.awards || [];
  return h("section", { class: "card evening", id: "evening" },
    h("h2", {}, t("offline.evening", { n: evening.games })),
    h("ol", { class: "podium" }, rows.map((r) => h("li", { class: placeOf[r.pid] ? `place-${placeOf[r.pid]}` : "", "data-pid": r.pid },
      h("span", { class: "pname" }, r.name), " ", h("strong", {}, t("offline.points", { n: r.n }))))),
    awards.length ? h("ul", { class: "awards" }, awards.map((a) => h("li", { "data-award": a.id || a.award },
      has(`award.${a.id || a.award}`) ? t(`award.${a.id || a.award}`) : (a.id || a.award), ": ",
      (a.players || [a.player]).filter(Boolean).map((pid) => names[pid] || pid).join(", ")))) : null);
}

export function endScreen(result, preset, { evening, names, onAgain, onSetup }) {
  const winners = new Set(result.winners || []);
  // Each word with whose it is (the Civili's, the Intrusi's), not two words side by side.
  const words = result.words && typeof result.words === "object"
    ? Object.entries(result.words).filter(([, w]) => w)
      .map(([side, w]) => [roleName(side === "civili" ? "civile" : "intruso", preset), w])
    : (result.word ? [[null, result.word]] : []);
  // The winners first, as the outcome above says.
  const players = [...(result.players || [])].sort((a, b) => winners.has(b.id) - winners.has(a.id));
  return h("div", { class: "screen end", id: "end" },
    h("section", { class: "card" },
      h("h2", { id: "outcome", "data-outcome": result.outcome }, t(`offline.outcome.${result.outcome}`)),
      words.length ? h("ul", { class: "words", id: "end-words" }, words.map(([who, w]) => h("li", { class: "word-of" },
        who ? `${who}: ` : `${t(words.length === 1 ? "offline.word" : "offline.words")} `, h("strong", {}, w)))) : null,
      h("ul", { class: "reveal-list" }, players.map((p) => h("li", {
        class: winners.has(p.id) ? "won" : "", "data-pid": p.id,
      }, h("strong", {}, p.name), " — ", roleName(p.role, preset),
      p.word ? ` · ${p.word}` : "", p.power ? ` · ${powerName(p.power)}` : "",
      winners.has(p.id) ? ` · ${t("offline.winner")}` : "")))),
    eveningCard(evening, names),
    h("button", { class: "btn btn-primary btn-big", id: "play-again", onclick: onAgain }, t("offline.play_again")),
    h("button", { class: "btn btn-ghost", id: "change-setup", onclick: onSetup }, t("offline.change_setup")));
}
