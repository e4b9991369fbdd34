// Impostore's game screen (game/impostor/): status and timer, the card held to be seen,
// "Non conosco la parola" and its vote, spoken clue turns (guided: the called player's phone
// chimes and buzzes; free: the order), the discussion and the changeable vote, the runoff,
// the eliminated impostor's guess, the players with what my card tells me marked on them,
// then the end with this game's points, the podium and the awards.

import { face } from "../avatar.js";
import { heldCard } from "../card.js";
import { h, region } from "../dom.js";
import { claimErrors, errorText } from "../errors.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { nextRules, rematchBar } from "./controls.js";
import { micCard } from "../miccard.js";
import { factText, nameOf, roleName } from "../names.js";
import * as notes from "../notepad.js";
import { ring } from "../ring.js";
import * as session from "../session.js";
import { state } from "../state.js";
import { eveningPanel, gamePoints } from "./podium.js";
import { monoSwitch, volumeControl } from "../volumes.js";

const VOTING = ["vote", "runoff"];

function can(v, action) {
  return (v.me?.can || []).includes(action);
}

function roomPlayer(pid) {
  return state.room?.players?.find((x) => x.id === pid) || {};
}

function names(list) {
  return (list || []).map(nameOf).join(", ");
}

// ---------------------------------------------------------------- the card

/** The secret card, shown only while held: what my role lets me know. */
function impostorCard(v) {
  const me = v.me || {};
  const impostor = me.role === "impostore";
  const lines = [];
  lines.push(h("p", { class: "secret-role" }, t("imp.card.you_are"), " ", h("strong", { id: "my-role" }, roleName(me.role, v.preset))));
  if (me.word) {
    lines.push(h("span", { class: "label" }, t("card.word")),
      h("strong", { class: "secret-word", id: "secret-word" }, me.word));
  } else if (me.hint) {
    lines.push(h("span", { class: "label" }, t("imp.card.hint")),
      h("strong", { class: "secret-word", id: "secret-hint" }, me.hint));
  } else if (impostor && v.rules?.impostor_info === "hint") {
    lines.push(h("p", { id: "secret-nothing" }, t("imp.card.no_hint")));
  } else if (impostor && !me.category) {
    lines.push(h("p", { id: "secret-nothing" }, t("imp.card.nothing")));
  }
  if (me.category) {
    lines.push(h("p", { class: "secret-category", id: "secret-category" },
      t("imp.card.category", { name: me.category === "custom" ? t("cat.custom") : me.category_name })));
  }
  if (me.impostor_count) lines.push(h("p", { id: "impostor-count" }, t("imp.card.count", { n: me.impostor_count })));
  if (me.role && me.role !== "innocente") lines.push(h("small", { class: "hint" }, t(`imp.role.${me.role}.help`)));
  if ((me.known || []).length) {
    lines.push(h("ul", { class: "known" }, me.known.map((f) => h("li", { "data-fact": f.fact }, factText(f)))));
  }
  return heldCard(lines);
}

// ---------------------------------------------------------------- the panel under the card

function cardPanel(v) {
  const items = [h("p", {}, t("imp.card.look"))];
  const req = v.word_request || {};
  if (req.last) {
    items.push(h("p", { class: req.last.changed ? "ok" : "hint", id: "word-vote-result" },
      t(req.last.changed ? "imp.wv.changed" : "imp.wv.kept", { yes: req.last.yes, no: req.last.no })));
  }
  const me = v.players.find((p) => p.id === state.player) || {};
  items.push(me.ready
    ? h("p", { class: "ok", id: "seen-done" }, icon("check", 18), " ", t("imp.seen_done"))
    : h("button", { class: "btn btn-primary btn-big", id: "seen-btn", disabled: !can(v, "seen"),
      onclick: () => session.act({ type: "seen" }) }, t("imp.seen")));
  if (can(v, "ask_word")) {
    items.push(h("button", {
      class: "btn", id: "ask-word-btn",
      onclick: () => { if (confirm(t("imp.ask_confirm"))) session.act({ type: "ask_word" }); },
    }, t("imp.ask_word")));
  } else if (v.me?.asked) {
    items.push(h("p", { class: "hint", id: "asked-note" }, t("imp.asked")));
  }
  items.push(h("p", { class: "hint", id: "requests-left" }, t("imp.requests_left", { n: req.left ?? 0 })));
  return items;
}

