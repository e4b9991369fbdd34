// The panel under the card: what I can do in this phase (clue, ready, vote, powers...).

import { h } from "../dom.js";
import { emojiPicker } from "../emoji.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { nameOf, powerName } from "../names.js";
import * as session from "../session.js";
import { state } from "../state.js";

/** A one-field form whose refusal shows under it (matched by the action's ref). */
function actionForm({ id, label, placeholder, maxlength = 80, submit, build, extra = null, autofocus = false }) {
  const input = h("input", {
    id, type: "text", maxlength, autocomplete: "off", autocapitalize: "off", spellcheck: "false",
    placeholder, "aria-label": label, enterkeyhint: "send",
  });
  const err = h("p", { class: "inline-error", role: "alert", "aria-live": "assertive" });
  const form = h("form", {
    class: "action-form", "data-ref": "",
    onsubmit: (ev) => {
      ev.preventDefault();
      const text = input.value.trim();
      err.textContent = "";
      delete err.dataset.code;
      form.dataset.ref = session.act(build(text));
    },
  },
  h("label", { for: id, class: "label" }, label),
  h("div", { class: "row" }, input, h("button", { class: "btn btn-primary", type: "submit", id: `${id}-send` }, submit)),
  extra ? extra(input) : null,
  err);
  if (autofocus) setTimeout(() => input.focus({ preventScroll: true }), 0);
  return form;
}

function waiting(key, params) {
  return h("p", { class: "waiting" }, t(key, params));
}

function pickedNames(local) {
  return local.picked.map(nameOf).join(", ");
}

function confirmButton(id, label, enabled, onclick) {
  return h("button", { class: "btn btn-primary", id, disabled: !enabled, onclick }, label);
}

/** Before the first clue: a moment to read one's card, over when everyone has read it. */
function readingNote(v, mine) {
  const me = v.players.find((p) => p.id === state.player) || {};
  const can = v.me?.can || [];
  return h("div", { class: "reading", id: "reading" },
    h("p", { class: "hint" }, t("reading.hint")),
    mine ? h("p", {}, t("reading.first")) : null,
    can.includes("ready")
      ? h("button", {
        class: "btn btn-primary btn-big", id: "read-btn", onclick: () => session.act({ type: "ready" }),
      }, t("reading.ready"))
      : me.ready ? h("p", { class: "ok", id: "read-done" }, icon("check", 18), " ", t("reading.done")) : null);
}

function cluePanel(v) {
  const me = v.me || {};
  const mine = v.turn === state.player;
  const muto = me.power === "muto";
  const items = [];
  if (v.reading) items.push(readingNote(v, mine));
  // The game's audio policy says why my mic is shut (the Muto during clues, the eliminated).
  if (me.muted === "muto" || (muto && me.alive !== false && !me.muted)) {
    items.push(h("p", { class: "muted-note", id: "muto-note" }, icon("micOff", 18), " ", t("clue.muto_mic")));
  }
  if (me.alive === false) {
    items.push(waiting("game.you_are_out"));
  }
  // The round's speaking order, the current speaker marked: who already spoke, who is next.
  if (v.order?.length) {
    const alive = new Set(v.players.filter((p) => p.alive).map((p) => p.id));
    items.push(h("ol", { class: "order", "aria-label": t("clue.order") },
      v.order.filter((pid) => alive.has(pid)).map((pid) => h("li", {
        class: pid === v.turn ? "now" : "", "aria-current": pid === v.turn ? "step" : false,
      }, nameOf(pid)))));
  }
  if (mine) {
    const pappagallo = me.power === "pappagallo";
    items.push(actionForm({
      id: "clue-input",
      label: muto ? t("clue.label_muto") : t("clue.label"),
      placeholder: muto ? "🐱🌙" : t("clue.placeholder"),
      submit: t("clue.send"),
      build: (text) => ({ type: "clue", text }),
      extra: muto ? (input) => emojiPicker(input) : null,
      autofocus: true,
    }));
    items.push(h("p", { class: "hint" }, pappagallo ? t("clue.rule_pappagallo") : t("clue.rule")));
  } else if (v.turn) {
    items.push(waiting("clue.wait", { name: nameOf(v.turn) }));
  }
  return items;
}

