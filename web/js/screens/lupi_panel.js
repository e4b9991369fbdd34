// Lupi Mannari: the panel under the card, what I can do now, phase by phase. At night every
// role sees the same "close your eyes" panel; the veggente and the wolves see, in their own
// phase, only what their card allows.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { nameOf, roleName } from "../names.js";
import * as session from "../session.js";

const NIGHT = ["night", "seer", "wolves"];

function waiting(key, params) {
  return h("p", { class: "waiting" }, t(key, params));
}

function answer(wolf) {
  return wolf ? t("lupi.answer.wolf") : t("lupi.answer.human");
}

/** Voters of the open ballot and how many have voted (public). */
export function ballotProgress(v) {
  const voters = v.phase === "nomination"
    ? v.players
    : v.players.filter((p) => p.alive && !(v.nominees || []).includes(p.id));
  return { n: voters.filter((p) => p.voted).length, total: voters.length };
}

function seerPanel(v, local, redraw) {
  const me = v.me;
  const tonight = (me.seen || []).find((s) => s.night === v.day);
  if (tonight) {
    return [h("p", { class: tonight.wolf ? "seer-answer wolf" : "seer-answer human", id: "seer-answer", role: "status" },
      t(tonight.wolf ? "lupi.seer.wolf" : "lupi.seer.human", { name: nameOf(tonight.player) })),
    waiting("lupi.close_eyes")];
  }
  if (!(me.can || []).includes("peek")) return [waiting("lupi.close_eyes")];
  return [h("p", {}, t("lupi.seer.pick")),
    h("button", {
      class: "btn btn-primary", id: "peek-confirm", disabled: !local.picked,
      onclick: () => { session.act({ type: "peek", target: local.picked }); local.picked = null; redraw(); },
    }, local.picked ? t("lupi.seer.confirm", { name: nameOf(local.picked) }) : t("lupi.seer.choose"))];
}

function wolvesPanel(v) {
  const me = v.me;
  if (!(me.can || []).includes("bite")) return [waiting("lupi.close_eyes")];
  return [h("p", { class: "channel-note" }, icon("ear", 18), " ", t("lupi.wolves.channel")),
    h("p", {}, t("lupi.wolves.pick")),
    h("p", { id: "my-bite", class: me.bite ? "ok" : "" },
      me.bite ? t("lupi.wolves.mine", { name: nameOf(me.bite) }) : t("lupi.wolves.none"))];
}

function dayPanel(v) {
  const me = v.me;
  if (!me.alive) return [waiting("lupi.ghost")];
  const ready = v.players.find((p) => p.id === me.id)?.ready;
  return [h("p", { class: "hint" }, t("lupi.day.hint")),
    ready ? h("p", { class: "ok", id: "ready-done" }, icon("check", 18), " ", t("lupi.ready_done"))
      : h("button", { class: "btn btn-primary btn-big", id: "ready-btn", onclick: () => session.act({ type: "ready" }) },
        t("lupi.ready"))];
}

function votePanel(v) {
  const me = v.me;
  const items = [];
  if (v.phase === "nomination") {
    items.push(h("p", { class: "hint" }, t("lupi.nominate.hint")));
    if (!me.alive) items.push(h("p", { class: "hint" }, t("lupi.nominate.ghost")));
    items.push(h("p", { id: "my-vote", class: me.vote ? "ok" : "" },
      me.vote ? t("lupi.vote.mine", { name: nameOf(me.vote) }) : t("lupi.vote.none")));
    return items;
  }
  // The lynch: secret, between the two nominees.
  if (!me.alive) return [waiting("lupi.lynch.ghost")];
  if ((v.nominees || []).includes(me.id)) return [waiting("lupi.lynch.nominee")];
  items.push(h("p", {}, t("lupi.lynch.pick")),
    h("div", { class: "row lynch-choices" }, (v.candidates || []).map((pid) => h("button", {
      class: `btn btn-big ${me.vote === pid ? "btn-primary" : ""}`, "data-pid": pid, id: `lynch-${pid}`,
      "aria-pressed": me.vote === pid ? "true" : "false",
      onclick: () => session.act({ type: "vote", target: pid }),
    }, nameOf(pid)))));
  items.push(h("p", { id: "my-vote", class: me.vote ? "ok" : "" },
    me.vote ? t("lupi.vote.mine", { name: nameOf(me.vote) }) : t("lupi.vote.none")));
  return items;
}