function wordVotePanel(v) {
  const mine = v.me?.word_vote;
  const alive = v.players.filter((p) => p.alive);
  const choice = (change, id, label) => h("button", {
    class: `btn ${mine === change ? "btn-primary" : ""}`, id, "aria-pressed": mine === change ? "true" : "false",
    disabled: !can(v, "word_vote"), onclick: () => session.act({ type: "word_vote", change }),
  }, label);
  return [
    h("p", { id: "word-vote-title" }, t("imp.wv.title")),
    h("div", { class: "row" }, choice(true, "word-yes", t("imp.wv.yes")), choice(false, "word-no", t("imp.wv.no"))),
    h("p", { class: "hint" }, t("vote.progress", { n: alive.filter((p) => p.voted).length, total: alive.length })),
  ];
}

function orderList(v) {
  const alive = new Set(v.players.filter((p) => p.alive).map((p) => p.id));
  return h("ol", { class: "order", "aria-label": t("clue.order") },
    (v.order || []).filter((pid) => alive.has(pid)).map((pid) => h("li", {
      class: pid === v.turn ? "now" : "", "aria-current": pid === v.turn ? "step" : false, "data-pid": pid,
    }, nameOf(pid))));
}

function cluesPanel(v) {
  const items = [];
  const me = v.me || {};
  // By elimination: the previous vote may have put nobody out (a tie, or nobody voted).
  if (v.round > 1 && !(v.eliminations || []).some((e) => e.round === v.round - 1)) {
    items.push(h("p", { class: "hint", id: "no-elimination" }, t("imp.no_elimination")));
  }
  if (v.rounds > 1) items.push(h("p", { class: "hint" }, t("imp.clue.round", { n: v.clue_round, total: v.rounds })));
  items.push(orderList(v));
  const first = v.order?.[0];
  if (first && v.players.find((p) => p.id === first)?.known_innocent) {
    items.push(h("p", { class: "hint", id: "first-innocent" }, t("imp.clue.first_innocent", { name: nameOf(first) })));
  }
  if (me.alive === false) return [...items, h("p", { class: "waiting" }, t("game.you_are_out"))];
  if (v.rules?.turns === "free") {
    items.push(h("p", {}, t("imp.clue.free", { name: nameOf(first) })));
    const mine = v.players.find((p) => p.id === state.player) || {};
    items.push(mine.ready
      ? h("p", { class: "ok", id: "clues-done" }, icon("check", 18), " ", t("imp.seen_done"))
      : h("button", { class: "btn btn-primary btn-big", id: "clues-ready-btn", onclick: () => session.act({ type: "ready" }) },
        t("imp.clue.free_ready")));
    return items;
  }
  if (v.turn === state.player) {
    items.push(h("p", { class: "your-turn", id: "your-turn" }, icon("mic", 18), " ", t("imp.clue.your_turn")),
      h("button", { class: "btn btn-primary btn-big", id: "done-btn", onclick: () => session.act({ type: "done" }) },
        t("imp.clue.done")));
  } else if (v.turn) {
    items.push(h("p", { class: "waiting" }, t("imp.clue.wait", { name: nameOf(v.turn) })));
  }
  if (me.muted === "floor") {
    items.push(h("p", { class: "muted-note", id: "floor-note" }, icon("micOff", 18), " ", t("imp.floor", { name: nameOf(v.turn) })));
  }
  return items;
}

function votePanel(v) {
  const me = v.me || {};
  const items = [];
  if (v.phase === "runoff") items.push(h("p", { id: "runoff-among" }, t("imp.vote.runoff", { names: names(v.candidates) })));
  if (me.alive === false) return [...items, h("p", { class: "waiting" }, t("game.you_are_out"))];
  items.push(h("p", { class: "hint" }, t("imp.vote.hint")));
  if (v.rules?.secret_vote) items.push(h("p", { class: "hint" }, t("imp.vote.secret")));
  items.push(h("p", { id: "my-vote", class: me.vote ? "ok" : "" }, me.vote ? t("vote.mine", { name: nameOf(me.vote) }) : t("vote.none")));
  return items;
}

