// The game: status and timer, secret card, the phase's panel, the players, the clue board.
// Each region redraws only when its own inputs change (typing and holding survive updates).

import { face } from "../avatar.js";
import { secretCard } from "../card.js";
import { h, holdable, region } from "../dom.js";
import { claimErrors, errorText } from "../errors.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { micCard } from "../miccard.js";
import { nameOf, roleName } from "../names.js";
import * as notes from "../notepad.js";
import { ring } from "../ring.js";
import * as session from "../session.js";
import { state } from "../state.js";
import { clueBoard } from "./board.js";
import { endScreen } from "./end.js";
import { phasePanel } from "./panels.js";
import { monoSwitch, volumeControl } from "../volumes.js";

/** Which picking mode the phase puts my taps in, and how many targets it takes. */
function pickMode(view, local) {
  const me = view.me || {};
  const can = me.can || [];
  const p = view.phase;
  if (p === "powers" && can.includes("bind")) return { mode: "bind", max: 1 };
  if (p === "powers" && can.includes("intoxicate")) return { mode: "intoxicate", max: 2 };
  if (p === "debate" && local.swapOpen && can.includes("swap")) return { mode: "swap", max: 1 };
  if (p === "judge" && can.includes("judge")) return { mode: "judge", max: 1 };
  if (p === "avenge" && can.includes("avenge")) return { mode: "avenge", max: 1 };
  if ((p === "vote" || p === "revote") && me.alive !== false && (!me.can || can.includes("vote"))) {
    return { mode: "vote", max: 1 };
  }
  return { mode: null, max: 0 };
}

function eligible(view, mode, pid) {
  const target = view.players.find((p) => p.id === pid);
  if (!target || pid === state.player) return false;
  if (mode === "judge") return (view.candidates || []).includes(pid);
  if (!target.alive) return false;
  if (mode === "vote" && view.candidates?.length) return view.candidates.includes(pid);
  return Boolean(mode);
}