function defencePanel(v) {
  if (v.defender === v.me.id) {
    return [h("p", { class: "ok", id: "floor-mine" }, icon("mic", 18), " ", t("lupi.defence.you")),
      h("button", { class: "btn btn-primary", id: "defence-done", onclick: () => session.act({ type: "ready" }) },
        t("lupi.defence.done"))];
  }
  return [waiting("lupi.defence.other", { name: nameOf(v.defender) })];
}

/** The human moderator's panel: move on, and every night choice and secret ballot. */
export function moderatorPanel(v) {
  const s = v.secrets || {};
  const items = [h("h2", {}, t("lupi.mod.title")), h("p", { class: "hint" }, t("lupi.mod.hint"))];
  if (v.phase === "seer") {
    const peek = (s.peeks || []).find((p) => p.night === v.day);
    items.push(h("p", { id: "mod-peek" }, peek
      ? t("lupi.mod.peek", { name: nameOf(peek.player), answer: answer(peek.wolf) })
      : t("lupi.mod.no_peek")));
    items.push(h("p", { class: "hint" }, t("lupi.mod.seer_fixed")));
  }
  if (v.phase === "wolves") {
    items.push(h("h3", {}, t("lupi.mod.bites")), h("ul", { class: "mod-list", id: "mod-bites" },
      Object.entries(s.bites || {}).map(([w, target]) => h("li", {},
        t("lupi.mod.vote_line", { voter: nameOf(w), target: nameOf(target) })))));
  }
  if (v.phase === "lynch") {
    items.push(h("h3", {}, t("lupi.mod.votes")), h("ul", { class: "mod-list", id: "mod-votes" },
      Object.entries(s.votes || {}).map(([voter, target]) => h("li", {},
        t("lupi.mod.vote_line", { voter: nameOf(voter), target: nameOf(target) })))));
  }
  items.push(h("button", {
    class: "btn btn-primary btn-big", id: "advance-btn",
    disabled: !(v.me.can || []).includes("advance"),
    onclick: () => session.act({ type: "advance" }),
  }, t("lupi.mod.advance")));
  return items;
}

export function lupiPanel(v, local, redraw) {
  if (v.me?.moderator) return moderatorPanel(v);
  const me = v.me || {};
  if (NIGHT.includes(v.phase)) {
    if (!me.alive) return [waiting("lupi.ghost")];
    if (v.phase === "seer" && me.role === "veggente") return seerPanel(v, local, redraw);
    if (v.phase === "wolves" && me.role === "lupo") return wolvesPanel(v);
    return [waiting("lupi.close_eyes")];
  }
  switch (v.phase) {
    case "day": return dayPanel(v);
    case "nomination":
    case "lynch": return votePanel(v);
    case "defence": return defencePanel(v);
    default: return [];
  }
}

/** My card: the role, what it can do, the pack (a wolf), the looks (the veggente). */
export function roleCardFace(v) {
  const me = v.me || {};
  return [
    h("span", { class: "label" }, t("card.role")),
    h("strong", { class: "secret-word", id: "secret-role", "data-role": me.role }, roleName(me.role, v.preset)),
    h("small", { class: "role-help" }, t(`lupi.role.${me.role}.help`)),
    (me.pack || []).length ? h("p", { class: "secret-pack" },
      t("lupi.card.pack", { names: me.pack.map(nameOf).join(", ") })) : null,
    (me.seen || []).length ? h("ul", { class: "known" }, me.seen.map((s) => h("li", {},
      t("lupi.card.seen", { n: s.night, name: nameOf(s.player), answer: answer(s.wolf) })))) : null,
  ];
}

export { NIGHT };
