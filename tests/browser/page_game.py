"""Whole room games played by one page of any engine (Firefox over BiDi, WebKit over
WebDriver: both drivers offer js/state/count/fill/click, `args[i]` in js), tapping like a
player, the bots playing the other seats: Intruso (a clue on its turn, ready in the
debate, a vote for someone else); Impostore and Lupi Mannari with the screen checked at
each phase against the view (`check_screen`: the phase shown and what the view allows).

Speed (issue 32 follow-up): every phase here ends by the players' actions, never by a
timer. The host's table has no powers and no Fantasma (`quick_table`), so no seat waits
for a power's or a guess's timer (30 to 45 s each) that this page would not play; one
script call reads the page's whole situation per poll; a tap whose effect does not show
is tapped again instead of waiting for the phase's timer. (Lupi Mannari's night phases
always last their timer: 5 s each at the least, `lupi_table`.)
"""

from __future__ import annotations

import json
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


# ---------------------------------------------------------------- any engine's room game

def choose(page, selector: str, value: str) -> None:
    """Set a <select> (or a field) as a person's pick would, with its `change` event."""
    page.js("(() => { const el = document.querySelector(args[0]); el.value = args[1];"
            " el.dispatchEvent(new Event('change', {bubbles: true})); return true; })()",
            selector, value)


def create_room(page, base_url: str, name: str, preset: str) -> str:
    """Open the home page, choose the game, create the room as `name`: its code."""
    page.goto(base_url)
    page.fill("#name", name)
    choose(page, "#preset", preset)   # read when the room is created
    page.click("#create-btn")
    _until(lambda: page.count("#room-code") > 0, "the room", timeout=20,
           retry=lambda: page.count("#create-btn") and page.click("#create-btn"), retry_after=5.0)
    return page.text("#room-code").strip()


def lupi_table(page, timers: dict[str, int]) -> None:
    """The host's Lupi Mannari form: one wolf (four seats), then each timer typed, each
    waited for in the room's settings (the form is redrawn by every change)."""
    choose(page, "#opt-lupi", "1")
    _until(lambda: page.state("s.room.settings.options.lupi") == 1, "one wolf")
    for key, seconds in timers.items():
        choose(page, f"#opt-timer-{key}", str(seconds))
        _until(lambda k=key, n=seconds: page.state(f"s.room.settings.options.timers.{k}") == n,
               f"the {key} timer at {seconds} s")


# One round trip: the view's facts and which of `args[0]` (selectors) are shown now.
SCREEN = """(() => {
  const s = window.__sussurro && window.__sussurro.state;
  const v = s && s.view;
  if (!v || !v.phase) return null;
  const me = v.me || {};
  const shown = (sel) => Array.from(document.querySelectorAll(sel)).some((el) => el.getClientRects().length > 0);
  const play = document.querySelector('.screen.game:not([hidden])');
  return {game: v.game, phase: v.phase, round: v.round ?? null, day: v.day ?? null, turn: v.turn ?? null,
          defender: v.defender ?? null, me: me.id ?? null, role: me.role ?? null,
          alive: me.alive !== false, can: me.can || [], vote: me.vote ?? null,
          word_vote: me.word_vote ?? null, bite: me.bite ?? null, candidates: v.candidates || [],
          ready: Boolean((v.players || []).find((p) => p.id === me.id)?.ready),
          shown_phase: play?.querySelector('.phase-name')?.dataset.phase ?? null,
          night: Boolean(play && play.classList.contains('is-night')),
          visible: Object.fromEntries(JSON.parse(args[0]).map((sel) => [sel, shown(sel)]))};
})()"""

IMPOSTORE_SELECTORS = [
    "#secret-card", "#seen-btn", "#seen-done", "#word-vote-title", "#word-yes", ".panel .order",
    "#done-btn", "#clues-ready-btn", "#my-vote", "#runoff-among", "#guess-input", ".panel .waiting",
    ".pcard.pickable .avatar", "#end-title", "#end-word", ".end-row",
]
LUPI_SELECTORS = [
    "#narration .say", "#secret-card", "#peek-confirm", "#my-bite", ".lupi-panel .waiting",
    "#ready-btn", "#ready-done", "#my-vote", "#defence-done", ".lynch-choices button",
    ".pcard.pickable .avatar", "#end-title", "#end-side", "#deaths",
]


