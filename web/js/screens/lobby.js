// The lobby: the room's code, link and QR, who is in, the host's settings, the mic, start.

import { face } from "../avatar.js";
import { h, region } from "../dom.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { micCard, micChoicePending } from "../miccard.js";
import * as session from "../session.js";
import { linkBase, loadLinks, roomLinks } from "../links.js";
import { isHost, state } from "../state.js";
import { volumeChanged, volumeControl } from "../volumes.js";
import { leaveButton, settingsForm } from "./controls.js";

// The folded rules stay open across redraws once opened (remembered at the click itself).
let rulesOpen = false;
// Which players' volume rows are open (issue 37 item 5): folded by default, fifteen rows
// of sliders would push everything else a screen or two down; a voice this player changed
// (lowered, muted) shows its row until folded. Kept across redraws: pid -> open.
const volsOpen = new Map();
const volOpen = (pid) => (volsOpen.has(pid) ? volsOpen.get(pid) : volumeChanged(pid));

/** Show each row's volume as `volOpen` says, and the buttons that open them. */
function showVolumes(list) {
  const all = list.querySelectorAll(".vol-open");
  for (const btn of all) {
    const open = volOpen(btn.dataset.pid);
    btn.setAttribute("aria-expanded", String(open));
    const row = list.querySelector(`.vol[data-pid="${CSS.escape(btn.dataset.pid)}"]`);
    if (row) row.hidden = !open;
  }
  const every = all.length > 0 && [...all].every((btn) => volOpen(btn.dataset.pid));
  list.closest(".players")?.querySelector("#vol-all")?.setAttribute("aria-expanded", String(every));
}

/** A player's row: the button that opens their volume, and the volume itself (folded). */
function foldedVolume(p) {
  const control = volumeControl(p);
  if (!control) return [];
  const open = volOpen(p.id);
  control.id = `vol-${p.id}`;
  control.hidden = !open;
  const btn = h("button", {
    type: "button", class: "iconbtn vol-open", "data-pid": p.id,
    "aria-expanded": String(open), "aria-controls": control.id,
    "aria-label": t("volume.show", { name: p.name || "?" }),
    onclick: () => {
      volsOpen.set(p.id, !volOpen(p.id));
      showVolumes(btn.closest(".player-list"));
    },
  }, icon("volume", 18));
  return [btn, control];
}

/** "Volumi (15)": every other player's volume opened, or folded again, at once. */
function allVolumes(others) {
  if (!others.length) return null;
  const every = others.every((p) => volOpen(p.id));
  const btn = h("button", {
    type: "button", class: "btn btn-ghost vol-all", id: "vol-all", "aria-expanded": String(every),
    onclick: () => {
      const open = btn.getAttribute("aria-expanded") !== "true";
      for (const p of others) volsOpen.set(p.id, open);
      showVolumes(btn.closest(".players").querySelector(".player-list"));
    },
  }, icon("volume", 18), " ", t("volume.all", { n: others.length }));
  return btn;
}

/**
 * Every spectator pass of the room, watched or not: the host removes one that is not the
 * room's own screen (anyone with the code may take a pass; an unwatched one also expires).
 */
function passList(passes) {
  if (!passes?.length) return null;
  return h("div", { class: "passes", id: "tv-passes" },
    h("h3", {}, t("tv.passes")),
    h("ul", { class: "pass-list" }, passes.map((p) => h("li", { class: "pass-row", "data-sid": p.id },
      h("span", {
        class: `dot ${p.online ? "dot-on" : "dot-off"}`, role: "img",
        "aria-label": p.online ? t("tv.pass_online") : t("tv.pass_offline"),
      }),
      h("span", { class: "pname" }, t("tv.pass_name", { id: p.id }), " ",
        h("span", { class: "hint" }, p.online ? t("tv.pass_online") : t("tv.pass_offline"))),
      h("button", {
        class: "btn btn-ghost pass-remove", "data-sid": p.id,
        "aria-label": t("tv.pass_remove_label", { id: p.id }),
        onclick: () => session.send({ type: "kick", player: p.id }),
      }, t("tv.pass_remove"))))));
}

