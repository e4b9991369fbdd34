// The evening, on every game's end screen: this game's points, the podium after the games
// played so far, and from the third game on the awards (game/evening.py, docs/rules.md).
// It reads the room message's `evening` ({games, points, names, podium, awards}).

import { face } from "../avatar.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { state } from "../state.js";

function nameIn(evening, pid) {
  return state.room?.players?.find((p) => p.id === pid)?.name || evening?.names?.[pid] || "?";
}

function avatar(evening, pid, size = 32) {
  const p = state.room?.players?.find((x) => x.id === pid) || {};
  return h("span", { class: "avatar small" }, face({ id: pid, name: nameIn(evening, pid), ...p }, size));
}

/** This game's points, the highest first (the result's `points`). */
export function gamePoints(result) {
  const pts = result?.points || {};
  const ev = state.room?.evening || {};
  const rows = Object.entries(pts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (!rows.length) return null;
  return h("section", { class: "card game-points", id: "game-points" },
    h("h2", {}, t("evening.this_game")),
    h("ul", { class: "points-list" }, rows.map(([pid, n]) => h("li", { "data-pid": pid, "data-points": n },
      avatar(ev, pid, 28), h("span", { class: "pname" }, nameIn(ev, pid)),
      h("strong", {}, t("evening.points", { n }))))));
}

/** The podium and the awards of the evening so far. */
export function eveningPanel() {
  const ev = state.room?.evening;
  if (!ev || !ev.games) return null;
  const podium = ev.podium || [];
  const awards = ev.awards || [];
  return h("section", { class: "card evening", id: "evening" },
    h("h2", {}, t("evening.podium", { n: ev.games })),
    podium.length ? h("ol", { class: "podium", id: "podium" }, podium.map((step) => h("li", {
      class: `step place-${step.place}`, "data-place": step.place,
    },
    h("span", { class: "place" }, t("evening.place", { n: step.place })),
    h("span", { class: "who" }, step.players.map((pid) => h("span", { class: "podium-player", "data-pid": pid },
      avatar(ev, pid), h("span", { class: "pname" }, nameIn(ev, pid))))),
    h("strong", { class: "pts" }, t("evening.points", { n: step.points })))))
      : h("p", { class: "hint" }, t("evening.none")),
    h("h3", {}, t("evening.awards")),
    awards.length ? h("ul", { class: "awards", id: "awards" }, awards.map((a) => h("li", {
      class: "award", "data-award": a.award,
    },
    h("strong", { class: "award-name" }, t(`award.${a.award}`)),
    h("span", { class: "award-who" }, a.players.map((pid) => nameIn(ev, pid)).join(", "),
      " · ", t(`award.${a.award}.value`, { n: a.value })),
    h("small", { class: "hint" }, t(`award.${a.award}.help`)))))
      : h("p", { class: "hint", id: "awards-soon" },
        ev.games < 3 ? t("evening.awards_soon") : t("evening.no_awards")));
}
