"""A whole Intruso game played by one page of any engine (Firefox over BiDi, WebKit over
WebDriver: both drivers offer state/count/fill/click), tapping like a player: a clue on
its turn, ready in the debate, a vote for someone else. The bots play the other seats."""

from __future__ import annotations

import time


def play_intruso_page(page, timeout: float = 240.0) -> None:
    """Play `page`'s seat from the clue phase to the end screen (bounded by `timeout`)."""
    deadline = time.monotonic() + timeout
    done: set = set()
    while page.state("s.view && s.view.phase") != "over":
        assert time.monotonic() < deadline, f"the game did not end: {page.state('s.view.phase')}"
        phase = page.state("s.view.phase")
        me = page.state("s.view.me.id")
        key = (phase, page.state("s.view.round"), page.state("(s.view.clues || []).length"))
        if key in done:
            time.sleep(0.3)
            continue
        if phase == "clues" and page.state("s.view.turn") == me and page.count("#clue-input"):
            page.fill("#clue-input", "zorblat")
            page.click("#clue-input-send")
        elif phase == "debate" and page.count("#ready-btn"):
            page.click("#ready-btn")
        elif phase == "vote" and page.state("s.view.me.vote") is None:
            target = next(p for p in page.state("s.view.candidates") if p != me)
            page.click(f".pcard[data-pid='{target}'] .avatar")
        else:
            time.sleep(0.3)
            continue
        done.add(key)
    page.wait("#end-title")
