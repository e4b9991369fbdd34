// A game on one phone passed around the table. What to show comes from the core's own
// views (who may do what: `me.can`; who acts in public: `acting`, `turn`); this module
// only decides who holds the phone:
// - a private screen (a card, a secret choice, a guess) starts with "pass the phone to
//   NAME" and waits for NAME to confirm; the card shows only while held;
// - a secret phase (a tie the Giudice breaks, the seer's and the wolves' night) passes
//   the phone to every living player in turn, each seeing the same screen;
// - everything else is the table's, the phone in the middle: who speaks, the vote aloud.

import { face } from "/static/js/avatar.js";
import { h } from "/static/js/dom.js";
import { t } from "/static/js/i18n.js";
import { narrationText } from "/static/js/narrator.js";
import { nameOf, roleName } from "/static/js/names.js";
import { update } from "/static/js/state.js";
import { cardFor } from "./cards.js";
import { call } from "./core.js";
import { say } from "./speech.js";
import { gameClock, store } from "./store.js";

// Phases whose actor is secret: the phone goes round every living player.
const SECRET_PHASES = new Set(["judge", "seer", "wolves"]);
// Actions taken on a private screen by the one holding the phone.
const PRIVATE_ACTIONS = new Set(["bind", "intoxicate", "seen", "guess", "avenge", "judge", "peek", "bite"]);
// Ballots where the table names two (the werewolf nomination: the two most voted).
const TWO_PLACES = new Set(["nomination"]);
// Secret phases that last their time whatever is chosen (the werewolf night): once the
// phone has gone round, the rest of their time passes at once (nothing is left to do).
const TIMED_SECRET = new Set(["seer", "wolves"]);

/**
 * Mount a game. `game` is the stored game ({record, clock, flow}); `snap` the core's
 * snapshot ({public, views, deadline, result}). `onOver(result)` when it ends.
 */
