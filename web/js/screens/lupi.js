// Lupi Mannari's game screen: status and timer, the narration (shown, and spoken by the
// app in the room's language), my covered card, what I can do now, the village, the ghosts.
// At night the whole screen darkens alike for every role; only what a card allows differs.

import { face } from "../avatar.js";
import { heldCard } from "../card.js";
import { h, region } from "../dom.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { micCard } from "../miccard.js";
import { lineText, hush, speak } from "../narrator.js";
import { nameOf, roleName } from "../names.js";
import { ring } from "../ring.js";
import * as session from "../session.js";
import { state } from "../state.js";
import { lupiEnd } from "./lupi_end.js";
import { NIGHT, ballotProgress, lupiPanel, roleCardFace } from "./lupi_panel.js";
import { monoSwitch, volumeControl } from "../volumes.js";

/** What tapping a player does now: pick for the seer, bite, name someone. */
function tapMode(v) {
  const can = v.me?.can || [];
  if (can.includes("peek")) return "peek";
  if (can.includes("bite")) return "bite";
  if (v.phase === "nomination" && can.includes("vote")) return "vote";
  return null;
}

function eligible(v, mode, p) {
  if (!mode || p.id === v.me?.id || !p.alive) return false;
  if (mode === "bite") return !(v.me.pack || []).includes(p.id);
  return true;
}

function roleCard(v) {
  if (v.me?.moderator) return null;
  return heldCard(roleCardFace(v));
}