def impostore_screen(sit: dict) -> list[str]:
    """What the Impostore screen must show for this view (web/js/screens/impostor.js)."""
    phase, can = sit["phase"], sit["can"]
    if phase == "over":
        return ["#end-title", "#end-word", ".end-row"]
    need = ["#secret-card"]
    if phase == "card":
        need.append("#seen-done" if sit["ready"] else "#seen-btn")
    elif phase == "word_vote":
        need += ["#word-vote-title", "#word-yes"]
    elif phase == "clues":
        need.append(".panel .order")
        if sit["alive"] and "done" in can:
            need.append("#done-btn")
        elif sit["alive"] and sit["turn"]:
            need.append(".panel .waiting")
    elif phase in ("vote", "runoff"):
        if phase == "runoff":
            need.append("#runoff-among")
        if sit["alive"]:
            need.append("#my-vote")
        if "vote" in can and any(c != sit["me"] for c in sit["candidates"]):
            need.append(".pcard.pickable .avatar")
    elif phase == "guess":
        need.append("#guess-input" if "guess" in can else ".panel .waiting")
    return need


def lupi_screen(sit: dict) -> list[str]:
    """What the Lupi Mannari screen must show for this view (web/js/screens/lupi*.js)."""
    phase, can = sit["phase"], sit["can"]
    if phase == "over":
        return ["#end-title", "#end-side"]
    need = ["#narration .say", "#secret-card", "#deaths"]
    if not sit["alive"] and phase in ("night", "seer", "wolves", "day"):
        return need + [".lupi-panel .waiting"]
    if phase == "seer" and "peek" in can:
        need.append("#peek-confirm")
    elif phase == "wolves" and sit["role"] == "lupo":
        need.append("#my-bite")
        if "bite" in can:
            need.append(".pcard.pickable .avatar")
    elif phase in ("night", "seer", "wolves"):
        need.append(".lupi-panel .waiting")
    elif phase == "day":
        need.append("#ready-done" if sit["ready"] else "#ready-btn")
    elif phase == "nomination":
        need.append("#my-vote")
        if "vote" in can and sit["vote"] is None:
            need.append(".pcard.pickable .avatar")
    elif phase == "defence":
        need.append("#defence-done" if sit["defender"] == sit["me"] and "ready" in can
                    else ".lupi-panel .waiting")
    elif phase == "lynch" and "vote" in can:
        need.append(".lynch-choices button")
    return need


NIGHT = ("night", "seer", "wolves")


def check_screen(sit: dict, need: list[str], night: bool | None = None) -> None:
    """The page shows the view's phase and what it calls for (an outcome, not a timing:
    the view and the page are read in the same script call)."""
    key = (sit["phase"], sit["round"] if sit["round"] is not None else sit["day"])
    if sit["phase"] != "over":
        assert sit["shown_phase"] == sit["phase"], (key, sit["shown_phase"])
    missing = [sel for sel in need if not sit["visible"][sel]]
    assert not missing, (key, "not shown:", missing, sit)
    if night is not None:
        assert sit["night"] == night, (key, "night" if night else "day", sit["night"])


def _sit(page, selectors: list[str]) -> dict | None:
    return page.js(SCREEN, json.dumps(selectors))


def play_impostore_page(page, timeout: float = 120.0, log=None) -> list[str]:
    """Play `page`'s seat of an Impostore game from the deal to the end screen, checking
    at each phase (and each turn) that the screen shows it: the held card, the word vote,
    the called turn, the vote and runoff, the guess, the end. Returns the phases seen."""
    log = log or (lambda what: None)
    deadline = time.monotonic() + timeout
    seen: list = []
    phases: list[str] = []
    while True:
        sit = _sit(page, IMPOSTORE_SELECTORS)
        assert time.monotonic() < deadline, f"the game did not end: {sit}"
        if sit is None:
            time.sleep(0.1)
            continue
        assert sit["game"] == "impostor", sit["game"]
        phase, can = sit["phase"], sit["can"]
        key = (phase, sit["round"], sit["turn"], tuple(can))
        if key != (seen[-1] if seen else None):
            check_screen(sit, impostore_screen(sit))
            seen.append(key)
            if not phases or phases[-1] != phase:
                phases.append(phase)
                log(f"phase {phase} round {sit['round']}: its screen shown")
        if phase == "over":
            return phases
        if "seen" in can and sit["visible"]["#seen-btn"]:
            # The card is tapped first (shown for a moment), as a player looks at it.
            page.click("#secret-card")
            _until(lambda: page.js("document.querySelector('#secret-card.revealed #my-role') !== null"),
                   "my card shown")
            page.click("#seen-btn")
            _until(lambda: page.state("s.view.phase !== 'card' || !(s.view.me.can || []).includes('seen')"),
                   "my card seen", retry=lambda: page.count("#seen-btn") and page.click("#seen-btn"))
            log("card seen")
        elif "word_vote" in can and sit["word_vote"] is None:
            page.click("#word-yes")
            _until(lambda: page.state("s.view.phase !== 'word_vote' || s.view.me.word_vote != null"),
                   "my word vote", retry=lambda: page.count("#word-yes") and page.click("#word-yes"))
            log("word vote")
        elif "done" in can and sit["visible"]["#done-btn"]:
            turn = sit["turn"]
            page.click("#done-btn")
            _until(lambda t=turn: page.state(f"s.view.phase !== 'clues' || s.view.turn !== {t!r}"),
                   "my turn done", retry=lambda: page.count("#done-btn") and page.click("#done-btn"))
            log("my turn done")
        elif "ready" in can and sit["visible"]["#clues-ready-btn"]:
            page.click("#clues-ready-btn")
            _until(lambda: page.state("!(s.view.me.can || []).includes('ready')"), "my clues ready")
        elif "vote" in can and sit["vote"] is None and any(c != sit["me"] for c in sit["candidates"]):
            target = next(c for c in sit["candidates"] if c != sit["me"])
            tap = f".pcard[data-pid='{target}'] .avatar"
            page.click(tap)
            _until(lambda ph=phase: page.state(f"s.view.phase !== {ph!r} || s.view.me.vote != null"),
                   "my vote taken", retry=lambda t=tap: page.count(t) and page.click(t))
            log(f"voted ({phase})")
        elif "guess" in can and sit["visible"]["#guess-input"]:
            page.fill("#guess-input", "zorblat")
            page.click("#guess-input-send")
            _until(lambda: page.state("s.view.phase !== 'guess'"), "my guess taken")
            log("guessed")
        else:
            time.sleep(0.05)


