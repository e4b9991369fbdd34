"""A click is a press and a release on the same element: an update that redraws the
button's region between the two would put a new button under the pointer and the click
would go nowhere (a player's "ready" lost because someone else's arrived mid-click; seen
on a loaded machine in the LAN round). The region waits for the release; a long hold
(a whisper) does not hold the screen back. Messages are fed to the page as the server
sends them."""

from __future__ import annotations

import pytest

from tests.browser.harness import launch_player, wait_until
from tests.browser.test_screens import ROOM, view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MARK = "document.querySelector('#ready-btn[data-mark]') !== null"


def debate(ready: set[int]) -> dict:
    v = view("debate", me={"can": ["ready"]})
    for i, p in enumerate(v["players"]):
        p["ready"] = i in ready
    return v


def feed(page, v: dict) -> None:
    page.evaluate("(v) => window.__sussurro.receive({type: 'view', view: v})", v)


def test_a_click_survives_an_update_between_press_and_release_and_a_hold_does_not_freeze(
        server, pw, tmp_path):
    p = launch_player(pw, tmp_path, "viewer", 520.0, mic="missing")
    page = p.page
    try:
        page.goto(server.url("/"))
        page.wait_for_selector("#name")
        page.evaluate("window.__sussurro.set({code: 'K7QMX', player: 'p0', token: 'preview'})")
        page.evaluate("(r) => window.__sussurro.receive(r)", ROOM)
        feed(page, debate({1}))
        page.wait_for_selector("#ready-btn")
        assert p.state("s.pending") is None

        # Press on "ready"; Chiara's readiness arrives before the release.
        page.evaluate("document.querySelector('#ready-btn').dataset.mark = '1'")
        box = page.locator("#ready-btn").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        feed(page, debate({1, 2}))
        # The update is drawn where nothing is pressed (Chiara's badge in the grid) ...
        wait_until(lambda: page.locator(".pcard[data-pid='p2'] .badge-ready").count() == 1,
                   what="Chiara's ready badge")
        # ... and the pressed button is still the one under the pointer.
        assert page.evaluate(MARK)
        page.mouse.up()
        # The click counted: my "ready" went out (no socket here: it is pending).
        wait_until(lambda: p.state("s.pending") is not None, what="my ready sent")
        # The panel caught up after the release: a new button, drawn from the new view.
        wait_until(lambda: not page.evaluate(MARK), what="the panel redrawn after the release")

        # A hold (as a whisper is) longer than a tap: the screen does not wait for it.
        page.evaluate("document.querySelector('#ready-btn').dataset.mark = '1'")
        page.mouse.down()
        page.wait_for_timeout(800)
        feed(page, debate({1, 2, 3}))
        wait_until(lambda: not page.evaluate(MARK), what="the panel redrawn during a hold")
        page.mouse.up()
        assert not p.errors, p.errors
    finally:
        p.context.close()
