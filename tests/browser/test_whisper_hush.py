"""Issue 8, the whisperer's screen when a whisper ends without them: the page says so at once
(in the player's language), shows that nobody hears them until they let go, and lifting
the finger ends the hush. Messages are fed to the page as the server sends them."""

from __future__ import annotations

import pytest

from tests.browser.harness import i18n, launch_player, wait_until
from tests.browser.test_screens import ROOM, view

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("lang", ["it", "en"])
def test_a_hushed_whisperer_is_told_and_lifting_the_finger_ends_the_hush(server, pw, tmp_path,
                                                                          lang):
    text = i18n(lang)
    p = launch_player(pw, tmp_path, "viewer", 520.0, mic="missing")
    try:
        p.page.goto(server.url("/"))
        p.page.wait_for_selector("#name")
        p.page.evaluate("(l) => localStorage.setItem('sussurro:lang', JSON.stringify(l))", lang)
        p.page.reload()
        p.page.wait_for_selector("#name")
        p.page.evaluate("window.__sussurro.set({code: 'K7QMX', player: 'p0', token: 'preview',"
                        " whisperingTo: 'p1'})")
        p.page.evaluate("(r) => window.__sussurro.receive(r)", ROOM)
        p.page.evaluate("(v) => window.__sussurro.receive({type: 'view', view: v})",
                        view("debate", me={"can": ["ready"]}))
        p.page.wait_for_selector(".banner-whisper-out")

        p.page.evaluate("window.__sussurro.receive({type: 'whisper', from: 'p0', to: 'p1',"
                        " active: false, reason: 'target_left', hushed: true})")
        p.page.wait_for_selector(".banner-whisper-held")
        assert p.page.locator(".banner-whisper-out").count() == 0
        assert p.page.inner_text(".banner-whisper-held span") == text["whisper.held"].format(
            name="Bruno")
        # Issue 29: the hush banner also offers a tap back to the table.
        assert p.page.inner_text("#whisper-unhush") == text["whisper.speak_all"]
        wait_until(lambda: p.page.inner_text("#toast") == text["whisper.ended.target_left"]
                   .format(name="Bruno"), what="the notice")
        assert p.state("s.whisperHeld") == "p1"

        p.page.evaluate("document.dispatchEvent(new PointerEvent('pointerup'))")
        wait_until(lambda: p.page.locator(".banner-whisper-held").count() == 0,
                   what="the hush banner gone")
        assert p.state("s.whisperHeld") is None
        assert not p.errors, p.errors
    finally:
        p.context.close()
