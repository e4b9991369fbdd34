"""Issue 31, section 4, on the one-phone page (web/offline/): every screen of every engine
it offers, checked the way tests/browser/test_screen_walk.py checks the room's.

One Chromium page, one start of Pyodide: a whole game of each engine is played on it
(Intruso with Cupido, Vendicatore, Giudice and a Fantasma; Impostore's Classica in free
turns with a "Non conosco la parola"; Lupi Mannari with the seer and a wolf), and the walk stops at
every screen it has not met yet in that engine: the setup with that game's options, the
pass-the-phone screen, the card hidden and held, each private choice (Cupido's pair, the
Giudice's and the night's rounds of the phone, the seer's answer, the guess), every phase
of the table with its own control (the clue turns, the talk, the vote's call, its 3-2-1,
the tap on the most voted and the tie), "see a card again", the end screen with the
evening. The table's votes steer Intruso to the screens a plain game may skip (a tie
twice for the Giudice's round, the Fantasma's guess, the Vendicatore's pick). Each stop
is looked at:

- in every language of the manifest (game/langs/: it, fr, en, and es once its strings
  land), each at 360x640 and 390x844: no sideways overflow, no control under
  44x44 CSS px without the room around it (screens_check.phone_problems), no player's
  name cut short in the table's grids or the evening's standings, no "null",
  "undefined" or i18n key drawn as text;
- axe-core once per language, at one of the two sizes, turning from stop to stop (its
  rules read the markup, colours and names, which the width does not change): no serious
  or critical violation; there too a screenshot into test-artifacts/gallery/onephone-SIZE/
  (index.html lists them): every screen in every language, over both sizes.

Checking every (language, size) pair is cheap; axe and the screenshots are what cost,
so they are taken once a language a screen, not twice (the whole walk stays near 90 s
with three languages; a fourth adds about a third of the looks).

The language is changed on the screen itself (the topbar's select), as a player would:
the screen must stay the one it was (the phone's place in the round is not lost).

The game's seed is fixed (the page's one `crypto.getRandomValues` of a 1-number array)
so that the same roles come up on every run and the gallery is the same screens.
"""

from __future__ import annotations

import time

import pytest

import game
from tests.browser.harness import ui_langs
from tests.browser.onephone import COUNTDOWN_MS, launch, wait_js, wait_playable
from tests.browser.screens_check import Gallery, axe_problems, axe_source, phone_problems, report
from tests.browser.test_offline import built  # noqa: F401 (the fixture)
from tests.support.server_proc import ServerProc

# One worker for the module: its games share one page (one start of Pyodide).
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(300),
              pytest.mark.xdist_group("onephone_walk")]

LANGS = ui_langs()
SIZES = {"360x640": {"width": 360, "height": 640}, "390x844": {"width": 390, "height": 844}}
# Names at the page's longest (20 characters) beside short ones.
NAMES = ["Massimiliano Bartolo", "Ada", "Anne-Charlotte Dupré", "Bruno", "Giovanni Battista R.",
         "Carla", "Marie-Josèphe Leroy"]
SEED_JS = """(() => {
  // One seed per game, always the same ones: the walk meets the same screens each run.
  // Each test sets its own first one (SEEDS), whichever games this page played before.
  window.__walkSeedN = 0;
  const real = crypto.getRandomValues.bind(crypto);
  crypto.getRandomValues = (a) => {
    if (a instanceof Uint32Array && a.length === 1) {
      a[0] = 20261205 + 7919 * window.__walkSeedN++;
      return a;
    }
    return real(a);
  };
})();"""
# The seed each engine's game starts from (the walk's steering was written for these).
SEEDS = {"intruso": 0, "classica": 1, "lupi": 2}

# What makes one screen of the page differ from another: the page's screen, then the
# private screen's kind, or the table's phase with the control it offers.
SIGNATURE_JS = """() => {
  const q = (s) => document.querySelector(s);
  const screen = window.__onephone.screen;
  if (screen !== 'play') return screen;
  if (q('#again')) return q('#again-yes') ? 'again-confirm' : 'again-who';
  if (q('[data-pass]')) return 'pass';
  const p = q('[data-private]');
  if (p) return 'private-' + p.dataset.private + (q('#secret-card.revealed') ? '-held' : '')
    + (q('.pick-grid') ? '-pick' : '');
  const table = q('.table');
  if (!table) return 'play-other';
  const ctl = ['#countdown', '#countdown-start', '#word-keep', '#vote-confirm', '.pick-grid',
               '#turn-done', '#to-vote', '#go-on'].find((s) => q(s)) || 'none';
  return 'table-' + table.dataset.phase + '-' + ctl.replace(/[#.]/g, '');
}"""


