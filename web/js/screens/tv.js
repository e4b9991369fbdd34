// The shared screen (issue 13): a TV or laptop for the room, read from across it. It holds
// a spectator pass, so it draws the spectator view (public information only, `me` null)
// of any engine: the table with avatars and mouths, the phase and its ring, the clue
// board, public votes and tallies, eliminations, the end with the words, the podium.
// It hears the room's public voice; its speaker mutes on the spot.

import { face } from "../avatar.js";
import { h, region } from "../dom.js";
import { has, t } from "../i18n.js";
import { icon } from "../icons.js";
import { linkBase, loadLinks, roomLinks } from "../links.js";
import { nameOf, roleName } from "../names.js";
import { narrationText } from "../narrator.js";
import { ring } from "../ring.js";
import * as session from "../session.js";
import { state } from "../state.js";
import { eveningPanel } from "./podium.js";

// Each engine's phase names live under its own i18n prefix.
const PHASE_PREFIX = { undercover: "phase", impostor: "imp.phase", werewolf: "lupi.phase" };

function phaseLabel(view) {
  const key = `${PHASE_PREFIX[view.game] || "phase"}.${view.phase}`;
  return has(key) ? t(key) : view.phase;
}

/** Who is out, whatever the engine calls it (eliminations, or the werewolf's deaths). */
function outPlayers(view) {
  return new Set([...(view.eliminations || []), ...(view.deaths || [])].map((e) => e.player));
}

/** The clues of the last rounds (two at a full table, three else), each player's on their
 *  own seat: the board of a 16-seat table then fits the screen (issue 31, item 13). */
function cluesBy(clues, crowd) {
  const keep = crowd ? 2 : 3;
  const rounds = [...new Set((clues || []).map((c) => c.round))].sort((a, b) => a - b).slice(-keep);
  const by = new Map();
  for (const c of clues || []) {
    if (!rounds.includes(c.round)) continue;
    if (!by.has(c.player)) by.set(c.player, []);
    by.get(c.player).push(c);
  }
  return by;
}

function seatClues(list, view) {
  if (!list || !list.length) return null;
  return h("ol", { class: "tv-clues" }, list.map((c) => h("li", {
    class: `tv-clue ${c.skipped ? "skipped" : ""} ${c.round === view.round ? "now" : ""}`, "data-round": c.round,
  },
  h("span", { class: "tv-clue-round", title: t("game.round", { n: c.round }) }, String(c.round)),
  h("span", { class: "clue-text" }, c.skipped ? t("board.skipped") : c.text))));
}

function seat(p, view, out, clues) {
  const counts = view.vote_counts || {};
  const n = counts[p.id];
  const dead = p.alive === false || out.has(p.id);
  const classes = ["tv-seat", "avatar", dead ? "out" : "", view.turn === p.id ? "turn" : "",
    (view.nominees || []).includes(p.id) ? "nominee" : ""].filter(Boolean).join(" ");
  const badges = [
    dead ? h("span", { class: "tv-badge tv-out" }, t("tv.out")) : null,
    p.revealed_role ? h("span", { class: "tv-badge" }, roleName(p.revealed_role, view.preset)) : null,
    p.voted ? h("span", { class: "tv-badge tv-voted", "aria-label": t("tv.voted") }, "✓") : null,
    // Only who got votes: sixteen "0 votes" would hide the ones that matter.
    n > 0 ? h("span", { class: "tv-badge tv-votes", "data-votes": n }, t("tv.votes", { n })) : null,
  ].filter(Boolean);
  return h("li", { class: classes, "data-pid": p.id },
    face({ ...(state.room?.players?.find((r) => r.id === p.id) || {}), ...p }, 132),
    h("span", { class: "tv-name" }, p.name || nameOf(p.id)),
    badges.length ? h("span", { class: "tv-badges" }, badges) : null,
    clues ? seatClues(clues.get(p.id), view) : null);
}

/** A full table (more than 8 seats) gets smaller seats, so all 16 fit the screen. */
function tableClass(players) {
  return (players || []).length > 8 ? "tv-table tv-crowd" : "tv-table";
}

function lobbyPanel(code) {
  const room = state.room || {};
  // The address phones can open (GET /api/links), not this screen's own (maybe localhost).
  const link = `${linkBase()}/r/${code}`;
  const alone = roomLinks()?.reachable === false;
  return h("section", { class: "tv-lobby" },
    h("div", { class: "tv-join" },
      h("p", { class: "tv-big" }, t("tv.join")),
      h("strong", { class: "tv-code", id: "tv-code" }, code),
      alone ? h("p", { class: "warn", id: "no-lan" }, t("reach.no_lan")) : h("p", { class: "tv-link", id: "tv-join-link" }, link),
      alone ? null : h("img", { class: "tv-qr", src: `/api/rooms/${encodeURIComponent(code)}/qr.svg`, width: 300, height: 300, alt: t("lobby.qr_alt", { code }) })),
    h("ul", { class: tableClass(room.players), id: "tv-table" }, (room.players || []).map((p) => h("li", {
      class: `tv-seat avatar ${p.online === false ? "offline" : ""}`, "data-pid": p.id,
    }, face(p, 132), h("span", { class: "tv-name" }, p.name)))),
    room.phase === "over" ? eveningPanel() : null);
}

