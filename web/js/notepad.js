// My private notepad: suspect / trusted marks on avatars, kept on this device.

import { t } from "./i18n.js";
import { state } from "./state.js";
import * as storage from "./storage.js";

const CYCLE = [null, "suspect", "trusted"];

export function gameKey() {
  const r = state.room || {};
  // `game` counts the room's games, so a rematch starts a clean notepad.
  return String(r.game ?? "current");
}

export function getMarks() {
  return state.code ? storage.notes.get(state.code, gameKey()) : {};
}

export function cycleMark(pid) {
  const marks = getMarks();
  const next = CYCLE[(CYCLE.indexOf(marks[pid] ?? null) + 1) % CYCLE.length];
  if (next) marks[pid] = next; else delete marks[pid];
  storage.notes.set(state.code, gameKey(), marks);
  return next;
}

export function markLabel(mark) {
  return t(`notes.${mark || "none"}`);
}

export function markSymbol(mark) {
  return mark === "suspect" ? "?" : mark === "trusted" ? "✓" : "·";
}
