"""Issue 15: the page asks its voice receiver for the smallest playout delay the
network allows (RTCRtpReceiver.jitterBufferTarget 0, or playoutDelayHint 0 in browsers
that offer only that). bench/browser_latency.py measures what it buys."""

from __future__ import annotations

import pytest

from tests.browser.harness import create_room, launch_player, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Keeps the page's peer connections reachable (the app does not expose them).
PC_HOOK = """(() => {
  const P = window.RTCPeerConnection;
  window.__pcs = [];
  window.RTCPeerConnection = class extends P {
    constructor(...a) { super(...a); window.__pcs.push(this); }
  };
})();"""

RECEIVER = """() => {
  const pc = window.__pcs.find((p) => p.connectionState === "connected");
  const rx = pc && pc.getReceivers().find((r) => r.track && r.track.kind === "audio");
  if (!rx) return null;
  if ("jitterBufferTarget" in rx) return { api: "jitterBufferTarget", value: rx.jitterBufferTarget };
  if ("playoutDelayHint" in rx) return { api: "playoutDelayHint", value: rx.playoutDelayHint };
  return { api: "none", value: null };
}"""


def test_voice_receiver_asks_for_the_smallest_playout_delay(server, pw, tmp_path):
    player = launch_player(pw, tmp_path, "Lia", 0, mic="missing")
    try:
        player.page.add_init_script(PC_HOOK)
        create_room(server, player)
        player.page.click("#mic-skip")
        wait_until(lambda: player.state("s.voice") in ("on", "audio_ok"), timeout=40,
                   what="the voice link up")
        got = wait_until(lambda: player.page.evaluate(RECEIVER), timeout=20, what="the receiver")
        assert got["api"] != "none", "this Chromium offers neither playout setting"
        assert got["value"] == 0, got  # the browser's default is null: no preference
        assert not player.errors, player.errors
    finally:
        player.context.close()
