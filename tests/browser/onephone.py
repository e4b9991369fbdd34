"""Drive the one-phone page (web/offline/): a generic player of its screens that passes the
phone, holds cards, taps the table's vote and plays a whole game to its end screen,
whatever the engine, in real Chromium (Playwright, on its own clock) and, by taps over the
drivers' common helpers, in Firefox and WebKit; and a replay of the page's record under
CPython."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import game
from tests.browser.harness import BASE_ARGS, CHROMIUM, PHONE, wait_until
from tests.support.server_proc import ServerProc

COUNTDOWN_MS = 3 * 800  # web/offline/play.js: "3", "2", "1", 800 ms each
ROOT = Path(__file__).resolve().parents[2]
OFFLINE_BUILD = ROOT / "offline-build"


def build_offline(out: Path, env: dict[str, str] | None = None) -> dict:
    """scripts/offline_assets.py run into `out` (this worktree's core packed, with `env`
    added to the environment), Pyodide's files and the lemma cache taken from
    offline-build/ (linked); its manifest."""
    if not (OFFLINE_BUILD / "manifest.json").is_file():
        pytest.fail("offline-build/ is missing: ./scripts/setup.sh builds it")
    pyodide = json.loads((OFFLINE_BUILD / "manifest.json").read_text())["pyodide_dir"]
    (out / pyodide).mkdir(parents=True)
    for path in sorted((OFFLINE_BUILD / pyodide).iterdir()):  # the .gz beside them too
        (out / pyodide / path.name).symlink_to(path)
    cache = OFFLINE_BUILD / "build-cache"
    if cache.is_dir():
        (out / "build-cache").symlink_to(cache, target_is_directory=True)
    env = {**os.environ, **(env or {}), "SUSSURRO_OFFLINE_DIR": str(out), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "offline_assets.py")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads((out / "manifest.json").read_text())


def launch(pw, profile: Path, locale: str = "en-GB"):
    """A phone-sized Chromium with a profile kept on disk (the service worker and the
    stored game survive closing it: a cold start reopens the same profile)."""
    profile.mkdir(parents=True, exist_ok=True)
    ctx = pw.chromium.launch_persistent_context(
        user_data_dir=str(profile), executable_path=CHROMIUM, headless=True,
        args=[a for a in BASE_ARGS if "fake" not in a], viewport=PHONE, locale=locale,
    )
    # The page's timers run on Playwright's clock: it keeps real time, and the vote's
    # 3-2-1 can be run through at once (`countdown`) instead of waited for.
    ctx.clock.install()
    page = ctx.pages[0] if ctx.pages else ctx.new_page()
    page.set_default_timeout(20000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, errors


def wait_js(page, expr: str, timeout: float = 20_000, step: float = 0.1) -> None:
    """Until the JavaScript expression `expr` is truthy in the page (timeout in ms).

    Polled with `page.evaluate`, which the page's Content-Security-Policy does not
    govern; Playwright's `wait_for_function` compiles its predicate from a string in
    the page, which a policy without 'unsafe-eval' (the server's) refuses.
    """
    end = time.monotonic() + timeout / 1000
    while True:
        try:
            if page.evaluate(expr):
                return
        except Exception as exc:  # a navigation (reload) between two polls
            if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
                raise
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {expr!r}")
        time.sleep(step)


def wait_playable(page, timeout: float = 120_000) -> None:
    """Until the page shows a screen of the game (Pyodide and the core loaded)."""
    wait_js(page, "window.__onephone && ['setup', 'play', 'end'].includes(window.__onephone.screen)",
            timeout=timeout)


def setup_game(page, names: list[str], preset: str, selects: dict[str, str] | None = None) -> None:
    """Type the names, choose the game (and `selects`: {select's id: value} of its
    options form), start it."""
    inputs = page.locator(".name-input")
    while inputs.count() < len(names):
        page.click("#add-player")
    for i, name in enumerate(names):
        inputs.nth(i).fill(name)
    page.select_option("#opt-preset", preset)
    wait_js(page, f"document.querySelector('#opt-preset').value === '{preset}'")
    for sel, value in (selects or {}).items():
        page.select_option(f"#{sel}", value)
        wait_js(page, f"document.querySelector('#{sel}').value === '{value}'")
    page.click("#start")
    page.wait_for_selector(".onephone-play")


def step(page, vote: bool = True) -> str:
    """Do the one thing the screen asks for; return what it was ("end" at the end).
    With vote=False a vote screen is left alone ("countdown"), for a test to do it."""
    if page.locator("#end").count():
        return "end"
    if page.locator("#pass-confirm").count():
        page.click("#pass-confirm")
        return "pass"
    private = page.locator("[data-private]")
    if private.count():
        kind = private.get_attribute("data-private")
        if kind == "guess":
            page.fill("#guess-input", "zzzz")
            page.click("#guess-send")
            return "guess"
        grid = page.locator(".pick-grid .avatar")
        if grid.count():
            need = 2 if "intoxicate" in (page.text_content(".private") or "") else 1
            for i in range(need):
                grid.nth(i).click()
        if kind in ("card", "again"):
            # The card shows only while held.
            card = page.locator("#secret-card")
            box = card.bounding_box()
            page.mouse.move(box["x"] + 10, box["y"] + 10)
            page.mouse.down()
            page.wait_for_selector("#secret-card.revealed")
            page.mouse.up()
            page.wait_for_selector("#secret-card:not(.revealed)")
        # The core may answer asynchronously (a card's `seen`): wait for the screen to move on.
        page.evaluate("document.querySelector('[data-private]').setAttribute('data-stale', '1')")
        page.click("#private-done")
        wait_js(page, "!document.querySelector('[data-stale]')")
        return kind
    for button, what in (("#turn-done", "turn"), ("#to-vote", "ready"), ("#go-on", "go_on")):
        # One tap, found and made in one go in the page: the table's screen may be redrawn
        # by its clock between a look and a click, and a loaded machine can keep
        # Playwright's "stable" check waiting.
        if page.evaluate("s => { const b = document.querySelector(s); if (b) b.click(); return !!b }",
                         button):
            return what
    if page.locator("#countdown-start").count():
        if not vote:
            return "countdown"
        countdown(page)
        page.wait_for_selector(".pick-grid .avatar, #word-keep", timeout=10000)
        if page.locator("#word-keep").count():  # "Non conosco la parola", voted aloud
            page.click("#word-keep")
            return "vote"
        grid = page.locator(".pick-grid .avatar")
        grid.first.click()  # one tap on the most voted
        if page.locator("#vote-confirm").count():  # the werewolf nomination: two places
            grid.nth(1).click()
            page.click("#vote-confirm")
        return "vote"
    time.sleep(0.1)
    return "wait"


def countdown(page) -> None:
    """Start the vote's 3-2-1 and let its 2.4 s pass on the page's clock at once: the page
    says each number and then shows the table's ballot, as it would in real time (the
    game's own clock moves on by the same 2.4 s)."""
    page.click("#countdown-start")
    page.clock.run_for(COUNTDOWN_MS)


def play_to_end(page, max_steps: int = 400, reload_at: int | None = None) -> list[str]:
    """Play the game on the page to its end screen; reload once at step `reload_at`."""
    done: list[str] = []
    for i in range(max_steps):
        if reload_at is not None and i == reload_at:
            page.reload()
            wait_playable(page)
            done.append("reload")
        before = page.evaluate("JSON.stringify(window.__onephone.record()?.log?.length ?? -1)")
        what = step(page)
        done.append(what)
        if what == "end":
            return done
        if what in ("turn", "ready", "vote", "guess", "go_on"):
            # The core answers asynchronously: wait for the screen to move on.
            wait_js(page,
                    f"JSON.stringify(window.__onephone.record()?.log?.length ?? -1) !== '{before}'"
                    " || document.querySelector('#end')", timeout=20000)
    raise AssertionError(f"no end screen after {max_steps} steps: {done[-30:]}")


def replay_bytes(record: dict) -> bytes:
    """The page's game replayed by CPython's core from its record."""
    state = game.replay(record["preset"], record["options"], record["seed"], record["players"],
                        record["log"], started_at=record["started_at"], words=record["words"])
    return game.state_bytes(state)


# ---------------------------------------------------------------- any driver: Firefox, WebKit
#
# The same player over the drivers' common helpers (js, count, click, fill: see
# tests/browser/firefox.py and webkit.py), with real taps and the page's own clock: the
# vote's 3-2-1 takes its real 2.4 s.

# One round trip: what the one-phone screen asks for now.
ONEPHONE_SCREEN = """(() => {
  const q = (sel) => document.querySelector(sel);
  if (q('#end')) return ['end'];
  if (q('#pass-confirm')) return ['pass'];
  const priv = q('[data-private]');
  if (priv) return ['private', priv.dataset.private, document.querySelectorAll('.pick-grid .avatar').length,
                    (priv.textContent || '').includes('intoxicate') ? 2 : 1, Boolean(q('#secret-card'))];
  for (const b of ['#turn-done', '#to-vote', '#go-on']) if (q(b)) return ['button', b];
  if (q('#countdown-start')) return ['countdown'];
  return ['wait'];
})()"""
LOG_LENGTH = "JSON.stringify(window.__onephone.record()?.log?.length ?? -1)"


def _until_js(page, expr: str, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not page.js(expr):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def setup_by_taps(page, names: list[str], preset: str) -> None:
    """The setup screen filled in as a person would: the names typed, the game chosen,
    "start" tapped; until the table's first screen."""
    while page.count(".name-input") < len(names):
        page.click("#add-player")
    for i, name in enumerate(names):
        page.fill(f".name-row:nth-child({i + 1}) .name-input", name)
    page.js("(() => { const el = document.querySelector('#opt-preset'); el.value = args[0];"
            " el.dispatchEvent(new Event('change', {bubbles: true})); return true; })()", preset)
    _until_js(page, f"document.querySelector('#opt-preset').value === {preset!r}", "the preset")
    page.click("#start")
    _until_js(page, "document.querySelector('.onephone-play')", "the game's first screen")


def step_by_taps(page) -> str:
    """Do the one thing the screen asks for, by taps; return what it was ("end" at the end)."""
    sit = page.js(ONEPHONE_SCREEN)
    what = sit[0]
    if what in ("end", "wait"):
        if what == "wait":
            time.sleep(0.05)
        return what
    if what == "pass":
        page.click("#pass-confirm")
        return "pass"
    if what == "private":
        _, kind, grid, need, card = sit
        if kind == "guess":
            page.fill("#guess-input", "zzzz")
            page.click("#guess-send")
            return "guess"
        for i in range(min(grid, need)):
            page.click(f".pick-grid .avatar:nth-child({i + 1})")
        if card:
            # A tap shows the card for a moment (web/js/card.js): the player looks.
            page.click("#secret-card")
            _until_js(page, "document.querySelector('#secret-card.revealed')", "the card shown")
        # The core may answer asynchronously (a card's `seen`): the screen moves on.
        page.js("(() => { document.querySelector('[data-private]').setAttribute('data-stale', '1');"
                " return true; })()")
        page.click("#private-done")
        _until_js(page, "!document.querySelector('[data-stale]')", f"past the {kind} screen")
        return kind
    if what == "button":
        page.click(sit[1])
        return {"#turn-done": "turn", "#to-vote": "ready", "#go-on": "go_on"}[sit[1]]
    # The vote: the 3-2-1 in real time, then one tap on the most voted.
    page.click("#countdown-start")
    _until_js(page, "document.querySelector('.pick-grid .avatar, #word-keep')", "the ballot",
              timeout=10)
    if page.count("#word-keep"):
        page.click("#word-keep")
        return "vote"
    page.click(".pick-grid .avatar:nth-child(1)")
    if page.count("#vote-confirm"):   # the werewolf nomination: two places
        page.click(".pick-grid .avatar:nth-child(2)")
        page.click("#vote-confirm")
    return "vote"


def play_by_taps(page, timeout: float = 150.0, log=None) -> list[str]:
    """Play the one-phone game on `page` to its end screen, by taps (bounded by `timeout`)."""
    log = log or (lambda what: None)
    done: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = page.js(LOG_LENGTH)
        what = step_by_taps(page)
        if what != "wait":
            done.append(what)
            log(what)
        if what == "end":
            return done
        if what in ("turn", "ready", "vote", "guess", "go_on"):
            _until_js(page, f"{LOG_LENGTH} !== {before!r} || document.querySelector('#end')",
                      f"the core's answer to {what}")
    raise AssertionError(f"no end screen in {timeout} s: {done[-30:]}")


def same_bytes_offline(page) -> dict:
    """The game the page played, replayed by CPython's core to the same bytes, over."""
    record = page.js("window.__onephone.record()")
    browser_bytes = page.js("window.__onephone.stateBytes()").encode("utf-8")
    assert replay_bytes(record) == browser_bytes
    assert json.loads(browser_bytes)["phase"] == "over"
    return record


def offline_whole_game(driver, db: Path, log, *, ready_text: str | None = None,
                       start_timeout: float = 120.0) -> None:
    """With `driver` (Firefox's or WebKit's): the one-phone page kept for offline use, the
    server stopped, the page served by its service worker alone, and a whole Classica of
    three played on it by taps to its end screen, replayed by CPython to the same bytes."""
    if not (OFFLINE_BUILD / "manifest.json").is_file():
        pytest.fail("offline-build/ is missing: ./scripts/setup.sh builds it")
    with ServerProc(db) as srv:
        url = srv.url("/offline/")
        driver.goto(url)
        wait_until(lambda: driver.js("document.querySelector('#offline-status')?.dataset.ready")
                   == "yes", timeout=120, what="ready for offline use")
        if ready_text is not None:
            assert driver.text("#offline-status") == ready_text
        log("ready for offline use")
    # The server is gone: the service worker alone serves the page and the core. (The
    # first visit's own start of the core is not waited for: the offline start below is
    # the same code from the cache, and a core's start is most of this test's time.)
    driver.goto(url)
    wait_until(lambda: driver.js("window.__onephone && window.__onephone.screen") == "setup",
               timeout=start_timeout, what="the one-phone page offline")
    assert driver.count("#opt-preset option") >= 3
    log("setup screen offline")
    setup_by_taps(driver, ["Ada", "Bruno", "Carla"], "classica")
    steps = play_by_taps(driver)
    assert {"pass", "card", "turn", "vote"} <= set(steps), steps
    assert driver.js("document.querySelector('#outcome')?.dataset.outcome") in (
        "innocents", "impostors")
    log(f"end screen offline: {' '.join(steps)}")
    same_bytes_offline(driver)
    assert not driver.errors, driver.errors
