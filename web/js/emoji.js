// The Muto's emoji picker: tapping an emoji adds it to the clue field.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const EMOJI = [
  "🐱", "🐶", "🦁", "🐯", "🐟", "🐦", "🌳", "🌸", "🍎", "🍕", "🍷", "☕",
  "🏠", "🏖️", "⛰️", "🌊", "☀️", "🌙", "❄️", "🔥", "⚽", "🎵", "📚", "💼",
  "🚗", "✈️", "🚲", "⏰", "💰", "❤️", "😂", "😱", "🤔", "👀", "👂", "✋",
  "⬆️", "⬇️", "➕", "➖", "❓", "❗",
];

export function emojiPicker(input) {
  return h("div", { class: "emoji-picker", role: "group", "aria-label": t("clue.emoji_picker") },
    EMOJI.map((e) => h("button", {
      type: "button", class: "emoji", "aria-label": t("clue.add_emoji", { e }),
      onclick: () => {
        input.value += e;
        input.dispatchEvent(new Event("input"));
        input.focus();
      },
    }, e)));
}
