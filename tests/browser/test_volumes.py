"""Issue 13 in real Chromium: a player lowers one voice and mutes another on their avatars
(measured in what that page receives), the choice survives a reload, and with the room's
voices placed around the table the page hears the seat on its left from the left.

One page (the host) and two bots with steady tones: lean, about half a minute.
"""

from __future__ import annotations

import statistics
import time

import pytest

from client.rtc_peer import Tone
from tests.browser.bot_thread import BotThread
from tests.browser.harness import create_room, launch_player, wait_until

# Voices measured left and right in the page while bots talk: it runs alone (solo, see
# tests/conftest.py); beside another heavy test, a starved page's stereo measure drifts.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.solo]

LOWERED, MUTED = 700.0, 1300.0  # the two bots' tones (exact Hz, far apart)
HEARD_DB = -50.0
# seat_pan(0, 1, 3) puts Bruno 12.2 dB louder on the left (and Carla on the right). The
# stereo mix once came out of libopus's hybrid mode at 1-5 dB whenever the machine was
# loaded enough for a frame to miss one voice (tests/server/test_opus_direct.py); coded
# by CELT it keeps each side. The exact ratio is checked through aiortc
# (tests/e2e/test_personal_mix.py); here: stereo reaches Chrome, each voice well on its
# own side, with room for the page's own concealment on a starved machine.
SIDE_DB = 8.0

# Left and right levels (dB) of some tones in the page's received mix, per channel.
STEREO_PROBE = """(freqs) => {
  const el = document.getElementById("remote-audio");
  // a new peer (a retry) brings a new stream: listen to that one
  if (window.__probe && window.__probe.stream !== el.srcObject) {
    window.__probe.ctx.close(); window.__probe = null;
  }
  if (!window.__probe) {
    const ctx = new AudioContext();
    const src = ctx.createMediaStreamSource(el.srcObject);
    const split = ctx.createChannelSplitter(2);
    src.connect(split);
    const an = [0, 1].map((ch) => {
      const a = ctx.createAnalyser(); a.fftSize = 8192; a.smoothingTimeConstant = 0.5;
      split.connect(a, ch); return a;
    });
    const sink = ctx.createGain(); sink.gain.value = 0;
    an.forEach((a) => a.connect(sink)); sink.connect(ctx.destination);
    window.__probe = { ctx, an, stream: el.srcObject };
  }
  const { ctx, an } = window.__probe;
  return an.map((a) => {
    const data = new Float32Array(a.frequencyBinCount);
    a.getFloatFrequencyData(data);
    return freqs.map((f) => {
      const c = Math.round(f / (ctx.sampleRate / a.fftSize));
      let best = -200;
      for (let i = c - 2; i <= c + 2; i++) if (Number.isFinite(data[i]) && data[i] > best) best = data[i];
      return best;
    });
  });
}"""


def _median_levels(page, freqs, n=8):
    """The tones' levels once the page's analyser has settled: the median of `n` readings.

    The analyser smooths each reading with the one before it (smoothingTimeConstant 0.5,
    applied per read, not per unit of time), so the first readings after a voice starts or
    changes lag behind it: read until two readings in a row agree within 0.5 dB first
    (for the tones heard; a muted one reads the noise floor, which never agrees).
    Read at once, a voice that has just crossed HEARD_DB reads 0.5-1.3 dB low here; in a
    CI run its first readings came 3.7 dB below the steady level (-6.7 dB read for -10.5).
    """
    last = page.levels(freqs)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(0.15)
        now = page.levels(freqs)
        if all(abs(a - b) < 0.5 for a, b in zip(now, last, strict=True) if max(a, b) > HEARD_DB):
            break
        last = now
    samples = []
    for _ in range(n):
        samples.append(page.levels(freqs))
        time.sleep(0.15)
    return [statistics.median(s[i] for s in samples) for i in range(len(freqs))]


