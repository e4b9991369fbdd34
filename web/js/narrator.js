// The app as moderator: the narration of a view (game.werewolf's `narration`) as text in
// the player's language, and spoken aloud in the room's language with the browser's speech
// synthesis when the room wants it. The text is always shown: a browser without voices
// (or with speech turned off) still tells the players what happens.

import { getLang, speechLocale, tIn, voiceFor } from "./i18n.js";
import { nameOf } from "./names.js";

let lastSpoken = "";

function joined(lang, pids) {
  const names = (pids || []).map(nameOf);
  if (names.length < 2) return names.join("");
  return `${names.slice(0, -1).join(", ")} ${tIn(lang, "lupi.and")} ${names.at(-1)}`;
}

/** One narration line in `lang` (the player's by default). */
export function lineText(line, lang = null) {
  const l = lang || getLang();
  return tIn(l, `lupi.say.${line.key}`, {
    name: line.player ? nameOf(line.player) : "",
    names: joined(l, line.players),
  });
}

/** The lines of a view's narration, in the player's language. */
export function narrationText(view) {
  return (view.narration?.lines || []).map((line) => lineText(line));
}

/** Which narration this is: a new one is spoken once (a redraw does not repeat it). */
export function narrationKey(view) {
  return `${view.day}:${view.phase}:${view.defender || ""}:${JSON.stringify(view.narration?.lines || [])}`;
}

/**
 * Speak the view's narration in the room's language if the app narrates and the room wants
 * the voice. Returns what was asked of the speech engine ({lang, text}), or null.
 */
export function speak(view) {
  const n = view.narration;
  if (!n || n.by !== "app") return null;
  const key = narrationKey(view);
  if (key === lastSpoken) return null;
  lastSpoken = key;
  if (!n.speak) return null;
  const lang = view.lang || "it";
  const text = n.lines.map((line) => lineText(line, lang)).join(" ");
  const synth = window.speechSynthesis;
  if (!synth || typeof window.SpeechSynthesisUtterance !== "function") return { lang, text, spoken: false };
  try {
    synth.cancel();   // a new phase interrupts the last narration
    const u = new SpeechSynthesisUtterance(text);
    u.lang = speechLocale(lang);
    const voice = voiceFor(synth.getVoices(), lang);
    if (voice) u.voice = voice;
    u.rate = 0.95;
    synth.speak(u);
  } catch {
    return { lang, text, spoken: false };
  }
  return { lang, text, spoken: true };
}

/** Stop speaking (leaving the game screen). */
export function hush() {
  lastSpoken = "";
  try { window.speechSynthesis?.cancel(); } catch { /* nothing to stop */ }
}