# A player's name cut short in the table's grids: two "Marie-Jos…" cannot be told apart
# when the table taps the most voted (the page takes names of up to 20 characters).
NAMES_CUT_JS = """() => [...document.querySelectorAll('.grid .pname, #evening .pname')]
  .filter((e) => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1)
  .map((e) => `name cut: "${e.textContent}" ${e.scrollWidth} px in ${e.clientWidth}`)"""


# A missing value drawn as text ("null", "undefined", "NaN", a key for want of a string).
STRAY_JS = r"""() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent.trim();
    if (/^(null|undefined|NaN|\[object Object\])$|\b(null|undefined)\b|^[a-z_]+\.[a-z_.]+$/.test(text)
        && n.parentElement.getClientRects().length) out.push(`stray text: "${text.slice(0, 40)}"`);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def onephone(pw, tmp_path_factory, built):  # noqa: F811
    tmp = tmp_path_factory.mktemp("opwalk")
    with ServerProc(tmp / "s.db") as srv:
        ctx, page, errors = launch(pw, tmp / "profile", locale="it-IT")
        ctx.add_init_script(SEED_JS)
        try:
            page.goto(srv.url("/offline/"))
            wait_playable(page)
            page.on("dialog", lambda d: d.accept())   # "Non conosco la parola"'s confirm
            yield page, errors
        finally:
            ctx.close()


@pytest.fixture(scope="module")
def axe() -> str:
    return axe_source()


class Walk:
    """The stops of one engine's game: each new screen looked at in every language and size."""

    def __init__(self, page, axe: str, engine: str) -> None:
        self.page, self.axe, self.engine = page, axe, engine
        self.galleries = {size: Gallery(f"onephone-{size}") for size in SIZES}
        self.problems: dict[str, list[str]] = {}
        self.seen: list[str] = []
        self.looks = 0
        # The table's ballot number n -> a seat id (the most voted), a list (a tie between
        # them) or None (the first name): to steer the game to screens a plain game skips.
        self.vote = None

    def signature(self) -> str:
        return self.page.evaluate(SIGNATURE_JS)

    def look(self, hold=None) -> None:
        """Check the screen on show, if this engine's walk has not met it yet. `hold`:
        a function that presses the card again after a change of language."""
        sig = self.signature()
        if sig in self.seen:
            return
        # A new screen may be a flash on the way (the table's screen while the core
        # passes a night's time by itself): looked at once the core has answered
        # every call and the screen stays.
        while True:
            wait_js(self.page, "!window.__onephone.busy", step=0.05)
            time.sleep(0.05)
            if (now := self.signature()) == sig and not self.page.evaluate("window.__onephone.busy"):
                break
            sig = now
        if sig in self.seen:
            return
        self.seen.append(sig)
        n = len(self.seen)
        for i, lang in enumerate(LANGS):
            self._set_lang(lang, sig, hold)
            for size, viewport in SIZES.items():
                self.page.set_viewport_size(viewport)
                # From the top, as a screen opens (web/offline/app.js): scrolled, the
                # sticky topbar lies over the controls under it.
                self.page.evaluate("window.scrollTo(0, 0)")
                name = f"{self.engine}-{n:02d}-{sig}-{lang}"
                found = (phone_problems(self.page) + self.page.evaluate(NAMES_CUT_JS)
                         + self.page.evaluate(STRAY_JS))
                # axe and the photograph once per language, at the sizes in turn.
                if (n + i) % len(SIZES) == list(SIZES).index(size):
                    found += axe_problems(self.page, self.axe)
                    self.galleries[size].shot(self.page, name)
                self.problems[f"{name}@{size}"] = found
                self.looks += 1

    def _set_lang(self, lang: str, sig: str, hold) -> None:
        page = self.page
        if page.evaluate("document.documentElement.lang") != lang:
            page.select_option("#topbar select", lang)
            assert page.evaluate("document.documentElement.lang") == lang
            if hold:
                hold()
        # The screen is still the one it was, now in `lang`.
        end = time.monotonic() + 3
        while (now := self.signature()) != sig and time.monotonic() < end:
            time.sleep(0.05)
        assert now == sig, f"changing the language to {lang} turned {sig} into {now}"


def set_lang(page, lang: str) -> None:
    page.select_option("#topbar select", lang)