def _tap_in_phase(page, selector: str, phase: str) -> bool:
    """Tap `selector` during `phase`: False if the phase (a night's 5 s) ended meanwhile and
    took the choice with it, as it does for a slow player; any other miss fails."""
    try:
        page.click(selector)
    except (AssertionError, RuntimeError):
        if page.state("s.view.phase") == phase:
            raise
        return False
    return True


def play_lupi_page(page, timeout: float = 150.0, log=None) -> list[str]:
    """Play `page`'s card of a Lupi Mannari game (the app as moderator) to the end screen,
    checking at each phase that the screen shows it: the dark night for every card, the
    seer's look, the wolves' bite, the day's ready, the nomination, the defence, the lynch,
    the end. Returns the phases seen."""
    log = log or (lambda what: None)
    deadline = time.monotonic() + timeout
    seen: list = []
    phases: list[str] = []
    while True:
        sit = _sit(page, LUPI_SELECTORS)
        assert time.monotonic() < deadline, f"the game did not end: {sit}"
        if sit is None:
            time.sleep(0.1)
            continue
        assert sit["game"] == "werewolf", sit["game"]
        phase, can = sit["phase"], sit["can"]
        key = (phase, sit["day"], sit["defender"], tuple(can), sit["alive"])
        if key != (seen[-1] if seen else None):
            check_screen(sit, lupi_screen(sit), None if phase == "over" else phase in NIGHT)
            seen.append(key)
            if not phases or phases[-1] != phase:
                phases.append(phase)
                log(f"phase {phase} day {sit['day']} ({sit['role']}"
                    f"{'' if sit['alive'] else ', a ghost'}): its screen shown")
        if phase == "over":
            return phases
        if "peek" in can:
            if _tap_in_phase(page, ".pcard.pickable .avatar", "seer") \
                    and _tap_in_phase(page, "#peek-confirm", "seer"):
                _until(lambda: page.state("s.view.phase !== 'seer' || !(s.view.me.can || []).includes('peek')"),
                       "my look", retry=lambda: page.count("#peek-confirm") and page.click("#peek-confirm"))
                log("looked")
        elif "bite" in can and sit["bite"] is None:
            if _tap_in_phase(page, ".pcard.pickable .avatar", "wolves"):
                _until(lambda: page.state("s.view.phase !== 'wolves' || s.view.me.bite != null"), "my bite")
                log("bit")
        elif "ready" in can and phase == "day" and not sit["ready"]:
            page.click("#ready-btn")
            _until(lambda: page.state("s.view.phase !== 'day' || !(s.view.me.can || []).includes('ready')"),
                   "my ready", retry=lambda: page.count("#ready-btn") and page.click("#ready-btn"))
            log("ready")
        elif "ready" in can and phase == "defence" and sit["defender"] == sit["me"]:
            page.click("#defence-done")
            _until(lambda d=sit["defender"]: page.state(f"s.view.phase !== 'defence' || s.view.defender !== {d!r}"),
                   "my defence done")
            log("defended")
        elif "vote" in can and sit["vote"] is None and phase in ("nomination", "lynch"):
            tap = ".pcard.pickable .avatar" if phase == "nomination" else ".lynch-choices button"
            page.click(tap)
            _until(lambda ph=phase: page.state(f"s.view.phase !== {ph!r} || s.view.me.vote != null"),
                   "my vote taken")
            log(f"voted ({phase})")
        else:
            time.sleep(0.05)