export function mountPlay(root, game, snap, { toast, onOver }) {
  const clock = gameClock(game);
  const flow = game.flow;
  const local = { holding: null, picked: [], tie: false, countdown: null, busy: false, again: null, chosen: null };
  const el = h("div", { class: "screen onephone-play" });
  root.append(el);
  let lastSaid = "";

  const players = () => snap.public.players;
  const viewOf = (pid) => snap.views[pid];
  const canOf = (pid) => viewOf(pid)?.me?.can || [];
  const living = () => players().filter((p) => p.alive).map((p) => p.id);

  async function run(promise) {
    local.busy = true;
    try {
      return await promise;
    } catch (err) {
      toast({ code: err.code || "core_failed", detail: err.detail });
      return null;
    } finally {
      local.busy = false;
    }
  }

  /** Send `player`'s action to the core at the game clock's time; keep it in the record. */
  async function act(player, action) {
    const now = clock.now();
    const res = await run(call("act", { player, action, now }));
    if (!res) return false;
    game.record.log.push({ t: now, player, action });
    snap = res;
    store.save();
    afterChange(res.events);
    return true;
  }

  async function tickTo(now) {
    const res = await run(call("tick", { now }));
    if (!res) return;
    if (res.events.length) {
      game.record.log.push({ t: now, player: null, action: { type: "tick" } });
      snap = res;
      store.save();
      afterChange(res.events);
    }
  }

  function afterChange() {
    local.picked = [];
    local.tie = false;
    local.countdown = null;
    draw();
  }

  // ---------------------------------------------------------------- who holds the phone

  function cardNeeded(pid) {
    const can = canOf(pid);
    return !flow.seen.includes(pid) || can.some((a) => a === "seen" || a === "bind" || a === "intoxicate");
  }

  /** The private screen due now: {pid, kind} or null (the phone is the table's). */
  function privateStep() {
    const pub = snap.public;
    if (pub.phase === "over") return null;
    if (flow.again) return { pid: flow.again, kind: "again" };
    const unseen = players().map((p) => p.id).find(cardNeeded);
    if (unseen) return { pid: unseen, kind: "card" };
    if (SECRET_PHASES.has(pub.phase)) {
      const key = roundKey(pub);
      if (!flow.round || flow.round.key !== key) flow.round = { key, done: [] };
      const next = living().find((pid) => !flow.round.done.includes(pid));
      if (next) return { pid: next, kind: "secret" };
      return null;
    }
    if (pub.acting && canOf(pub.acting).some((a) => PRIVATE_ACTIONS.has(a))) {
      return { pid: pub.acting, kind: "acting" };
    }
    return null;
  }

  function roundKey(pub) {
    return `${pub.phase}:${pub.round ?? ""}:${pub.day ?? ""}:${pub.phase_started}`;
  }

  // ---------------------------------------------------------------- screens

  function passScreen(step) {
    const name = nameOf(step.pid);
    return h("section", { class: "card pass", "data-pass": step.pid },
      h("div", { class: "pass-face" }, face({ id: step.pid, name }, 96)),
      h("h2", { id: "pass-title" }, t("offline.pass_to", { name })),
      h("p", { class: "hint" }, t("offline.pass_hint", { name })),
      h("button", {
        class: "btn btn-primary btn-big", id: "pass-confirm",
        onclick: () => { local.holding = step.pid; local.picked = []; draw(); },
      }, t("offline.i_am", { name })));
  }

  function pickGrid(ids, max, onPick) {
    return h("div", { class: "grid pick-grid" }, ids.map((pid) => {
      const picked = local.picked.includes(pid);
      return h("button", {
        type: "button", class: `avatar pick ${picked ? "picked" : ""}`, "data-pid": pid,
        "aria-pressed": picked ? "true" : "false",
        onclick: () => {
          if (local.busy) return;
          const i = local.picked.indexOf(pid);
          if (i >= 0) local.picked.splice(i, 1);
          else {
            local.picked.push(pid);
            if (local.picked.length > max) local.picked.shift();
          }
          onPick?.(pid);
          draw();
        },
      }, face({ id: pid, name: nameOf(pid) }, 52), h("span", { class: "pname" }, nameOf(pid)));
    }));
  }

  function donePrivate(step) {
    local.holding = null;
    local.picked = [];
    if (step.kind === "card" && !flow.seen.includes(step.pid)) flow.seen.push(step.pid);
    if (step.kind === "again") flow.again = null;
    if (step.kind === "secret") flow.round.done.push(step.pid);
    store.save();
    draw();
  }

  function cardScreen(step) {
    const v = viewOf(step.pid);
    update({ view: v });
    const can = v.me?.can || [];
    const others = players().filter((p) => p.id !== step.pid).map((p) => p.id);
    let choice = null;
    if (can.includes("bind")) choice = { type: "bind", max: 1, text: t("offline.choose_bind") };
    if (can.includes("intoxicate")) choice = { type: "intoxicate", max: 2, text: t("offline.choose_intoxicate") };
    const ready = !choice || local.picked.length === choice.max;
    // Impostore's "Non conosco la parola", asked alone with the phone: the table votes
    // on it once every card is seen (game/impostor: one-phone play).
    const ask = can.includes("ask_word") && step.kind !== "again" ? h("button", {
      class: "btn", id: "ask-word",
      onclick: async () => { if (confirm(t("imp.ask_confirm"))) await act(step.pid, { type: "ask_word" }); },
    }, t("imp.ask_word")) : (v.me?.asked ? h("p", { class: "hint", id: "asked-note" }, t("offline.asked")) : null);
    return h("section", { class: "card private", "data-private": step.kind },
      h("h2", {}, t("offline.card_of", { name: nameOf(step.pid) })),
      cardFor(v),
      h("p", { class: "hint" }, t("offline.card_hint")),
      choice ? [h("p", { class: "choice-text" }, choice.text), pickGrid(others, choice.max)] : null,
      ask,
      h("button", {
        class: "btn btn-primary btn-big", id: "private-done", disabled: !ready,
        onclick: async () => {
          if (choice) {
            const action = choice.type === "bind"
              ? { type: "bind", target: local.picked[0] } : { type: "intoxicate", targets: [...local.picked] };
            if (!(await act(step.pid, action))) return;
          }
          if (canOf(step.pid).includes("seen") && step.kind !== "again") {
            if (!(await act(step.pid, { type: "seen" }))) return;
          }
          donePrivate(step);
        },
      }, t("offline.hide_and_pass")));
  }

  /** The same screen for every living player: tap a name, then done. Only the one the
   *  rules call on (the Giudice, the seer, a wolf) acts; for the others the tap is a
   *  decoy, so neither the screen nor the time it takes tells anything. */
  function secretScreen(step) {
    const v = viewOf(step.pid);
    update({ view: v });
    const pub = snap.public;
    const can = v.me?.can || [];
    const action = ["judge", "peek", "bite"].find((a) => can.includes(a)) || null;
    const pack = v.me?.pack || [];
    const ids = pub.phase === "judge" ? [...(pub.candidates || [])]
      : living().filter((pid) => pid !== step.pid && !(action === "bite" && pack.includes(pid)));
    if (local.chosen && local.chosen.pid === step.pid) return secretAnswer(step, v);
    const picks = v.me?.pack_picks ? Object.entries(v.me.pack_picks).filter(([w]) => w !== step.pid) : [];
    return h("section", { class: "card private secret-round", "data-private": "secret" },
      h("h2", {}, t("offline.secret_title", { name: nameOf(step.pid) })),
      cardFor(v),
      h("p", { class: "hint" }, t("offline.secret_hint")),
      picks.length ? h("ul", { class: "known", id: "pack-picks" }, picks.map(([w, x]) => h("li", {},
        t("offline.pack_pick", { name: nameOf(w), target: nameOf(x) })))) : null,
      pickGrid(ids, 1),
      h("button", {
        class: "btn btn-primary btn-big", id: "private-done", disabled: local.picked.length !== 1,
        onclick: async () => {
          const target = local.picked[0];
          if (action === "judge") {
            // The Giudice's choice ends the phase: it is sent once the phone has gone
            // round, so the round does not stop right after the Giudice's turn.
            flow.round.pending = { player: step.pid, action: { type: action, target } };
            store.save();
          } else if (action) {
            if (!(await act(step.pid, { type: action, target }))) return;
          }
          // Every holder gets a second screen, the same for all: the seer reads the answer there.
          local.chosen = { pid: step.pid, target, action };
          draw();
        },
      }, t("offline.confirm")));
  }

  /** After the tap: the seer's answer, a wolf's pick, or for everyone else their tap
   *  noted; then the phone goes on. Two screens for every holder alike. */
  function secretAnswer(step, v) {
    const { target, action } = local.chosen;
    let text = t("offline.secret_noted", { name: nameOf(target) });
    if (action === "peek") {
      const seen = (v.me?.seen || []).find((x) => x.player === target && x.night === snap.public.day);
      if (seen) text = t(seen.wolf ? "offline.peek_wolf" : "offline.peek_human", { name: nameOf(target) });
    } else if (action === "bite") {
      text = t("offline.bite_chosen", { name: nameOf(target) });
    }
    return h("section", { class: "card private secret-round", "data-private": "secret-answer" },
      h("h2", {}, nameOf(step.pid)),
      h("p", { class: "callout", id: "secret-answer" }, text),
      h("button", {
        class: "btn btn-primary btn-big", id: "private-done",
        onclick: () => { local.chosen = null; donePrivate(step); },
      }, t("offline.done_and_pass")));
  }

  function actingScreen(step) {
    const v = viewOf(step.pid);
    update({ view: v });
    const can = v.me?.can || [];
    if (can.includes("guess")) {
      const input = h("input", { id: "guess-input", type: "text", maxlength: 60, autocomplete: "off", "aria-label": t("offline.guess_label") });
      return h("section", { class: "card private", "data-private": "guess" },
        h("h2", {}, t("offline.guess_title", { name: nameOf(step.pid) })),
        h("p", { class: "hint" }, t("offline.guess_hint")),
        input,
        h("button", {
          class: "btn btn-primary btn-big", id: "guess-send",
          onclick: async () => {
            if (!input.value.trim()) return;
            if (await act(step.pid, { type: "guess", word: input.value })) local.holding = null;
            draw();
          },
        }, t("offline.guess_send")));
    }
    const kind = ["avenge", "judge", "peek", "bite"].find((a) => can.includes(a));
    const ids = (v.candidates || []).length ? v.candidates : living().filter((pid) => pid !== step.pid);
    return h("section", { class: "card private", "data-private": kind },
      h("h2", {}, t(`offline.acting.${kind}`, { name: nameOf(step.pid) })),
      pickGrid(ids, 1),
      h("button", {
        class: "btn btn-primary btn-big", id: "private-done", disabled: local.picked.length !== 1,
        onclick: async () => {
          if (await act(step.pid, { type: kind, target: local.picked[0] })) local.holding = null;
          draw();
        },
      }, t("offline.confirm")));
  }

  // ---------------------------------------------------------------- the table's screens

  function lastNews(pub) {
    const list = pub.eliminations || pub.deaths || [];
    if (!list.length) return null;
    const e = list[list.length - 1];
    const key = `offline.out.${e.cause || "vote"}`;
    return h("p", { class: "news", id: "news" },
      t(key, { name: nameOf(e.player), role: e.role ? roleName(e.role, pub.preset) : t("offline.role_hidden") }));
  }

  function callOut(text) {
    if (text && text !== lastSaid) { lastSaid = text; say(text); }
    return h("p", { class: "callout", id: "callout" }, text);
  }

  function tableGrid(pub) {
    return h("div", { class: "grid table-grid" }, players().map((p) => h("div", {
      class: `pcard ${p.alive ? "" : "dead"} ${pub.turn === p.id ? "turn" : ""}`, "data-pid": p.id,
    }, h("span", { class: "avatar" }, face({ id: p.id, name: p.name }, 44), h("span", { class: "pname" }, p.name)))));
  }

  function voteScreen(pub, sender) {
    const two = TWO_PLACES.has(pub.phase);
    const candidates = pub.candidates || [];
    if (local.countdown === null) {
      return [
        callOut(t(two ? "offline.vote_two_call" : "offline.vote_call")),
        h("button", {
          class: "btn btn-primary btn-big", id: "countdown-start",
          onclick: () => countdown(),
        }, t("offline.countdown_start")),
      ];
    }
    if (local.countdown > 0) {
      return h("p", { class: "countdown", id: "countdown", "aria-live": "assertive" }, String(local.countdown));
    }
    const need = local.tie ? 2 : (two ? 2 : 1);
    const max = local.tie ? candidates.length : (two ? 2 : 1);
    const tally = () => {
      if (local.tie) return Object.fromEntries(local.picked.map((pid) => [pid, 1]));
      if (two) return { [local.picked[0]]: 2, [local.picked[1]]: 1 };
      return { [local.picked[0]]: 1 };
    };
    const send = () => act(sender, { type: "table_vote", tally: tally() });
    return [
      h("p", { class: "callout", id: "callout" },
        t(local.tie ? "offline.tap_tied" : (two ? "offline.tap_two" : "offline.tap_most"))),
      pickGrid(candidates, max, () => {
        // One tap on the most voted is the whole vote.
        if (!local.tie && !two && local.picked.length === 1) send();
      }),
      h("div", { class: "row" },
        h("button", {
          class: `btn ${local.tie ? "btn-primary" : ""}`, id: "tie-toggle", "aria-pressed": local.tie ? "true" : "false",
          onclick: () => { local.tie = !local.tie; local.picked = []; draw(); },
        }, t("offline.tie")),
        (local.tie || two) ? h("button", {
          class: "btn btn-primary", id: "vote-confirm", disabled: local.picked.length < need,
          onclick: send,
        }, t(local.tie ? "offline.tie_confirm" : "offline.confirm")) : null,
        h("button", { class: "btn btn-ghost", id: "countdown-again", onclick: () => countdown() }, t("offline.countdown_again"))),
    ];
  }

  function countdown() {
    local.picked = [];
    local.tie = false;
    local.countdown = 3;
    say("3");
    draw();
    const step = () => {
      local.countdown -= 1;
      if (local.countdown > 0) { say(String(local.countdown)); setTimeout(step, 800); } else say(t("offline.point"));
      draw();
    };
    setTimeout(step, 800);
  }

  /** The app as moderator (Lupi Mannari): the narration shown, and spoken once. */
  function narration(pub) {
    if (!pub.narration || pub.narration.by !== "app") return null;
    const lines = narrationText(pub);
    const text = lines.join(" ");
    if (pub.narration.speak && text && text !== lastSaid) { lastSaid = text; say(text); }
    return h("div", { class: "narration", id: "narration" }, lines.map((line) => h("p", { class: "say" }, line)));
  }

  /** "Non conosco la parola" voted aloud: the countdown, then one tap for the outcome. */
  function wordVoteScreen(sender) {
    if (local.countdown === null) {
      return [
        callOut(t("offline.word_vote_call")),
        h("button", { class: "btn btn-primary btn-big", id: "countdown-start", onclick: () => countdown() },
          t("offline.countdown_start")),
      ];
    }
    if (local.countdown > 0) {
      return h("p", { class: "countdown", id: "countdown", "aria-live": "assertive" }, String(local.countdown));
    }
    const choice = (change, id, label) => h("button", {
      class: `btn ${change ? "btn-primary" : ""}`, id,
      onclick: () => act(sender, { type: "table_word_vote", change }),
    }, label);
    return [
      h("p", { class: "callout", id: "callout" }, t("offline.word_vote_tap")),
      h("div", { class: "row" }, choice(true, "word-change", t("offline.word_change")), choice(false, "word-keep", t("offline.word_keep"))),
      h("button", { class: "btn btn-ghost", id: "countdown-again", onclick: () => countdown() }, t("offline.countdown_again")),
    ];
  }

  function orderList(pub) {
    const alive = new Set(living());
    return h("ol", { class: "order", id: "order", "aria-label": t("clue.order") },
      (pub.order || []).filter((pid) => alive.has(pid)).map((pid) => h("li", { "data-pid": pid }, nameOf(pid))));
  }

  function tableScreen() {
    const pub = snap.public;
    const seats = players().map((p) => p.id);
    const tableVoter = seats.find((pid) => canOf(pid).includes("table_vote"));
    const wordVoter = seats.find((pid) => canOf(pid).includes("table_word_vote"));
    const speaker = pub.turn && canOf(pub.turn).includes("done") ? pub.turn
      : (pub.turn && pub.phase === "defence" && canOf(pub.turn).includes("ready") ? pub.turn : null);
    const readyers = living().filter((pid) => canOf(pid).includes("ready"));
    const parts = [narration(pub)];
    if (pub.game === "impostor" && pub.word_request?.last && pub.phase === "clues" && pub.clue_round === 1
        && !(pub.turns_taken || []).some((x) => x.phase === pub.round)) {
      const last = pub.word_request.last;
      parts.push(h("p", { class: "news", id: "word-vote-result" }, t(last.changed ? "offline.word_changed" : "offline.word_kept")));
    }
    if (wordVoter) {
      parts.push(wordVoteScreen(wordVoter));
    } else if (tableVoter) {
      parts.push(voteScreen(pub, tableVoter));
    } else if (speaker) {
      parts.push(callOut(t(pub.phase === "defence" ? "offline.defence_call" : "offline.clue_call", { name: nameOf(speaker) })));
      parts.push(h("button", {
        class: "btn btn-primary btn-big", id: "turn-done",
        onclick: () => act(speaker, pub.phase === "defence" ? { type: "ready" } : { type: "done" }),
      }, t(pub.phase === "defence" ? "offline.defence_done" : "offline.clue_done")));
    } else if (readyers.length) {
      if (pub.phase === "clues" && pub.order) {
        // Free turns: the app says who starts, and the order; the table goes by itself.
        parts.push(callOut(t("offline.free_start", { name: nameOf(pub.order.find((pid) => living().includes(pid))) })));
        parts.push(orderList(pub));
      } else if (!pub.narration) {
        parts.push(callOut(t(`offline.talk.${pub.phase}`)));
      }
      parts.push(h("button", {
        class: "btn btn-primary btn-big", id: "to-vote",
        onclick: async () => {
          for (const pid of readyers) {
            if (canOf(pid).includes("ready") && !(await act(pid, { type: "ready" }))) return;
          }
        },
      }, t("offline.to_vote")));
    } else if (typeof snap.deadline === "number") {
      // Nothing to do but let the phase's time pass (a night falling ...).
      if (!pub.narration) parts.push(callOut(t(`offline.wait.${pub.phase}`)));
      parts.push(h("button", {
        class: "btn btn-primary btn-big", id: "go-on",
        onclick: () => { clock.jump(snap.deadline); tickTo(snap.deadline); },
      }, t("offline.go_on")));
    } else {
      parts.push(h("p", { class: "hint" }, t("offline.waiting")));
    }
    // While the table taps the most voted, the pick grid is the only grid (a second,
    // inert one under it looked the same and answered nothing).
    const picking = Boolean(tableVoter && !wordVoter && local.countdown === 0);
    const left = typeof snap.deadline === "number" ? Math.max(0, Math.ceil(snap.deadline - clock.now())) : null;
    return h("section", { class: "card table", "data-phase": pub.phase },
      h("div", { class: "phase-row" },
        h("span", { class: "phase-name", "data-phase": pub.phase }, t(`offline.phase.${pub.phase}`)),
        left !== null ? h("span", { class: "clock", id: "clock" }, t("offline.seconds_left", { s: left })) : null),
      lastNews(pub),
      parts,
      picking ? null : tableGrid(pub),
      h("button", {
        class: "btn btn-ghost", id: "see-again",
        onclick: () => { local.again = { pid: null }; local.picked = []; draw(); },
      }, t("offline.see_again")));
  }

  /** "See NAME's card again?": choose the name, confirm, then the phone is passed. */
  function againScreen() {
    if (!local.again.pid) {
      return h("section", { class: "card again", id: "again" },
        h("h2", {}, t("offline.see_again_who")),
        pickGrid(players().map((p) => p.id), 1, (pid) => { local.again.pid = pid; }),
        h("button", { class: "btn btn-ghost", id: "again-cancel", onclick: () => { local.again = null; draw(); } }, t("app.cancel")));
    }
    const name = nameOf(local.again.pid);
    return h("section", { class: "card again", id: "again" },
      h("h2", {}, t("offline.see_again_confirm", { name })),
      h("div", { class: "row" },
        h("button", {
          class: "btn btn-primary", id: "again-yes",
          onclick: () => { flow.again = local.again.pid; local.again = null; local.picked = []; store.save(); draw(); },
        }, t("offline.yes")),
        h("button", { class: "btn btn-ghost", id: "again-no", onclick: () => { local.again = null; local.picked = []; draw(); } }, t("offline.no"))));
  }

  // ---------------------------------------------------------------- drawing

  function draw() {
    // Names come from the page's state (names.js): the first screen (a pass) comes before
    // any table screen, also after a reload, so the view is set here, for every screen.
    update({ view: snap.public });
    if (snap.public.phase === "over") {
      clock.run(false);
      onOver(snap.result);
      return;
    }
    const step = privateStep();
    const pub = snap.public;
    if (!step && SECRET_PHASES.has(pub.phase) && flow.round?.pending && !local.busy) {
      const { player, action } = flow.round.pending;
      flow.round.pending = null;
      act(player, action);
    } else if (!step && TIMED_SECRET.has(pub.phase) && typeof snap.deadline === "number" && !local.busy) {
      // The phone went round: the rest of the phase's time passes now.
      const d = snap.deadline;
      clock.jump(d);
      tickTo(d);
    }
    let body;
    if (!step) {
      local.holding = null;
      clock.run(!local.again);
      body = local.again ? againScreen() : tableScreen();
    } else {
      clock.run(false);
      if (local.holding !== step.pid) body = passScreen(step);
      else if (step.kind === "card" || step.kind === "again") body = cardScreen(step);
      else if (step.kind === "secret") body = secretScreen(step);
      else body = actingScreen(step);
    }
    el.replaceChildren(body);
  }

  // Time passes on the table: the clock shown, and each deadline handed to the core.
  let persistAt = 0;
  const timer = setInterval(() => {
    if (!clock.running() || local.busy) return;
    const now = clock.now();
    if (typeof snap.deadline === "number" && now >= snap.deadline) tickTo(now);
    const c = el.querySelector("#clock");
    if (c && typeof snap.deadline === "number") {
      c.textContent = t("offline.seconds_left", { s: Math.max(0, Math.ceil(snap.deadline - now)) });
    }
    if (now - persistAt > 2) { persistAt = now; clock.persist(); }
  }, 250);

  draw();
  return {
    unmount() { clearInterval(timer); clock.run(false); },
    redraw: draw,
    snapshot: () => snap,
  };
}
