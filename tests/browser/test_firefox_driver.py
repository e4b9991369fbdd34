"""The Firefox driver's tap (tests/browser/firefox.py) against a page that redraws the
element between its look-up and the tap, over a fake WebDriver BiDi endpoint (no browser).

Why: test_firefox's voice test failed under load at `ff.click("#mic-enable")` with
"move target out of bounds: Origin element ... is not displayed": the lobby's mic card is
rebuilt when the voice's state changes, right after the room appears, so the node found
was gone when the tap came. Firefox refuses such an action before dispatching any event;
a person taps the button the screen shows now.
"""

from __future__ import annotations

import itertools
import json
import threading

import pytest

from tests.browser.firefox import BidiError, Firefox


class RedrawingPage:
    """A fake BiDi endpoint for one button that is redrawn (a new node) the first
    `redraws` times it is scrolled into view, as a region rebuilt on a state change."""

    def __init__(self, ff: Firefox, redraws: int, refuse: str = "") -> None:
        self.ff = ff
        self.redraws = redraws
        self.refuse = refuse  # an error every tap gets, whatever the node
        self.nodes = itertools.count(1)
        self.current = f"node-{next(self.nodes)}"
        self.taps: list[str] = []

    def send(self, text: str) -> None:
        msg = json.loads(text)
        result, error = self.answer(msg["method"], msg["params"])
        reply = ({"id": msg["id"], "type": "error", "error": error[0], "message": error[1]}
                 if error else {"id": msg["id"], "type": "success", "result": result})
        with self.ff._cond:
            self.ff._replies[msg["id"]] = reply
            self.ff._cond.notify_all()

    def answer(self, method: str, params: dict) -> tuple[dict, tuple[str, str] | None]:
        if method == "script.callFunction":
            if "this" not in params:  # the look-up: the node the page shows now
                return {"type": "success", "result": {"type": "node", "sharedId": self.current}}, None
            if self.redraws:  # scrolled to it: the page redraws the region meanwhile
                self.redraws -= 1
                self.current = f"node-{next(self.nodes)}"
            return {"type": "success", "result": {"type": "undefined"}}, None
        if method == "input.performActions":
            if self.refuse:
                return {}, (self.refuse, "refused")
            origin = params["actions"][0]["actions"][0]["origin"]["element"]["sharedId"]
            if origin != self.current:
                return {}, ("move target out of bounds",
                            f'Origin element [object Object] {{"sharedId":"{origin}"}} '
                            "is not displayed")
            self.taps.append(origin)
        return {}, None


def _driver() -> Firefox:
    ff = Firefox.__new__(Firefox)  # the protocol half only: no process, no socket
    ff._ids = itertools.count(1)
    ff._replies = {}
    ff._cond = threading.Condition()
    ff.context = "tab"
    return ff


def test_a_tap_on_an_element_redrawn_before_it_lands_on_the_redrawn_one():
    ff = _driver()
    ff.ws = page = RedrawingPage(ff, redraws=2)
    ff.click("#mic-enable", timeout=5)
    assert page.taps == ["node-3"]  # one tap, on the button the page shows now


def test_a_tap_refused_for_another_reason_is_still_an_error():
    ff = _driver()
    ff.ws = page = RedrawingPage(ff, redraws=0, refuse="invalid argument")
    with pytest.raises(BidiError, match="invalid argument"):
        ff.click("#mic-enable", timeout=5)
    assert page.taps == []
