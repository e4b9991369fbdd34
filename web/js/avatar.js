// A player's face: colour, initial, a mouth that opens with their voice level.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";

// Colours chosen so a dark initial keeps AA contrast on every one of them.
export const COLORS = [
  "#ff8a80", "#ffb74d", "#ffe066", "#aed581", "#4dd0c5",
  "#81d4fa", "#9fa8ff", "#ce93d8", "#f48fb1", "#bcaaa4",
  "#e6ee9c", "#80cbc4",
];

/** A stable colour for a player without one (hash of the id). */
export function colorFor(player) {
  if (player?.color && /^#[0-9a-f]{6}$/i.test(player.color)) return player.color;
  const id = String(player?.id || "");
  let sum = 0;
  for (const ch of id) sum = (sum * 31 + ch.charCodeAt(0)) >>> 0;
  return COLORS[sum % COLORS.length];
}

/**
 * The face SVG. The mouth carries data-pid and data-level so every update from
 * `mouths` (and the browser tests) can find and read it.
 */
export function face(player, size = 56) {
  const color = colorFor(player);
  const initial = (player?.name || "?").trim().charAt(0).toUpperCase() || "?";
  return h("svg:svg", {
    viewBox: "0 0 64 64", width: size, height: size, class: "face", "aria-hidden": "true",
  },
  h("svg:circle", { cx: 32, cy: 32, r: 30, fill: color }),
  h("svg:circle", { cx: 22, cy: 25, r: 3.5, fill: "#1b1530" }),
  h("svg:circle", { cx: 42, cy: 25, r: 3.5, fill: "#1b1530" }),
  h("svg:text", {
    x: 32, y: 16, "text-anchor": "middle", "font-size": 11, "font-weight": 700,
    fill: "#1b1530", class: "initial",
  }, initial),
  h("svg:ellipse", {
    cx: 32, cy: 44, rx: 10, ry: 6, fill: "#3a1020", class: "mouth",
    "data-pid": player?.id || "", "data-level": "0",
    style: { transform: "scaleY(0.12)" },  // CSSOM: the CSP refuses style attributes
  }));
}

/** Set every visible mouth from a {pid: level} map; absent players close their mouth. */
export function setMouths(levels) {
  for (const mouth of document.querySelectorAll(".mouth[data-pid]")) {
    const level = Math.max(0, Math.min(1, Number(levels[mouth.dataset.pid]) || 0));
    const shown = level < 0.02 ? 0 : level;
    if (mouth.dataset.level === shown.toFixed(2)) continue;
    mouth.dataset.level = shown.toFixed(2);
    mouth.style.transform = `scaleY(${(0.12 + shown * 1.1).toFixed(3)})`;
    mouth.closest(".avatar")?.classList.toggle("speaking", shown > 0);
  }
}

const LINK_LABELS = { poor: () => t("net.link.poor"), gone: () => t("net.link.gone") };

/**
 * Mark every visible face whose voice link is poor or gone (the server's `links`:
 * {pid: "good" | "poor" | "gone"}); a good link, or none (no voice), has no mark.
 * The mark sits beside the face in its holder (the avatar's button or box), a small
 * signal icon named for screen readers (role img, label and title in the page's language).
 */
export function setLinks(links) {
  for (const mouth of document.querySelectorAll(".mouth[data-pid]")) {
    const svg = mouth.ownerSVGElement;
    const holder = svg?.parentElement;
    if (!holder) continue;
    const pid = mouth.dataset.pid;
    const link = links?.[pid];
    const want = link === "poor" || link === "gone" ? link : "";
    let mark = [...holder.children].find((el) => el.classList.contains("link-mark"));
    holder.classList.toggle("link-poor", want === "poor");
    holder.classList.toggle("link-gone", want === "gone");
    if (!want) {
      mark?.remove();
      continue;
    }
    const label = LINK_LABELS[want]();
    if (mark && mark.dataset.link === want && mark.getAttribute("aria-label") === label) continue;
    mark?.remove();
    mark = h("span", {
      class: `link-mark link-mark-${want}`, role: "img", "aria-label": label, title: label,
      "data-link": want, "data-link-pid": pid,
    }, icon(want === "gone" ? "signalOff" : "signal", 14));
    svg.after(mark);
  }
}
