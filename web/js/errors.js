// The server's refusal codes in the player's words.

import { has, t } from "./i18n.js";

export function errorText(err) {
  if (!err) return "";
  const key = `error.${err.code}`;
  if (has(key)) return t(key, err.detail || {});
  return t("error.generic", { code: err.code });
}

// Screens that show a refusal in place register here, so no toast repeats it.
const inline = new Set();

export function claimErrors(fn) {
  inline.add(fn);
  return () => inline.delete(fn);
}

/** True when a screen showed this error in place. */
export function shownInline(err) {
  let shown = false;
  for (const fn of inline) if (fn(err)) shown = true;
  return shown;
}
