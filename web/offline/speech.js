// The phone's voice: what the app calls out (whose turn, the night's narration) is said
// with the browser's speech synthesis, in the page's language, and always shown as text.

import { getLang } from "/static/js/i18n.js";

const VOICES = { it: "it-IT", fr: "fr-FR", en: "en-GB" };
let enabled = true;
/** Every line said, newest last (the page shows the last one; tests read them). */
export const said = [];

export function setVoice(on) {
  enabled = on;
  if (!on) window.speechSynthesis?.cancel();
}

export function voiceOn() {
  return enabled;
}

/** Say `text` aloud (when the browser can and the voice is on); it is also kept in `said`. */
export function say(text) {
  said.push(text);
  if (said.length > 50) said.shift();
  const synth = window.speechSynthesis;
  if (!enabled || !synth || typeof SpeechSynthesisUtterance === "undefined") return;
  try {
    synth.cancel();
    const u = new SpeechSynthesisUtterance(text);
    u.lang = VOICES[getLang()] || "it-IT";
    synth.speak(u);
  } catch { /* no voice on this device: the text is on screen */ }
}
