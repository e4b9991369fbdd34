"""Issue 31 item 9 in real Chromium: with the room's voices placed around the table (the host's
room setting), a player with one earbud chooses mono for themself in the volume panel; the page
then hears the voice on its left in both ears alike, and the choice survives a reload.

One page (the host) and two bots with steady tones. The other listeners' pans are checked
through aiortc (tests/e2e/test_personal_mix.py).
"""

from __future__ import annotations

import statistics
import time

import pytest

from client.rtc_peer import Tone
from tests.browser.bot_thread import BotThread
from tests.browser.harness import create_room, launch_player, wait_until
from tests.browser.test_volumes import HEARD_DB, LOWERED, MUTED, SIDE_DB, STEREO_PROBE

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.solo]

SAME_DB = 2.0  # mono: each voice equal in both ears, within the page's measure


def _sides(page):
    left, right = page.page.evaluate(STEREO_PROBE, [LOWERED, MUTED])
    return left, right


def _median_diffs(page, n=8):
    """Median left-minus-right (dB) of each voice over `n` moments where both arrive."""
    diffs = []
    deadline = time.monotonic() + 20
    while len(diffs) < n and time.monotonic() < deadline:
        left, right = _sides(page)
        if min(left) > HEARD_DB and min(right) > HEARD_DB:
            diffs.append((left[0] - right[0], left[1] - right[1]))
        time.sleep(0.15)
    assert len(diffs) == n, diffs
    return [statistics.median(d[i] for d in diffs) for i in (0, 1)]


def test_item9_a_player_chooses_mono_for_themself_while_the_room_places_the_voices(
        server, pw, tmp_path):
    page = launch_player(pw, tmp_path, "Ada", 520.0)
    bots = BotThread()
    try:
        code = create_room(server, page)
        # the host's room setting, its hint saying it is the room's; no mono choice before
        assert page.page.locator("#opt-mono").count() == 0
        hint = page.page.locator("label.spatial small").first.inner_text()
        assert "stanza" in hint and "host" in hint, hint
        page.page.check("input[name='spatial']")
        page.page.wait_for_selector("#opt-mono")
        assert page.page.locator("label[for='opt-mono']").inner_text().startswith("Audio mono per me")
        bots.join(server.base_url, code, [("Bruno", Tone(LOWERED)), ("Carla", Tone(MUTED))])

        def apart():
            left, right = _sides(page)
            return min(left + right) > HEARD_DB - 20 and left[0] - right[0] > SIDE_DB \
                and right[1] - left[1] > SIDE_DB

        # Bruno sits on Ada's left, Carla on her right
        wait_until(apart, timeout=40, what="Bruno on the left, Carla on the right")

        page.page.check("#opt-mono")

        def centred():
            left, right = _sides(page)
            return min(left + right) > HEARD_DB and all(
                abs(a - b) < SAME_DB for a, b in zip(left, right, strict=True))

        wait_until(centred, timeout=20, what="both voices in both ears alike")
        time.sleep(0.5)
        bruno, carla = _median_diffs(page)
        assert abs(bruno) < SAME_DB and abs(carla) < SAME_DB, (bruno, carla)
        page.shot("mono-choice-lobby")

        # kept on the device: after a reload the page sends it again
        page.page.reload()
        page.page.wait_for_selector("#opt-mono:checked")
        wait_until(lambda: page.page.evaluate(
            "() => document.getElementById('remote-audio')?.srcObject ? 1 : 0"), timeout=30,
                   what="the voice back")
        wait_until(centred, timeout=40, what="mono again after the reload")
        bruno, carla = _median_diffs(page)
        assert abs(bruno) < SAME_DB and abs(carla) < SAME_DB, (bruno, carla)

        # taken back: the seats again
        page.page.uncheck("#opt-mono")
        wait_until(apart, timeout=20, what="the seats back")
        assert not page.errors, page.errors
    finally:
        bots.stop()
        page.context.close()