def setup(walk: Walk, names: list[str], preset: str, configure=None) -> None:
    page = walk.page
    page.evaluate(f"window.__walkSeedN = {SEEDS[preset]}")
    page.select_option("#opt-preset", preset)
    wait_js(page, f"document.querySelector('#opt-preset').value === '{preset}'")
    inputs = page.locator(".name-input")
    while inputs.count() < len(names):
        page.click("#add-player")
    while inputs.count() > len(names):
        page.click(".name-row .iconbtn")
    for i, name in enumerate(names):
        inputs.nth(i).fill(name)
    if configure:
        configure(page)
    walk.look()
    page.click("#start")
    page.wait_for_selector(".onephone-play")


def _moved(page, before: str) -> None:
    wait_js(page, "JSON.stringify(window.__onephone.record()?.log?.length ?? -1) !== "
            f"'{before}' || !!document.querySelector('#end')")


def play(walk: Walk, max_steps: int = 400) -> None:
    """Play the game to its end screen, looking at every screen on the way."""
    page = walk.page
    again_done = False
    votes = 0
    for _ in range(max_steps):
        walk.look()
        if page.locator("#end").count():
            # The end screen may have come after the look above (the core answered the
            # last action while the look waited): it is looked at too.
            walk.look()
            return
        before = page.evaluate("JSON.stringify(window.__onephone.record()?.log?.length ?? -1)")
        if page.locator("#pass-confirm").count():
            page.click("#pass-confirm")
            continue
        private = page.locator("[data-private]")
        if private.count():
            kind = private.get_attribute("data-private")
            if kind == "guess":
                page.fill("#guess-input", "zzzz")
                page.click("#guess-send")
                _moved(page, before)
                continue
            grid = page.locator(".pick-grid .avatar")
            if grid.count():
                need = 2 if "intoxicate" in (page.text_content(".private") or "") else 1
                for i in range(need):
                    grid.nth(i).click()
            if kind in ("card", "again"):
                _hold(page)
                walk.look(hold=lambda: (page.mouse.up(), _hold(page)))
                page.mouse.up()
                page.wait_for_selector("#secret-card:not(.revealed)")
            page.evaluate("document.querySelector('[data-private]').setAttribute('data-stale', '1')")
            page.click("#private-done")
            wait_js(page, "!document.querySelector('[data-stale]')")
            continue
        if not again_done and page.locator("#see-again").count():
            # "See a card again": who, then sure?, then back to the table.
            again_done = True
            page.click("#see-again")
            walk.look()
            page.locator("#again .pick-grid .avatar").first.click()
            walk.look()
            page.click("#again-no")
            continue
        clicked = page.evaluate("() => { for (const s of ['#turn-done', '#to-vote', '#go-on']) {"
                                " const b = document.querySelector(s); if (b) { b.click(); return s; } }"
                                " return null; }")
        if clicked:
            _moved(page, before)
            continue
        if page.locator("#countdown-start").count():
            walk.look()                        # the call to vote (if it came since the top)
            page.click("#countdown-start")
            walk.look()                        # "3"
            page.clock.run_for(COUNTDOWN_MS)
            page.wait_for_selector(".pick-grid .avatar, #word-keep", timeout=10000)
            walk.look()                        # the tap on the most voted (or change/keep)
            if page.locator("#word-keep").count():
                page.click("#word-keep")
                _moved(page, before)
                continue
            votes += 1
            picks = walk.vote(votes) if walk.vote else None
            tie = isinstance(picks, list)
            if page.locator("#tie-toggle").count():
                page.click("#tie-toggle")     # a tie: every tied name, then confirm
                walk.look()
                if not tie:
                    page.click("#tie-toggle")
            grid = page.locator(".pick-grid .avatar")
            named = [pid for pid in (picks if tie else [picks] if picks else [])
                     if page.locator(f".pick-grid .avatar[data-pid='{pid}']").count()]
            if len(named) < (2 if tie else 1):
                tie, picks = False, None      # not on this ballot: the first name
            if tie:
                for pid in picks:
                    page.click(f".pick-grid .avatar[data-pid='{pid}']")
                page.click("#vote-confirm")
            elif picks:
                page.click(f".pick-grid .avatar[data-pid='{picks}']")
            else:
                grid.first.click()
                if page.locator("#vote-confirm").count():   # the nomination: two places
                    grid.nth(1).click()
                    page.click("#vote-confirm")
            _moved(page, before)
            continue
        time.sleep(0.1)
    raise AssertionError(f"no end screen after {max_steps} steps: {walk.seen}")


def _hold(page) -> None:
    box = page.locator("#secret-card").bounding_box()
    page.mouse.move(box["x"] + 10, box["y"] + 10)
    page.mouse.down()
    page.wait_for_selector("#secret-card.revealed")