export function mountLupi(root) {
  const local = { picked: null, key: "" };
  const timer = ring();
  const status = h("div", { class: "status-text" });
  const head = h("section", { class: "status card" }, status, timer.el);
  const narration = h("section", { class: "card narration", id: "narration", "aria-live": "polite" });
  const cardEl = h("div", { class: "secret-wrap" });
  const panel = h("section", { class: "card panel lupi-panel", id: "lupi-panel", "aria-live": "polite" });
  const grid = h("section", { class: "grid-wrap", "aria-label": t("game.players") });
  const ghosts = h("section", { class: "card deaths", id: "deaths" });
  const mic = h("div");
  const play = h("div", { class: "screen game lupi" }, head, narration, cardEl, panel, grid, ghosts, mic);
  const end = h("div", { class: "screen end lupi-end" });
  root.append(play, end);

  function tap(pid) {
    const v = state.view;
    const mode = tapMode(v);
    const p = v.players.find((x) => x.id === pid);
    if (!p || !eligible(v, mode, p)) return;
    if (mode === "peek") {
      local.picked = local.picked === pid ? null : pid;   // a look is final: confirm below
      draw();
    } else {
      session.act({ type: mode, target: pid });
    }
  }

  function statusText(v) {
    const night = NIGHT.includes(v.phase);
    let line = "";
    if (v.phase === "nomination" || v.phase === "lynch") line = t("lupi.vote.progress", ballotProgress(v));
    else if (v.phase === "defence") line = t("lupi.defence.other", { name: nameOf(v.defender) });
    return [h("div", { class: "phase-row" },
      h("span", { class: "phase-name", "data-phase": v.phase }, t(`lupi.phase.${v.phase}`)),
      h("span", { class: "round" }, t(night ? "lupi.night_n" : "lupi.day_n", { n: v.day }))),
    line ? h("p", { class: "status-line", id: "status-line" }, line) : null];
  }

  function narrationCard(v) {
    const n = v.narration || {};
    const lines = (n.lines || []).map((line) => h("p", { class: "say", "data-key": line.key }, lineText(line)));
    const who = n.by === "moderator" && v.moderator
      ? (v.me?.moderator ? t("lupi.narration.read") : t("lupi.narration.by", { name: v.moderator.name }))
      : t("lupi.narration");
    return [h("h2", { class: "label" }, icon(n.by === "app" && n.speak ? "ear" : "eye", 16), " ", who), lines];
  }

  function badges(v, p) {
    const me = v.me || {};
    const out = [];
    if (p.id === me.id) out.push(h("span", { class: "badge badge-me" }, t("lobby.you")));
    if (!p.alive) out.push(h("span", { class: "badge badge-dead" }, t("lupi.badge.ghost")));
    const role = v.secrets?.roles?.[p.id];
    if (role) out.push(h("span", { class: `badge badge-role role-${role}` }, roleName(role, v.preset)));
    if ((me.pack || []).includes(p.id) && p.id !== me.id) {
      out.push(h("span", { class: "badge badge-pack" }, t("lupi.badge.pack")));
    }
    const seen = (me.seen || []).filter((s) => s.player === p.id).at(-1);
    if (seen) {
      out.push(h("span", { class: `badge ${seen.wolf ? "badge-wolf" : "badge-human"}` },
        t(seen.wolf ? "lupi.badge.seen_wolf" : "lupi.badge.seen_human")));
    }
    const picks = me.pack_picks || v.secrets?.bites;
    if (v.phase === "wolves" && picks) {
      const n = Object.values(picks).filter((x) => x === p.id).length;
      if (n) out.push(h("span", { class: "badge badge-picks" }, t("lupi.badge.picks", { n })));
    }
    if (v.phase === "day" && p.ready) out.push(h("span", { class: "badge badge-ready" }, icon("check", 12), t("lupi.badge.ready")));
    if ((v.phase === "nomination" || v.phase === "lynch") && p.voted) {
      out.push(h("span", { class: "badge badge-voted" }, icon("check", 12), t("lupi.badge.voted")));
    }
    if ((v.nominees || []).includes(p.id)) {
      out.push(h("span", { class: "badge badge-nominee" },
        v.defender === p.id ? t("lupi.badge.defends") : t("lupi.badge.nominee")));
    }
    const count = v.vote_counts?.[p.id];
    if (typeof count === "number" && count > 0) {
      out.push(h("span", { class: "badge badge-count" }, t("lupi.badge.votes", { n: count })));
    }
    return out;
  }

  function playerCard(v, p, mode) {
    const roomP = state.room?.players?.find((x) => x.id === p.id) || {};
    const me = v.me || {};
    const can = eligible(v, mode, p);
    const chosen = local.picked === p.id || (mode === "bite" && me.bite === p.id)
      || (mode === "vote" && me.vote === p.id);
    const classes = ["pcard", p.alive ? "" : "dead", can ? "pickable" : "", chosen ? "picked" : "",
      p.id === me.id ? "me" : "", v.defender === p.id ? "turn" : "",
      (me.pack || []).includes(p.id) ? "pack" : "", roomP.online === false ? "offline" : ""];
    const label = [p.name];
    if (p.id === me.id) label.push(t("lobby.you"));
    if (!p.alive) label.push(t("lupi.badge.ghost"));
    const btn = h("button", {
      // Named by its own text (an aria-label would hide the badges one sees).
      type: "button", class: "avatar", "data-pid": p.id,
      "aria-pressed": chosen ? "true" : "false", onclick: () => tap(p.id),
    }, face({ ...roomP, ...p, color: roomP.color }, 60), h("span", { class: "pname" }, p.name),
    h("span", { class: "sr-only" }, label.slice(1).map((x) => `, ${x}`).join("")),
    h("span", { class: "badges" }, badges(v, p)));
    return h("div", { class: classes.filter(Boolean).join(" "), "data-pid": p.id }, btn, volumeControl(p));
  }

  function deathsCard(v) {
    const list = v.deaths || [];
    return [h("h2", {}, t("lupi.deaths")),
      list.length ? h("ul", { class: "death-list" }, list.map((d) => h("li", { "data-pid": d.player, "data-cause": d.cause },
        t(`lupi.death.${d.cause}`, { n: d.day, name: nameOf(d.player) }))))
        : h("p", { class: "hint" }, t("lupi.deaths.none"))];
  }

  function draw() {
    const v = state.view;
    if (!v) return;
    const key = `${v.day}:${v.phase}:${v.defender}`;
    if (key !== local.key) { local.key = key; local.picked = null; }
    const spoken = speak(v);
    if (spoken) Object.assign(narration.dataset, { spokenLang: spoken.lang, spoken: String(spoken.spoken) });
    if (v.phase === "over") {
      play.hidden = true;
      end.hidden = false;
      region(end, [v.result, state.room?.host, state.player, state.room?.players, state.room?.evening,
        state.room?.settings], () => lupiEnd(v));
      return;
    }
    play.hidden = false;
    end.hidden = true;
    play.classList.toggle("is-night", NIGHT.includes(v.phase));
    const mode = tapMode(v);
    region(status, [v.phase, v.day, v.defender, v.players.map((p) => p.voted)], () => statusText(v));
    timer.tick();
    region(narration, [v.narration, v.moderator, v.me?.moderator, v.players.map((p) => p.name)], () => narrationCard(v));
    region(cardEl, [v.me, v.preset], () => roleCard(v));
    region(panel, [v.phase, v.day, v.me, v.secrets, v.candidates, v.nominees, v.defender, v.players, local.picked],
      () => lupiPanel(v, local, draw));
    region(grid, [v.phase, v.players, v.me, v.secrets, v.nominees, v.defender, v.vote_counts, local.picked,
      state.room?.players, state.room?.settings?.voice], () => [
      h("h2", { class: "sr-only" }, t("game.players")),
      h("div", { class: "grid" }, v.players.map((p) => playerCard(v, p, mode))), monoSwitch()]);
    region(ghosts, [v.deaths, v.players.map((p) => p.name)], () => deathsCard(v));
    region(mic, [state.mic, state.voice], () => (state.mic === "on" && state.voice === "on") ? null : micCard());
  }

  draw();
  return {
    update(keys) {
      if (keys.has("view") || keys.has("room") || keys.has("mic") || keys.has("voice")) draw();
    },
    unmount() {
      timer.stop();
      hush();
    },
  };
}