function guessPanel(v, form) {
  if (can(v, "guess")) return [h("p", {}, t("imp.guess.explain")), form()];
  return [h("p", { class: "waiting" }, t("imp.guess.wait", { name: v.acting ? nameOf(v.acting) : "?" }))];
}

// ---------------------------------------------------------------- the end

function endScreen(v) {
  const r = v.result || {};
  const winners = new Set(r.winners || []);
  const iWon = winners.has(state.player);
  const players = r.players || [];
  return [
    h("section", { class: `card end-head ${iWon ? "won" : "lost"}` },
      h("h1", { id: "end-title" }, iWon ? t("end.you_won") : t("end.you_lost")),
      h("p", { id: "end-side" }, t(`imp.end.side.${r.outcome}`)),
      h("p", { class: "winners", id: "winners" }, t("end.winners", { names: [...winners].map(nameOf).join(", ") || t("end.nobody") }))),
    h("section", { class: "card words" },
      h("div", { class: "word-box" }, h("span", { class: "label" }, t("imp.end.word")), h("strong", { id: "end-word" }, r.word ?? "—")),
      h("div", { class: "word-box" }, h("span", { class: "label" }, t("imp.end.hint")), h("strong", { id: "end-hint" }, r.hint ?? "—"))),
    h("p", { class: "hint category", id: "end-category" }, t("end.category", { name: r.category === "custom" ? t("cat.custom") : r.category_name }),
      (r.words_dealt || []).length > 1 ? ` · ${t("imp.end.words_dealt", { words: r.words_dealt.join(" → ") })}` : ""),
    (r.guesses || []).length ? h("section", { class: "card" }, (r.guesses || []).map((g) => h("p", { class: "guess-line" },
      g.word ? t(g.right ? "imp.end.guess_right" : "imp.end.guess_wrong", { name: nameOf(g.player), word: g.word })
        : t("imp.end.guess_none", { name: nameOf(g.player) })))) : null,
    h("section", { class: "card" },
      h("h2", {}, t("imp.end.roles")),
      h("ul", { class: "end-list" }, players.map((p) => h("li", { class: `end-row ${winners.has(p.id) ? "winner" : ""}`, "data-pid": p.id },
        h("span", { class: "avatar small" }, face({ id: p.id, name: nameOf(p.id), ...roomPlayer(p.id) }, 36)),
        h("span", { class: "end-main" },
          h("strong", {}, nameOf(p.id), winners.has(p.id) ? ` · ${t("end.winner")}` : ""),
          h("span", { class: "end-role", "data-role": p.role }, roleName(p.role, v.preset))))))),
    gamePoints(r),
    eveningPanel(),
    nextRules(),
    rematchBar(),
  ];
}

// ---------------------------------------------------------------- the screen