/** The two words of an undercover game, the impostor's one word, or nothing (werewolf). */
function endWords(view) {
  const r = view.result || {};
  if (r.words && !Array.isArray(r.words)) {
    const w = r.words;
    return [["civile", w.civili ?? w.civile], ["intruso", w.intrusi ?? w.intruso]]
      .map(([role, word]) => h("div", { class: "tv-word" },
        h("span", { class: "label" }, roleName(role, view.preset)), h("strong", {}, word ?? "—")));
  }
  if (r.word) return [h("div", { class: "tv-word" }, h("span", { class: "label" }, t("tv.word")), h("strong", {}, r.word))];
  return [];
}

function endPanel(view) {
  const r = view.result || {};
  const winners = new Set(r.winners || []);
  const rows = Array.isArray(r.players) ? r.players : [];
  const points = r.points || {};
  // Each player's role, word and this game's points on one line, in columns: 16 of them
  // and the evening's podium fit the screen (issue 31, item 13).
  const title = t("tv.winners", { names: [...winners].map(nameOf).join(", ") || t("end.nobody") });
  return h("section", { class: "tv-end", id: "tv-end" },
    h("h1", { class: `tv-title ${winners.size > 3 ? "long" : ""}` }, title),
    h("div", { class: "tv-end-body" },
      h("ul", { class: "tv-roles", id: "tv-roles" }, rows.map((p) => h("li", {
        class: winners.has(p.id) ? "winner" : "", "data-pid": p.id,
        ...(typeof points[p.id] === "number" ? { "data-points": points[p.id] } : {}),
      },
      h("span", { class: "avatar" }, face({ id: p.id, name: nameOf(p.id), ...(state.room?.players?.find((x) => x.id === p.id) || {}) }, 56)),
      h("span", { class: "tv-role-text" }, h("strong", {}, nameOf(p.id)),
        h("span", {}, roleName(p.role, view.preset), p.word ? ` · ${p.word}` : ""),
        typeof points[p.id] === "number" ? h("span", { class: "tv-points" }, ` · ${t("evening.points", { n: points[p.id] })}`) : null)))),
      h("div", { class: "tv-end-side" },
        h("div", { class: "tv-words", id: "tv-words" }, endWords(view)),
        eveningPanel())));
}

function gamePanel(view) {
  const out = outPlayers(view);
  const turn = view.turn ? t("tv.turn", { name: nameOf(view.turn) }) : null;
  const narration = narrationText(view);  // the werewolf's moderator lines, if any
  // The clue board is drawn on the seats: each player's clues under their face.
  const n = (view.players || []).length;
  const clues = view.clues ? cluesBy(view.clues, n > 8) : null;
  return h("section", { class: "tv-main" },
    turn || narration.length ? h("p", { class: "tv-now", id: "tv-now" }, turn || narration.join(" ")) : null,
    view.clues && !view.clues.length ? h("p", { class: "tv-hint", id: "tv-board" }, t("board.empty")) : null,
    // With clues, the seats stand in two rows: each seat's column is as wide as it can be.
    h("ul", { class: `${tableClass(view.players)}${clues ? " tv-with-clues" : ""}`, id: "tv-table",
      ...(clues ? { "data-cols": Math.min(8, Math.max(3, Math.ceil(n / 2))) } : {}) },
      (view.players || []).map((p) => seat(p, view, out, clues))));
}

export function mountTv(root) {
  document.body.classList.add("tv-mode");
  const head = h("header", { class: "tv-head" });
  const timer = ring();
  const body = h("div", { class: "tv-body" });
  root.append(h("div", { class: "screen tv", id: "tv" }, head, body));

  function draw() {
    const code = state.code || "";
    const view = state.view;
    const playing = state.room?.phase === "playing" || (view && view.phase && state.room?.phase !== "lobby");
    region(head, [code, view?.phase, view?.round, view?.game, state.speakerMuted, state.audioBlocked, state.voice, t("tv.mute")], () => [
      h("span", { class: "tv-brand" }, "Sussurro"),
      h("strong", { class: "tv-room" }, code),
      playing && view ? h("span", { class: "tv-phase", id: "tv-phase", "data-phase": view.phase }, phaseLabel(view),
        view.round ? ` · ${t("game.round", { n: view.round })}` : "") : h("span", { class: "tv-phase", id: "tv-phase" }, t("tv.lobby")),
      h("span", { class: "spacer" }),
      timer.el,
      state.audioBlocked ? h("button", { class: "btn btn-primary", id: "tv-unblock", onclick: () => session.unblockAudio() }, t("tv.sound_on")) : null,
      h("button", {
        class: `btn tv-mute ${state.speakerMuted ? "is-off" : ""}`, id: "tv-mute",
        "aria-pressed": state.speakerMuted ? "true" : "false",
        onclick: () => session.setSpeakerMuted(!state.speakerMuted),
      }, icon(state.speakerMuted ? "micOff" : "mic", 28), " ", state.speakerMuted ? t("tv.unmute") : t("tv.mute")),
    ]);
    region(body, [JSON.stringify(view), JSON.stringify(state.room), JSON.stringify(roomLinks()), t("tv.join")], () => {
      if (!playing || !view) return lobbyPanel(code);
      if (view.phase === "over") return endPanel(view);
      return gamePanel(view);
    });
    timer.tick();
  }

  draw();
  loadLinks(draw);
  return {
    update(keys) {
      if (["room", "view", "speakerMuted", "audioBlocked", "voice", "code"].some((k) => keys.has(k))) draw();
    },
    unmount() {
      timer.stop();
      document.body.classList.remove("tv-mode");
    },
  };
}