export function mountGame(root) {
  const local = { picked: [], mode: null, swapOpen: false, lastPhase: null };
  const timer = ring();
  const status = h("div", { class: "status-text" });
  const head = h("section", { class: "status card" }, status, timer.el);
  const cardEl = h("div", { class: "secret-wrap" });
  const reveal = h("div", { class: "reveal-wrap" });
  const panel = h("section", { class: "card panel", "aria-live": "polite" });
  const grid = h("section", { class: "grid-wrap", "aria-label": t("game.players") });
  const board = h("section", { class: "card board-wrap" });
  const mic = h("div");
  const play = h("div", { class: "screen game" }, head, cardEl, reveal, panel, grid, board, mic);
  const end = h("div", { class: "screen end" });
  root.append(play, end);

  // Refusals of my last action are shown in the panel, under the field that caused them.
  const unclaim = claimErrors((err) => {
    const slot = panel.querySelector(".inline-error");
    const form = panel.querySelector("[data-ref]");
    if (!slot || !form) return false;
    if (err.ref && err.ref !== form.dataset.ref) return false;
    slot.textContent = errorText(err);
    slot.dataset.code = err.code;
    return true;
  });

  // A whisper ends when the finger lifts anywhere, even if the avatar was redrawn meanwhile.
  // A hush no finger holds (after a new socket) ends on the banner's button only.
  const stopWhisper = () => { if (session.holdingWhisper()) session.whisperStop(); };
  document.addEventListener("pointerup", stopWhisper);
  document.addEventListener("pointercancel", stopWhisper);

  function pick(pid) {
    const v = state.view;
    const { mode, max } = pickMode(v, local);
    if (!eligible(v, mode, pid)) return;
    if (mode === "vote") {
      session.act({ type: "vote", target: pid });
      return;
    }
    const i = local.picked.indexOf(pid);
    if (i >= 0) local.picked.splice(i, 1);
    else {
      local.picked.push(pid);
      if (local.picked.length > max) local.picked.shift();
    }
    draw();
  }

  function avatarCard(v, p, mode) {
    const me = state.player;
    const marks = notes.getMarks();
    const mark = marks[p.id] || null;
    const roomP = state.room?.players?.find((x) => x.id === p.id) || {};
    const isTurn = v.phase === "clues" && v.turn === p.id;
    const picked = local.picked.includes(p.id);
    const voted = v.me?.vote === p.id;
    const canPick = eligible(v, mode, p.id);
    const canWhisper = v.phase === "debate" && v.me?.alive !== false && p.alive && p.id !== me && p.whisper_ok !== false;
    const known = (v.me?.known || []).filter((f) => f.player === p.id);
    // The tally of the vote just held, shown while its consequences play out.
    const count = ["judge", "avenge", "guess", "revote"].includes(v.phase) ? v.vote_counts?.[p.id] : undefined;
    const classes = ["pcard", p.alive ? "" : "dead", isTurn ? "turn" : "", picked ? "picked" : "",
      voted ? "voted-by-me" : "", canPick ? "pickable" : "", canWhisper ? "whisperable" : "",
      p.id === me ? "me" : "", roomP.online === false ? "offline" : "", mark ? `mark-${mark}` : ""];
    const labelParts = [p.name];
    if (p.id === me) labelParts.push(t("lobby.you"));
    if (!p.alive) labelParts.push(t("game.eliminated"));
    if (isTurn) labelParts.push(t("game.their_turn"));
    if (canWhisper) labelParts.push(t("whisper.hold_hint"));
    if (canPick && mode === "vote") labelParts.push(t("vote.tap_hint"));
    // Named by its own text (name, badges) plus the hints a screen reader needs: an
    // aria-label would hide the badges one sees (axe: label-content-name-mismatch).
    const btn = h("button", {
      type: "button", class: "avatar", "data-pid": p.id,
      "aria-pressed": picked || voted ? "true" : "false",
    },
    face({ ...roomP, ...p, color: roomP.color }, 60),
    h("span", { class: "pname" }, p.name),
    h("span", { class: "sr-only" }, labelParts.slice(1).map((x) => `, ${x}`).join("")),
    h("span", { class: "badges" },
      p.id === me ? h("span", { class: "badge badge-me" }, t("lobby.you")) : null,
      isTurn ? h("span", { class: "badge badge-turn" }, t("game.turn_badge")) : null,
      (v.phase === "debate" || v.reading) && p.ready ? h("span", { class: "badge badge-ready" }, icon("check", 12), t("debate.ready_badge")) : null,
      (v.phase === "vote" || v.phase === "revote") && p.voted ? h("span", { class: "badge badge-voted" }, icon("check", 12), t("vote.voted_badge")) : null,
      typeof count === "number" ? h("span", { class: "badge badge-count" }, t("vote.count", { n: count })) : null,
      !p.alive ? h("span", { class: "badge badge-dead" }, p.revealed_role ? roleName(p.revealed_role, v.preset) : t("game.eliminated")) : null,
      known.map((f) => h("span", { class: "badge badge-known", "data-fact": f.fact }, t(`fact.short.${f.fact}`))),
      state.whispers[p.id] ? h("span", { class: "badge badge-whisper" }, icon("ear", 12)) : null));
    if (canWhisper) {
      holdable(btn, {
        delay: 200,
        start: () => session.whisperStart(p.id),
        stop: () => session.whisperStop(),
        tap: () => pick(p.id),   // a short tap still picks (the Sabotatore's swap)
      });
    } else {
      btn.addEventListener("click", () => pick(p.id));
    }
    const markBtn = h("button", {
      type: "button", class: `mark mark-${mark || "none"}`, "data-mark": mark || "none",
      "aria-label": t("notes.mark_aria", { name: p.name, mark: notes.markLabel(mark) }),
      onclick: () => { notes.cycleMark(p.id); draw(); },
    }, notes.markSymbol(mark));
    return h("div", { class: classes.filter(Boolean).join(" "), "data-pid": p.id }, btn, markBtn, volumeControl(p));
  }

  function statusText(v) {
    const parts = [h("span", { class: "phase-name", "data-phase": v.phase }, t(`phase.${v.phase}`))];
    if (v.round) parts.push(h("span", { class: "round" }, t("game.round", { n: v.round })));
    let line = "";
    if (v.phase === "clues" && v.reading) {
      line = t("reading.line");
    } else if (v.phase === "clues" && v.turn) {
      line = v.turn === state.player ? t("clue.your_turn") : t("clue.turn_of", { name: nameOf(v.turn) });
    } else if (v.phase === "vote" || v.phase === "revote") {
      const alive = v.players.filter((p) => p.alive);
      line = t("vote.progress", { n: alive.filter((p) => p.voted).length, total: alive.length });
    } else {
      line = t(`phase.${v.phase}.line`);
    }
    return [h("div", { class: "phase-row" }, parts), h("p", { class: "status-line", id: "status-line" }, line)];
  }

  function lastElimination(v) {
    const list = v.eliminations || [];
    if (!list.length) return null;
    const e = list[list.length - 1];
    return h("div", { class: "reveal card", "data-player": e.player, role: "status" },
      h("span", { class: "avatar small" }, face({ id: e.player, name: nameOf(e.player), ...(state.room?.players?.find((x) => x.id === e.player) || {}) }, 36)),
      h("p", {}, t(`reveal.${e.cause || "vote"}`, { name: nameOf(e.player), role: roleName(e.role, v.preset) })));
  }

  function draw() {
    const v = state.view;
    if (!v) return;
    if (`${local.lastPhase}:${local.lastRound}` !== `${v.phase}:${v.round}`) {
      local.picked = [];
      local.swapOpen = false;
    }
    local.lastPhase = v.phase;
    local.lastRound = v.round;

    if (v.phase === "over") {
      play.hidden = true;
      end.hidden = false;
      region(end, [v.result, v.players, state.room?.host, state.room?.evening, state.room?.settings, state.player],
        () => endScreen(v));
      return;
    }
    // A rematch starts where the end screen was scrolled to: back to the top.
    if (!end.hidden) window.scrollTo(0, 0);
    play.hidden = false;
    end.hidden = true;
    const { mode } = pickMode(v, local);
    local.mode = mode;

    region(status, [v.phase, v.round, v.turn, v.reading, v.players.map((p) => [p.alive, p.voted])], () => statusText(v));
    timer.tick();
    region(cardEl, [v.me, v.preset], () => secretCard(v));
    region(reveal, [v.eliminations, v.players.map((p) => p.name)], () => lastElimination(v));
    region(panel, [v.phase, v.reading, v.round, v.turn, v.me, v.candidates, v.players, local.picked, local.swapOpen,
      (v.clues || []).length], () => phasePanel(v, local, {
      redraw: draw,
      openSwap: () => { local.swapOpen = true; local.picked = []; draw(); },
      closeSwap: () => { local.swapOpen = false; local.picked = []; draw(); },
    }));
    region(grid, [v.phase, v.turn, v.players, v.me, v.candidates, v.vote_counts, local.picked, mode,
      state.whispers, state.room?.players, notes.getMarks(), state.room?.settings?.voice], () => [
      h("h2", { class: "sr-only" }, t("game.players")),
      h("div", { class: "grid" }, v.players.map((p) => avatarCard(v, p, mode))),
      h("p", { class: "hint notes-hint" }, t("notes.hint")),
      monoSwitch(),
    ]);
    region(board, [v.clues, v.players.map((p) => p.name), v.turn], () => clueBoard(v.clues || [], v));
    region(mic, [state.mic, state.voice], () => (state.mic === "on" && state.voice === "on") ? null : micCard());
  }

  draw();
  return {
    update(keys) {
      if (keys.has("view") || keys.has("room") || keys.has("whispers") || keys.has("mic") || keys.has("voice")) draw();
    },
    unmount() {
      timer.stop();
      unclaim();
      document.removeEventListener("pointerup", stopWhisper);
      document.removeEventListener("pointercancel", stopWhisper);
    },
  };
}