export function mountImpostor(root) {
  const timer = ring();
  const status = h("div", { class: "status-text" });
  const head = h("section", { class: "status card" }, status, timer.el);
  const cardEl = h("div", { class: "secret-wrap" });
  const reveal = h("div", { class: "reveal-wrap" });
  const panel = h("section", { class: "card panel", "aria-live": "polite" });
  const grid = h("section", { class: "grid-wrap", "aria-label": t("game.players") });
  const mic = h("div");
  const play = h("div", { class: "screen game impostor" }, head, cardEl, reveal, panel, grid, mic);
  const end = h("div", { class: "screen end" });
  root.append(play, end);

  // A refused guess shows under its field.
  const unclaim = claimErrors((err) => {
    const slot = panel.querySelector(".inline-error");
    const form = panel.querySelector("[data-ref]");
    if (!slot || !form || (err.ref && err.ref !== form.dataset.ref)) return false;
    slot.textContent = errorText(err);
    return true;
  });

  function guessForm() {
    const input = h("input", { id: "guess-input", type: "text", maxlength: 60, autocomplete: "off", autocapitalize: "off",
      spellcheck: "false", "aria-label": t("imp.guess.label"), placeholder: t("guess.placeholder") });
    const err = h("p", { class: "inline-error", role: "alert" });
    const form = h("form", { class: "action-form", "data-ref": "", onsubmit: (ev) => {
      ev.preventDefault();
      err.textContent = "";
      form.dataset.ref = session.act({ type: "guess", word: input.value.trim() });
    } },
    h("label", { for: "guess-input", class: "label" }, t("imp.guess.label")),
    h("div", { class: "row" }, input, h("button", { class: "btn btn-primary", type: "submit", id: "guess-input-send" }, t("guess.send"))),
    err);
    setTimeout(() => input.focus({ preventScroll: true }), 0);
    return form;
  }

  function statusText(v) {
    let line;
    if (v.phase === "clues" && v.turn) {
      line = v.turn === state.player ? t("imp.clue.your_turn_short") : t("clue.turn_of", { name: nameOf(v.turn) });
    } else if (VOTING.includes(v.phase)) {
      const alive = v.players.filter((p) => p.alive);
      line = t("vote.progress", { n: alive.filter((p) => p.voted).length, total: alive.length });
    } else {
      line = t(`imp.phase.${v.phase}.line`);
    }
    return [
      h("div", { class: "phase-row" },
        h("span", { class: "phase-name", "data-phase": v.phase }, t(`imp.phase.${v.phase}`)),
        v.round ? h("span", { class: "round" }, t("game.round", { n: v.round })) : null),
      h("p", { class: "status-line", id: "status-line" }, line),
    ];
  }

  function lastElimination(v) {
    const e = (v.eliminations || []).at(-1);
    if (!e) return null;
    return h("div", { class: "reveal card", "data-player": e.player, role: "status" },
      h("span", { class: "avatar small" }, face({ id: e.player, name: nameOf(e.player), ...roomPlayer(e.player) }, 36)),
      h("p", {}, t("imp.reveal", { name: nameOf(e.player), role: roleName(e.role, v.preset) })));
  }

  function pick(pid) {
    const v = state.view;
    if (!v || !VOTING.includes(v.phase) || !can(v, "vote") || pid === state.player) return;
    if (!(v.candidates || []).includes(pid)) return;
    session.act({ type: "vote", target: pid });
  }

  function avatarCard(v, p) {
    const me = state.player;
    const mark = notes.getMarks()[p.id] || null;
    const voting = VOTING.includes(v.phase) && can(v, "vote");
    const canPick = voting && p.id !== me && (v.candidates || []).includes(p.id);
    const isTurn = v.phase === "clues" && v.turn === p.id;
    const known = (v.me?.known || []).filter((f) => f.player === p.id);
    const count = ["runoff", "guess", "clues"].includes(v.phase) && v.vote_counts ? v.vote_counts[p.id] : undefined;
    const votedFor = p.vote ? nameOf(p.vote) : null;
    const classes = ["pcard", p.alive ? "" : "dead", isTurn ? "turn" : "", v.me?.vote === p.id ? "voted-by-me" : "",
      canPick ? "pickable" : "", p.id === me ? "me" : "", roomPlayer(p.id).online === false ? "offline" : "",
      known.length ? "known" : "", mark ? `mark-${mark}` : ""];
    const label = [p.name, p.id === me ? t("lobby.you") : null, !p.alive ? t("game.eliminated") : null,
      isTurn ? t("game.their_turn") : null, ...known.map((f) => t(`fact.short.${f.fact}`)),
      p.known_innocent ? t("imp.badge.innocent") : null, canPick ? t("vote.tap_hint") : null].filter(Boolean);
    const btn = h("button", {
      // Named by its own text plus the hints (an aria-label would hide the badges one sees).
      type: "button", class: "avatar", "data-pid": p.id,
      "aria-pressed": v.me?.vote === p.id ? "true" : "false", onclick: () => pick(p.id),
    },
    face({ ...roomPlayer(p.id), ...p, color: roomPlayer(p.id).color }, 60),
    h("span", { class: "pname" }, p.name),
    h("span", { class: "sr-only" }, label.slice(1).map((x) => `, ${x}`).join("")),
    h("span", { class: "badges" },
      p.id === me ? h("span", { class: "badge badge-me" }, t("lobby.you")) : null,
      isTurn ? h("span", { class: "badge badge-turn" }, t("game.turn_badge")) : null,
      known.map((f) => h("span", { class: "badge badge-known", "data-fact": f.fact }, t(`fact.short.${f.fact}`))),
      p.known_innocent && p.alive ? h("span", { class: "badge badge-innocent" }, t("imp.badge.innocent")) : null,
      p.ready ? h("span", { class: "badge badge-ready" }, icon("check", 12), t("imp.badge.ready")) : null,
      p.voted ? h("span", { class: "badge badge-voted" }, icon("check", 12), t("vote.voted_badge")) : null,
      votedFor ? h("span", { class: "badge badge-vote", "data-vote": p.vote }, t("imp.badge.votes", { name: votedFor })) : null,
      typeof count === "number" ? h("span", { class: "badge badge-count" }, t("vote.count", { n: count })) : null,
      !p.alive ? h("span", { class: "badge badge-dead" }, p.revealed_role ? roleName(p.revealed_role, v.preset) : t("game.eliminated")) : null));
    const markBtn = h("button", {
      type: "button", class: `mark mark-${mark || "none"}`, "data-mark": mark || "none",
      "aria-label": t("notes.mark_aria", { name: p.name, mark: notes.markLabel(mark) }),
      onclick: () => { notes.cycleMark(p.id); draw(); },
    }, notes.markSymbol(mark));
    return h("div", { class: classes.filter(Boolean).join(" "), "data-pid": p.id }, btn, markBtn, volumeControl(p));
  }

  function phasePanel(v) {
    switch (v.phase) {
      case "card": return cardPanel(v);
      case "word_vote": return wordVotePanel(v);
      case "clues": return cluesPanel(v);
      case "vote":
      case "runoff": return votePanel(v);
      case "guess": return guessPanel(v, guessForm);
      default: return [];
    }
  }

  function draw() {
    const v = state.view;
    if (!v) return;
    if (v.phase === "over") {
      play.hidden = true;
      end.hidden = false;
      region(end, [v.result, state.room?.evening, state.room?.players, state.room?.host, state.room?.settings,
        state.player], () => endScreen(v));
      return;
    }
    // A rematch starts where the end screen was scrolled to: back to the top.
    if (!end.hidden) window.scrollTo(0, 0);
    play.hidden = false;
    end.hidden = true;
    region(status, [v.phase, v.round, v.turn, v.players.map((p) => [p.alive, p.voted])], () => statusText(v));
    timer.tick();
    region(cardEl, [v.me?.role, v.me?.word, v.me?.hint, v.me?.category, v.me?.known, v.me?.impostor_count, v.preset], () => impostorCard(v));
    region(reveal, [v.eliminations, v.players.map((p) => p.name)], () => lastElimination(v));
    region(panel, [v.phase, v.round, v.clue_round, v.turn, v.me, v.candidates, v.players, v.word_request, v.rules],
      () => phasePanel(v));
    region(grid, [v.phase, v.turn, v.players, v.me, v.candidates, v.vote_counts, state.room?.players, notes.getMarks(),
      state.room?.settings?.voice], () => [
      h("h2", { class: "sr-only" }, t("game.players")),
      h("div", { class: "grid" }, v.players.map((p) => avatarCard(v, p))),
      h("p", { class: "hint notes-hint" }, t("notes.hint")),
      monoSwitch(),
    ]);
    region(mic, [state.mic, state.voice], () => (state.mic === "on" && state.voice === "on") ? null : micCard());
  }

  draw();
  return {
    update(keys) {
      if (keys.has("view") || keys.has("room") || keys.has("mic") || keys.has("voice")) draw();
    },
    unmount() {
      timer.stop();
      unclaim();
    },
  };
}
