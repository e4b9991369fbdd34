"""Without a microphone (refused, or none on the device) the player is told so in plain
words, still hears the room, and still plays by text. Then the seat's end: a player
leaves for good, another is removed by the host; both are told why on the home screen."""

from __future__ import annotations

import pytest

from tests.browser.harness import create_room, i18n, launch_player, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IT = i18n("it")


def test_a_refused_or_missing_mic_is_explained_and_voice_still_plays(server, pw, tmp_path):
    speaker = launch_player(pw, tmp_path, "Sara", 700.0)
    denied = launch_player(pw, tmp_path, "Nina", 0, mic="denied")
    missing = launch_player(pw, tmp_path, "Olga", 0, mic="missing")
    try:
        code = create_room(server, speaker, "?testaudio=1")
        speaker.page.click("#mic-enable")
        for p, state, key in ((denied, "denied", "mic.denied"), (missing, "missing", "mic.missing")):
            p.page.goto(server.url(f"/r/{code}"))
            # The explanation comes before the browser's own question.
            p.page.fill("#name", p.name)
            p.page.click("#join-btn")
            p.page.wait_for_selector("#mic-enable")
            assert p.page.inner_text(".mic-card p") == IT["mic.explain"]
            p.page.click("#mic-enable")
            wait_until(lambda p=p, state=state: p.state("s.mic") == state, what=f"mic {state}")
            assert p.page.inner_text(".mic-card .warn") == IT[key]
            assert p.page.locator("#mic-enable").count() == 1          # they may try again
            assert p.page.locator(".mic-toggle").count() == 0          # nothing to mute
            # Listening still works: the voice link comes up receive-only and the
            # speaker's tone arrives.
            wait_until(lambda p=p: p.state("s.voice") == "on", timeout=40, what=f"{p.name} listens")
            wait_until(lambda p=p: p.levels([700.0])[0] > -50, timeout=20, what=f"{p.name} hears Sara")
        # Leaving for good: back home, told so, the seat gone from the room and the device.
        wait_until(lambda: speaker.page.locator(".player-row").count() == 3, what="three seated")
        missing.page.once("dialog", lambda d: d.accept())
        missing.page.click("#leave-btn")
        missing.page.wait_for_selector("#create-btn")
        assert missing.page.inner_text(".form-error") == IT["error.left"]
        assert missing.page.evaluate(f"localStorage.getItem('sussurro:seat:{code}')") is None
        wait_until(lambda: speaker.page.locator(".player-row").count() == 2, what="the seat freed")
        # The host removes a player: they land on the home screen, told why.
        speaker.page.once("dialog", lambda d: d.accept())
        speaker.page.click(f".player-row[data-pid='{denied.pid}'] .iconbtn.danger")
        denied.page.wait_for_selector("#create-btn")
        assert denied.page.inner_text(".form-error") == IT["error.kicked"]
        wait_until(lambda: speaker.page.locator(".player-row").count() == 1, what="the seat removed")
        for p in (speaker, denied, missing):
            assert not p.errors, (p.name, p.errors)
    finally:
        for p in (speaker, denied, missing):
            p.context.close()
