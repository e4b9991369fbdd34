// The phone's voice: what the app calls out (whose turn, the night's narration) is said
// with the browser's speech synthesis, in the page's language, and always shown as text.

import { getLang, speechLocale, voiceFor } from "/static/js/i18n.js";

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
    u.lang = speechLocale(getLang());
    const voice = voiceFor(synth.getVoices(), getLang());
    if (voice) u.voice = voice;
    synth.speak(u);
  } catch { /* no voice on this device: the text is on screen */ }
}