def _finish(walk: Walk, errors: list[str], must: set[str]) -> None:
    page = walk.page
    walk.page.set_viewport_size(SIZES["360x640"])
    page.click("#change-setup")
    page.wait_for_selector("#start")
    assert not errors, errors
    missing = must - set(walk.seen)
    assert not missing, (missing, walk.seen)
    assert not report(walk.problems), report(walk.problems)


def seats(page) -> dict[str, tuple[str, str | None, bool]]:
    """Each seat's (role, power, alive) now, from the page's record replayed by CPython."""
    r = page.evaluate("window.__onephone.record()")
    st = game.replay(r["preset"], r["options"], r["seed"], r["players"], r["log"],
                     started_at=r["started_at"], words=r["words"])
    return {pl.id: (pl.role, getattr(pl, "power", None), pl.alive) for pl in st.players}


def _intruso_votes(page):
    """First a tie of two plain Civili, twice (the revote's tie is the Giudice's: a round
    of the phone), then the Fantasma out (its last guess), the Vendicatore (its pick), then the first name."""
    def vote(n: int):
        now = seats(page)
        plain = [pid for pid, (role, power, alive) in now.items() if alive and role == "civile" and not power]
        judge = any(alive and power == "giudice" for _, power, alive in now.values())
        ghost = [pid for pid, (role, _, alive) in now.items() if alive and role == "fantasma"]
        if n <= 2 and judge and len(plain) >= 2:   # a tie, and a tie again at the revote
            return plain[:2]
        if ghost:
            return ghost[0]
        avenger = [pid for pid, (_, power, alive) in now.items() if alive and power == "vendicatore"]
        return avenger[0] if avenger else None   # its pick of who goes with it
    return vote


def _undercover(page) -> None:
    page.select_option("#opt-fantasmi", "1")
    wait_js(page, "document.querySelector('#opt-fantasmi').value === '1'")
    page.click("#opt-powers-pick")
    for power in ("cupido", "vendicatore", "giudice"):
        page.check(f".settings input[type=checkbox][value={power}]")
        wait_js(page, f"document.querySelector('.settings input[value={power}]').checked")


def test_intruso_every_screen_fits_a_phone(onephone, axe):
    """Issue 31 section 4: Intruso on one phone (undercover engine, with powers and a
    Fantasma), every screen at 360x640 and 390x844 in it/fr/en, axe-core."""
    page, errors = onephone
    walk = Walk(page, axe, "intruso")
    walk.vote = _intruso_votes(page)
    setup(walk, NAMES, "intruso", _undercover)
    play(walk)
    _finish(walk, errors, {"setup", "pass", "private-card", "private-card-held", "private-card-pick",
                           "table-clues-turn-done", "table-vote-countdown-start",
                           "table-vote-pick-grid", "table-vote-vote-confirm", "private-secret-pick",
                           "private-secret-answer", "private-guess", "private-avenge-pick",
                           "again-who", "again-confirm", "end"})


def test_impostore_every_screen_fits_a_phone(onephone, axe):
    """Issue 31 section 4: Impostore (Classica, free turns) on one phone, with "Non conosco
    la parola" voted aloud: every screen at both phone sizes in it/fr/en, axe-core."""
    page, errors = onephone
    walk = Walk(page, axe, "impostore")
    # Free turns: the app says who starts and the order (the called turns are Intruso's).
    setup(walk, NAMES[:5], "classica", lambda p: p.select_option("#opt-turns", "free"))
    page.click("#pass-confirm")
    page.click("#ask-word")
    page.wait_for_selector("#asked-note")
    play(walk)
    _finish(walk, errors, {"setup", "pass", "private-card", "private-card-held", "private-guess",
                           "table-word_vote-word-keep", "table-clues-to-vote", "table-vote-pick-grid",
                           "end"})


def test_lupi_every_screen_fits_a_phone(onephone, axe):
    """Issue 31 section 4: Lupi Mannari on one phone (the app as moderator, the seer, one
    wolf): every screen at both phone sizes in it/fr/en, axe-core."""
    page, errors = onephone
    walk = Walk(page, axe, "lupi")
    setup(walk, NAMES[:5], "lupi", lambda p: p.select_option("#opt-lupi", "1"))
    play(walk)
    _finish(walk, errors, {"setup", "pass", "private-card", "private-secret-pick",
                           "private-secret-answer", "table-nomination-countdown-start",
                           "table-lynch-pick-grid", "end"})