function debatePanel(v, local, ctl) {
  const me = v.me || {};
  const mine = v.players.find((p) => p.id === state.player) || {};
  const items = [];
  if (me.alive === false) return [waiting("game.you_are_out")];
  items.push(h("p", { class: "hint" }, t("debate.hint")));
  const can = me.can || [];
  if (local.swapOpen) {
    items.push(h("p", {}, t("swap.pick")),
      h("div", { class: "row" },
        confirmButton("swap-confirm", local.picked.length ? t("swap.confirm", { name: pickedNames(local) }) : t("swap.choose"),
          local.picked.length === 1,
          () => { session.act({ type: "swap", target: local.picked[0] }); ctl.closeSwap(); }),
        h("button", { class: "btn btn-ghost", onclick: ctl.closeSwap }, t("app.cancel"))));
  } else if (can.includes("swap")) {
    items.push(h("button", { class: "btn", id: "swap-open", onclick: ctl.openSwap }, icon("swap", 18), " ", t("swap.open")));
  }
  items.push(mine.ready
    ? h("p", { class: "ok", id: "ready-done" }, icon("check", 18), " ", t("debate.ready_done"))
    : h("button", {
      class: "btn btn-primary btn-big", id: "ready-btn",
      onclick: () => session.act({ type: "ready" }),
    }, t("debate.ready")));
  return items;
}

function votePanel(v) {
  const me = v.me || {};
  if (me.alive === false) return [waiting("game.you_are_out")];
  const items = [];
  if (v.phase === "revote") {
    items.push(h("p", {}, t("vote.revote_among", { names: (v.candidates || []).map(nameOf).join(", ") })));
  }
  items.push(h("p", { class: "hint" }, t("vote.hint")));
  items.push(h("p", { id: "my-vote", class: me.vote ? "ok" : "" },
    me.vote ? t("vote.mine", { name: nameOf(me.vote) }) : t("vote.none")));
  return items;
}

function powersPanel(v, local) {
  const can = v.me?.can || [];
  if (can.includes("bind")) {
    return [h("p", {}, t("power.cupido.pick")),
      confirmButton("bind-confirm", local.picked.length ? t("power.cupido.confirm", { name: pickedNames(local) }) : t("swap.choose"),
        local.picked.length === 1, () => session.act({ type: "bind", target: local.picked[0] }))];
  }
  if (can.includes("intoxicate")) {
    return [h("p", {}, t("power.ubriacone.pick")),
      confirmButton("intoxicate-confirm", local.picked.length === 2 ? t("power.ubriacone.confirm", { names: pickedNames(local) }) : t("power.ubriacone.choose_two"),
        local.picked.length === 2, () => session.act({ type: "intoxicate", targets: [...local.picked] }))];
  }
  const items = [waiting("powers.wait")];
  if (v.me?.power) items.push(h("p", { class: "hint" }, t("powers.yours", { power: powerName(v.me.power) })));
  return items;
}

function judgePanel(v, local) {
  if ((v.me?.can || []).includes("judge")) {
    return [h("p", {}, t("judge.pick", { names: (v.candidates || []).map(nameOf).join(", ") })),
      confirmButton("judge-confirm", local.picked.length ? t("judge.confirm", { name: pickedNames(local) }) : t("swap.choose"),
        local.picked.length === 1, () => session.act({ type: "judge", target: local.picked[0] }))];
  }
  return [waiting("judge.wait")];
}

function avengePanel(v, local) {
  if ((v.me?.can || []).includes("avenge")) {
    return [h("p", {}, t("avenge.pick")),
      confirmButton("avenge-confirm", local.picked.length ? t("avenge.confirm", { name: pickedNames(local) }) : t("swap.choose"),
        local.picked.length === 1, () => session.act({ type: "avenge", target: local.picked[0] }))];
  }
  return [waiting("avenge.wait")];
}

function guessPanel(v) {
  if ((v.me?.can || []).includes("guess")) {
    return [h("p", {}, t("guess.explain")), actionForm({
      id: "guess-input", label: t("guess.label"), placeholder: t("guess.placeholder"),
      submit: t("guess.send"), build: (word) => ({ type: "guess", word }), autofocus: true,
    })];
  }
  const who = v.acting || (v.eliminations || []).at(-1)?.player;
  return [waiting("guess.wait", { name: who ? nameOf(who) : "?" })];
}

export function phasePanel(v, local, ctl) {
  switch (v.phase) {
    case "clues": return cluePanel(v);
    case "debate": return debatePanel(v, local, ctl);
    case "vote":
    case "revote": return votePanel(v);
    case "powers": return powersPanel(v, local);
    case "judge": return judgePanel(v, local);
    case "avenge": return avengePanel(v, local);
    case "guess": return guessPanel(v);
    default: return [];
  }
}