def test_a_lowered_voice_and_a_muted_one_on_the_avatars_and_voices_around_the_table(server, pw,
                                                                                    tmp_path):
    page = launch_player(pw, tmp_path, "Ada", 520.0)
    bots = BotThread()
    try:
        code = create_room(server, page)
        page.page.click("#mic-allow") if page.page.locator("#mic-allow").count() else None
        lowered, muted = bots.join(server.base_url, code, [("Bruno", Tone(LOWERED)),
                                                           ("Carla", Tone(MUTED))])
        wait_until(lambda: all(v > HEARD_DB for v in page.levels([LOWERED, MUTED])), timeout=40,
                   what="both bots heard")
        before = _median_levels(page, [LOWERED, MUTED])

        # Bruno to 30 %, Carla muted, on their rows' own controls (folded in the lobby
        # behind "Volumi (2)", issue 37 item 5: opened all at once; a changed voice's row
        # stays open, after a reload too)
        page.page.click("#vol-all")
        page.page.locator(f".vol-slider[data-pid='{lowered.pid}']").fill("30")
        page.page.click(f".vol-mute[data-pid='{muted.pid}']")
        wait_until(lambda: page.levels([MUTED])[0] < before[1] - 30, timeout=10,
                   what="Carla muted in the page's mix")
        time.sleep(0.5)
        after = _median_levels(page, [LOWERED, MUTED])
        assert after[0] - before[0] == pytest.approx(-10.5, abs=3.0), (before, after)
        assert after[1] < before[1] - 30, (before, after)
        page.shot("volumes-lobby")
        # Carla still hears Bruno as before: nobody else's mix changed
        assert bots.run(_hears(muted, LOWERED))

        # Kept on the device: after a reload the page sends them again
        page.page.reload()
        page.page.wait_for_selector(f".vol-mute[data-pid='{muted.pid}'][aria-pressed='true']")
        assert page.page.locator(f".vol-slider[data-pid='{lowered.pid}']").input_value() == "30"
        wait_until(lambda: page.levels([LOWERED])[0] > HEARD_DB, timeout=40, what="voice back")
        time.sleep(1.0)
        again = _median_levels(page, [LOWERED, MUTED])
        assert again[1] < before[1] - 30, (before, again)
        assert again[0] < before[0] - 6, (before, again)  # still lowered (30 %: -10.5 dB)

        # Voices around the table: Bruno sits on Ada's left, Carla (back to 100 %) on her right
        page.page.click(f".vol-mute[data-pid='{muted.pid}']")
        page.page.locator(f".vol-slider[data-pid='{lowered.pid}']").fill("100")
        page.page.check("input[name='spatial']")
        page.page.reload()  # a fresh peer, whose offer says stereo=1
        wait_until(lambda: page.page.evaluate(
            "() => document.getElementById('remote-audio')?.srcObject ? 1 : 0"), timeout=30,
                   what="the voice back")

        def sides():
            left, right = page.page.evaluate(STEREO_PROBE, [LOWERED, MUTED])
            return left, right

        def apart():
            left, right = sides()
            return min(left) > HEARD_DB and left[0] - right[0] > SIDE_DB and right[1] - left[1] > SIDE_DB

        # the new peer's first packets and the analysers' smoothing take a moment
        wait_until(apart, timeout=30, what="Bruno on the left, Carla on the right")
        time.sleep(1.0)
        diffs = []
        deadline = time.monotonic() + 20
        while len(diffs) < 8 and time.monotonic() < deadline:
            left, right = sides()
            # only moments where both voices arrive (a starved page may miss some)
            if left[0] > HEARD_DB and right[1] > HEARD_DB:
                diffs.append((left[0] - right[0], right[1] - left[1]))
            time.sleep(0.15)
        assert len(diffs) == 8, diffs
        bruno_left = statistics.median(d[0] for d in diffs)
        carla_right = statistics.median(d[1] for d in diffs)
        assert bruno_left > SIDE_DB and carla_right > SIDE_DB, diffs
        assert not page.errors, page.errors
    finally:
        bots.stop()
        page.context.close()


async def _hears(bot, hz):
    import asyncio

    from tests.e2e.spectrum import tone_db_robust

    await asyncio.sleep(1.5)
    x = bot.voice.recorder.audio()[-48000:]
    return tone_db_robust(x, hz) > -30