export function mountLobby(root) {
  const head = h("section", { class: "card room-code" });
  const tv = h("section", { class: "card tv-link-card" });
  const players = h("section", { class: "card players", "aria-label": t("lobby.players") });
  // The mic's choice (voice or text) is a newcomer's first step (issue 37 item 5): right
  // under the room's code until it is made, then out of the way after the rest.
  const micFirst = h("div", { class: "mic-first" });
  const mic = h("div");
  const settings = h("section", { class: "card settings", "aria-label": t("lobby.settings") });
  const start = h("div", { class: "start-bar" });
  const leave = h("div", { class: "leave-bar" });
  // The essentials first (issue 31): who is in, the game, start; the rest below. The start
  // bar stays at the foot of the screen (sticky) however many players the list holds.
  root.append(h("div", { class: "screen lobby" }, head, micFirst, players, settings, start, leave, mic, tv));

  function draw() {
    const room = state.room || {};
    const code = state.code;
    const link = `${linkBase()}/r/${code}`;
    // No network: words instead of a link and a QR code no phone can open.
    const alone = roomLinks()?.reachable === false;
    region(head, [code, link, alone, t("lobby.code")], () => [
      h("div", { class: "code-block" },
        h("span", { class: "label" }, t("lobby.code")),
        h("strong", { class: "code", id: "room-code" }, code),
        alone ? h("p", { class: "warn", id: "no-lan", role: "alert" }, t("reach.no_lan")) : h("div", { class: "link-row" },
          h("span", { class: "link", id: "room-link" }, link),
          h("button", {
            class: "iconbtn", "aria-label": t("lobby.copy"),
            onclick: async () => {
              try { await navigator.clipboard.writeText(link); } catch { /* not allowed: link stays visible */ }
            },
          }, icon("copy", 18)))),
      alone ? null : h("img", {
        class: "qr", src: `/api/rooms/${encodeURIComponent(code)}/qr.svg`, width: 132, height: 132,
        alt: t("lobby.qr_alt", { code }),
      }),
    ]);

    const host = room.host;
    const me = state.player;
    const amHost = isHost();
    // The shared screen (issue 13): the host puts it on a TV or a laptop for the room.
    const tvLink = `${link}/tv`;
    tv.hidden = !amHost;
    region(tv, [amHost, tvLink, room.spectators, room.passes, t("tv.screen")], () => (amHost ? [
      h("h2", {}, t("tv.screen")),
      h("p", { class: "hint" }, t("tv.screen_hint")),
      h("div", { class: "link-row" },
        h("a", { class: "link", id: "tv-link", href: tvLink, target: "_blank", rel: "noopener" }, tvLink)),
      room.spectators ? h("p", { class: "hint", id: "tv-watching" }, t("tv.watching", { n: room.spectators })) : null,
      passList(room.passes),
      h("img", {
        class: "qr", id: "tv-qr", src: `/api/rooms/${encodeURIComponent(code)}/tv-qr.svg`, width: 132, height: 132,
        alt: t("tv.screen_qr", { code }),
      }),
    ] : []));
    const others = (room.players || []).filter((p) => p.id !== me);
    region(players, [room.players, room.banned, host, me, amHost, t("lobby.players")], () => [
      h("div", { class: "players-head" },
        h("h2", {}, t("lobby.players"), " ", h("span", { class: "count" }, `(${(room.players || []).length})`)),
        allVolumes(others)),
      h("ul", { class: "player-list" }, (room.players || []).map((p) => h("li", {
        class: `player-row ${p.online === false ? "offline" : ""}`, "data-pid": p.id,
      },
      h("span", { class: "avatar" }, face(p, 40)),
      h("span", { class: "pname" }, p.name, p.id === me ? h("span", { class: "you" }, ` (${t("lobby.you")})`) : null),
      h("span", {
        class: `dot ${p.online === false ? "dot-off" : "dot-on"}`, role: "img",
        "aria-label": p.online === false ? t("lobby.offline") : t("lobby.online"),
      }),
      p.id === host ? h("span", { class: "crown", role: "img", "aria-label": t("lobby.host") }, icon("crown", 18)) : null,
      amHost && p.id !== me ? h("span", { class: "row-actions" },
        h("button", {
          class: "iconbtn", "aria-label": t("lobby.pass_host", { name: p.name }),
          onclick: () => { if (confirm(t("lobby.pass_host_confirm", { name: p.name }))) session.send({ type: "pass_host", player: p.id }); },
        }, icon("pass", 18)),
        h("button", {
          class: "iconbtn danger", "aria-label": t("lobby.kick", { name: p.name }),
          onclick: () => { if (confirm(t("lobby.kick_confirm", { name: p.name }))) session.send({ type: "kick", player: p.id }); },
        }, icon("close", 18))) : null,
      foldedVolume(p)))),
      // Kicked names stay out of the room until the host lets them back in.
      amHost && room.banned?.length ? h("div", { class: "banned", id: "banned" },
        h("h3", {}, t("lobby.banned_title")),
        h("ul", { class: "banned-list" }, room.banned.map((name) => h("li", { class: "banned-row" },
          h("span", { class: "pname" }, name),
          h("button", {
            class: "btn btn-ghost unban-btn", "data-name": name,
            onclick: () => session.send({ type: "unban", name }),
          }, t("lobby.unban")))))) : null,
    ]);

    const first = micChoicePending();
    micFirst.hidden = !first;
    mic.hidden = first;
    region(micFirst, [first, state.mic, state.voice, t("mic.title")], () => (first ? micCard() : []));
    region(mic, [first, state.mic, state.voice, t("mic.title")], () => (first ? [] : micCard()));

    const s = room.settings || {};
    region(settings, [s, amHost, t("lobby.settings")], () => {
      // The game chooser stays in sight; its detailed rules are folded (opened on demand).
      // The voice switches (the room's seats, one's own mono) stay unfolded: mono is a
      // personal choice a player must find without opening the rules.
      const [chooser, rules, voice] = settingsForm(amHost);
      const details = h("details", { class: "lobby-rules", id: "lobby-rules", open: rulesOpen },
        h("summary", { onclick: () => { rulesOpen = !details.open; } }, t("lobby.rules_details")),
        rules);
      // No heading for the host: the chooser's own label says it (the section is named).
      return [
        amHost ? null : h("h2", {}, t("lobby.settings")),
        amHost ? null : h("p", { class: "hint" }, t("lobby.host_only")),
        chooser,
        details,
        voice,
      ];
    });

    const n = (room.players || []).length;
    region(start, [amHost, n, t("lobby.start")], () => [
      amHost
        ? [h("button", {
          class: "btn btn-primary btn-big", id: "start-btn",
          onclick: () => session.send({ type: "start" }),
        }, t("lobby.start")), n < 3 ? h("p", { class: "hint" }, t("lobby.need_three")) : null]
        : h("p", { class: "hint waiting" }, t("lobby.waiting_host")),
    ]);
    region(leave, [t("lobby.start")], () => leaveButton());
  }

  draw();
  loadLinks(draw);
  return {
    update(keys) {
      // A refused setting leaves the room unchanged: redraw to drop the rejected value.
      if (keys.has("lastError")) settings.dataset.key = "";
      if (["room", "mic", "voice", "player", "lastError"].some((k) => keys.has(k))) draw();
    },
    unmount() {},
  };
}
