"""A whole Intruso game played by one page of any engine (Firefox over BiDi, WebKit over
WebDriver: both drivers offer js/state/count/fill/click), tapping like a player: a clue on
its turn, ready in the debate, a vote for someone else. The bots play the other seats.

Speed (issue 32 follow-up): every phase here ends by the players' actions, never by a
timer. The host's table has no powers and no Fantasma (`quick_table`), so no seat waits
for a power's or a guess's timer (30 to 45 s each) that this page would not play; one
script call reads the page's whole situation per poll; a tap whose effect does not show
is tapped again instead of waiting for the phase's timer.
"""

from __future__ import annotations

import time

# One round trip: [phase, round, clues given, my id, what I can do, my vote, candidates];
# null before the app booted.
SITUATION = """(() => {
  const s = window.__sussurro && window.__sussurro.state;
  const v = s && s.view;
  if (!v) return null;
  const me = v.me || {};
  return [v.phase, v.round ?? null, (v.clues || []).length, me.id ?? null, me.can || [],
          me.vote ?? null, v.candidates || []];
})()"""


class Timeline:
    """Seconds since the start, printed with each step (pytest shows them on failure, or
    with -s): where a slow browser test spends its time."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.t0 = time.monotonic()

    def __call__(self, what: str) -> None:
        print(f"[{self.label} {time.monotonic() - self.t0:7.2f} s] {what}", flush=True)


def quick_table(page) -> None:
    """The host's settings form: powers picked by hand (none picked) and no Fantasma, so
    every phase of the game ends by the players' actions. The detailed rules are folded
    in the lobby: opened first, as a host would."""
    if page.js("(() => { const d = document.getElementById('lobby-rules');"
               " return Boolean(d && !d.open); })()"):
        page.click("details#lobby-rules > summary")
        _until(lambda: page.js("(() => document.getElementById('lobby-rules').open)()"),
               "the rules unfolded")
    page.click("#opt-powers-pick")
    _until(lambda: page.state("JSON.stringify(s.room.settings.options.powers)") == "[]",
           "no powers", retry=lambda: page.click("#opt-powers-pick"))
    page.js("(() => { const el = document.querySelector('#opt-fantasmi'); el.value = '0';"
            " el.dispatchEvent(new Event('change', {bubbles: true})); return true; })()")
    _until(lambda: page.state("s.room.settings.options.fantasmi") == 0, "no Fantasma")


def _until(pred, what: str, timeout: float = 15.0, retry=None, retry_after: float = 2.0) -> None:
    """Poll `pred` (bounded); call `retry` (a tap again) every `retry_after` s meanwhile."""
    deadline = time.monotonic() + timeout
    next_retry = time.monotonic() + retry_after
    while not pred():
        now = time.monotonic()
        assert now < deadline, f"timed out waiting for {what}"
        if retry is not None and now >= next_retry:
            retry()
            next_retry = now + retry_after
        time.sleep(0.05)


def play_intruso_page(page, timeout: float = 180.0, log=None) -> None:
    """Play `page`'s seat from the clue phase to the end screen (bounded by `timeout`):
    whatever the view says it can do (a clue, ready, a vote or a second vote after a tie)."""
    log = log or (lambda what: None)
    deadline = time.monotonic() + timeout
    seen = None
    while True:
        sit = page.js(SITUATION)
        assert time.monotonic() < deadline, f"the game did not end: {sit}"
        if sit is None:
            time.sleep(0.1)
            continue
        phase, rnd, nclues, me, can, vote, candidates = sit
        if (phase, rnd) != seen:
            seen = (phase, rnd)
            log(f"phase {phase} round {rnd}")
        if phase == "over":
            break
        if "clue" in can and page.count("#clue-input"):
            page.fill("#clue-input", "zorblat")
            page.click("#clue-input-send")
            _until(lambda n=nclues: page.state(f"s.view.phase !== 'clues' || (s.view.clues || []).length > {n}"),
                   "my clue taken", retry=lambda: page.count("#clue-input-send") and page.click("#clue-input-send"))
            log("clue given")
        elif "ready" in can and page.count("#ready-btn"):
            page.click("#ready-btn")
            _until(lambda: page.state("!(s.view.me.can || []).includes('ready')"),
                   "my ready taken", retry=lambda: page.count("#ready-btn") and page.click("#ready-btn"))
            log("ready")
        elif "vote" in can and vote is None and any(c != me for c in candidates):
            target = next(c for c in candidates if c != me)
            tap = f".pcard[data-pid='{target}'] .avatar"
            if not page.count(tap):
                time.sleep(0.1)   # the vote screen is being drawn
                continue
            page.click(tap)
            _until(lambda ph=phase: page.state(f"s.view.phase !== {ph!r} || s.view.me.vote != null"),
                   "my vote taken", retry=lambda t=tap: page.count(t) and page.click(t))
            log(f"voted ({phase})")
        else:
            time.sleep(0.1)
    page.wait("#end-title")
