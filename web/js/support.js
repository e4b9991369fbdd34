// What the page needs from the browser, detected up front, so that a missing piece is
// said in plain words instead of failing silently (docs/browsers.md). A browser without
// WebRTC (e.g. a WebKitGTK build without it) still plays the whole game by text.

/** True when this browser can carry voice at all (an RTCPeerConnection to the server). */
export function voiceSupported() {
  return typeof window.RTCPeerConnection === "function";
}

/** True when the page may play and analyse sound with Web Audio (the turn chime). */
export function webAudioSupported() {
  return Boolean(window.AudioContext || window.webkitAudioContext);
}

/**
 * Whether the microphone permission is already granted, without asking (a reload may
 * take the mic again silently; otherwise the player's tap asks). Resolves false where
 * the Permissions API does not know "microphone" (the tap then asks).
 */
export async function micAlreadyGranted() {
  try {
    const status = await navigator.permissions?.query({ name: "microphone" });
    return status?.state === "granted";
  } catch {
    return false;
  }
}
