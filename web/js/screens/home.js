// First screen: my name and colour, then create a room or join one by code or link.

import { COLORS, face } from "../avatar.js";
import { h } from "../dom.js";
import { errorText } from "../errors.js";
import { getLang, initialLang, setLang, t } from "../i18n.js";
import { PRESETS, presetOptions } from "../options.js";
import { insecureNotice, micApiAvailable } from "../secure.js";
import * as session from "../session.js";
import { state } from "../state.js";
import * as storage from "../storage.js";

export function mountHome(root) {
  const saved = storage.profile.get();
  const prof = { name: saved.name || "", color: saved.color || COLORS[Math.floor(Math.random() * COLORS.length)] };
  const linkMatch = location.pathname.match(/^\/r\/([A-Za-z0-9]+)/);
  const linkCode = linkMatch ? linkMatch[1].toUpperCase() : "";

  const msg = h("p", { class: "form-error", role: "alert" });
  // Why the last seat was lost (kicked, replaced, room closed...), if it was.
  if (state.lastError) msg.textContent = errorText(state.lastError);

  // Opened from a link or QR: greet in the room's language and say who is there.
  const info = h("p", { class: "hint", id: "room-info" });
  if (linkCode) {
    session.roomInfo(linkCode).then((room) => {
      if (!room) { info.textContent = errorText({ code: "unknown_room" }); return; }
      if (!storage.lang.get() && room.lang) setLang(initialLang(room.lang));
      info.textContent = t("home.room_info", {
        game: t(`preset.${room.preset}`), n: (room.players || []).length,
        names: (room.players || []).map((p) => p.name).join(", "),
      });
      if (room.joinable === false) msg.textContent = errorText({ code: room.phase === "playing" ? "game_running" : "room_full" });
    }).catch(() => {});
  }

  const preview = h("div", { class: "profile-face" });
  const drawFace = () => preview.replaceChildren(face({ id: "me", name: prof.name || "?", color: prof.color }, 72));
  drawFace();

  const nameInput = h("input", {
    id: "name", type: "text", maxlength: 24, autocomplete: "nickname", value: prof.name,
    placeholder: t("home.name_placeholder"), "aria-label": t("home.name"),
    oninput: (ev) => { prof.name = ev.target.value; drawFace(); storage.profile.set(prof); },
  });

  const swatches = h("div", { class: "swatches", role: "radiogroup", "aria-label": t("home.color") },
    COLORS.map((c, i) => h("button", {
      type: "button", class: "swatch", role: "radio", style: { background: c },
      "aria-checked": c === prof.color ? "true" : "false",
      "aria-label": t("home.color_n", { n: i + 1 }),
      onclick: (ev) => {
        prof.color = c;
        storage.profile.set(prof);
        for (const b of swatches.children) b.setAttribute("aria-checked", "false");
        ev.currentTarget.setAttribute("aria-checked", "true");
        drawFace();
      },
    })));

  function checkName() {
    const name = prof.name.trim();
    if (!name) {
      msg.textContent = t("home.need_name");
      nameInput.focus();
      return null;
    }
    storage.profile.set({ ...prof, name });
    return name;
  }

  async function run(button, fn) {
    button.disabled = true;
    msg.textContent = "";
    try {
      await fn();
    } catch (err) {
      msg.textContent = errorText({ code: err.code || "network" });
    } finally {
      button.disabled = false;
    }
  }

  const codeInput = h("input", {
    id: "code", type: "text", maxlength: 8, autocomplete: "off", autocapitalize: "characters",
    spellcheck: "false", value: linkCode, placeholder: "ABCD", "aria-label": t("home.code"),
    class: "code-input",
  });
  const joinBtn = h("button", { class: "btn btn-primary", id: "join-btn", type: "submit" }, t("home.join"));
  const joinForm = h("form", {
    class: "card", onsubmit: (ev) => {
      ev.preventDefault();
      const name = checkName();
      const code = codeInput.value.trim().toUpperCase();
      if (!name) return;
      if (!/^[A-Z0-9]{3,8}$/.test(code)) { msg.textContent = t("home.need_code"); codeInput.focus(); return; }
      run(joinBtn, () => session.joinRoom(code, { name, color: prof.color }));
    },
  },
  h("h2", {}, linkCode ? t("home.join_room", { code: linkCode }) : t("home.join_title")),
  linkCode ? info : null,
  linkCode ? null : h("label", { for: "code" }, t("home.code")),
  linkCode ? null : codeInput,
  joinBtn);

  const presetSel = h("select", { id: "preset", "aria-label": t("home.game") }, presetOptions(PRESETS[0]));
  const createBtn = h("button", { class: "btn", id: "create-btn", type: "submit" }, t("home.create"));
  const createForm = h("form", {
    class: "card", onsubmit: (ev) => {
      ev.preventDefault();
      const name = checkName();
      if (!name) return;
      run(createBtn, () => session.createRoom({
        name, color: prof.color, preset: presetSel.value, lang: getLang(),
      }));
    },
  },
  h("h2", {}, t("home.create_title")),
  h("label", { for: "preset" }, t("home.game")),
  presetSel,
  h("p", { class: "hint" }, t("home.create_hint")),
  createBtn);

  root.append(h("div", { class: "screen home" },
    h("section", { class: "hero" },
      h("h1", {}, "Sussurro"),
      h("p", { class: "tagline" }, t("home.tagline"))),
    // Plain http from another device: say so before a seat is taken at this address.
    micApiAvailable() ? null : insecureNotice(t("net.insecure_before_join")),
    h("section", { class: "card profile" },
      preview,
      h("div", { class: "profile-fields" },
        h("label", { for: "name" }, t("home.name")),
        nameInput,
        h("span", { class: "label" }, t("home.color")),
        swatches)),
    msg,
    joinForm,
    linkCode ? null : createForm,
    // One phone passed around the table, offline: the page runs the game core itself.
    linkCode ? null : h("section", { class: "card one-phone" },
      h("h2", {}, t("home.one_phone")),
      h("p", { class: "hint" }, t("home.one_phone_hint")),
      h("a", { class: "btn", id: "one-phone", href: "/offline/" }, t("home.one_phone")))));

  return { update() {}, unmount() {} };
}
