"""Whole Lupi Mannari games in real Chromium against the real server, bots for the rest of the
table (real WebRTC voices, tones for mics):

- with the app as moderator: the page's player sets the game up, plays whatever card they
  are dealt through the screen (looks, bites, ready, names, defends, lynches) and reaches
  the end with every card shown; the narration is on screen at every phase; by day the page
  hears the living bots, at night it hears no wolf (unless the page's player is the wolf);
- with a human moderator: the page is the host and the moderator, holds no card, sees every
  card on the grid and every night choice, moves every phase on with its button (the
  seer's phase excepted), and reaches the end.

Short timers keep them lean: the bots act at once and the page as soon as it can.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from client.rtc_peer import Tone
from tests.browser.bot_thread import BotThread, lupi_policy
from tests.browser.harness import create_room, launch_player, wait_until

# A page and bots with voice through a whole game load both cores: it runs alone (solo, see
# tests/conftest.py).
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300), pytest.mark.solo]

TIMERS = {"night": 5, "seer": 5, "wolves": 8, "day": 60, "vote": 60, "defence": 30}
BOT_TONES = [700.0, 960.0, 1300.0, 1700.0]
HEARD_DB = -50.0
SILENT_DB = -45.0


def set_options(p, options: dict) -> None:
    """The host's lobby form, driven like a host would (selects and inputs), until the
    room holds every timer typed (a lost edit would fail here, not as a stalled game)."""
    page = p.page
    page.select_option("#opt-preset", "lupi")
    page.wait_for_selector("#opt-moderator")
    for key, value in options.items():
        if key == "lupi":
            page.select_option("#opt-lupi", str(value))
        elif key == "moderator":
            page.select_option("#opt-moderator", value)
        elif key == "timers":
            for name, seconds in value.items():
                page.fill(f"#opt-timer-{name}", str(seconds))
                page.dispatch_event(f"#opt-timer-{name}", "change")
    timers = options.get("timers", {})
    wait_until(lambda: (p.state("s.room.settings.options.timers") or {}) | timers
               == p.state("s.room.settings.options.timers"), what=f"the room holds {timers}")
    page.wait_for_timeout(300)


# Every phase the page was sent, recorded as the socket delivers it (polling the page's
# state could miss a phase the bots close within a fraction of a second).
PHASE_LOG = """
  window.__phases = [];
  const Real = window.WebSocket;
  window.WebSocket = class extends Real {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        try { const m = JSON.parse(e.data); if (m.type === "view") window.__phases.push(m.view.phase); }
        catch { /* not JSON */ }
      });
    }
  };
"""


def phases_sent(p) -> set[str]:
    return set(p.page.evaluate("window.__phases"))


def assert_every_phase(p) -> None:
    """The game went through every phase. A view is the player's latest picture: one still
    queued when a newer one comes is replaced (server/wire/connection.py), so a ballot the bots
    close within a moment (the nomination, the lynch with one voter) may never reach a
    loaded page's socket. The phases that last seconds, or wait for the page, must all have
    been shown; the two ballots are proven by what only they lead to: a defence (entered
    from the nomination alone) and a death by lynching in the result."""
    shown = phases_sent(p)
    assert {"night", "seer", "wolves", "day", "defence", "over"} <= shown, shown
    deaths = (p.view() or {}).get("result", {}).get("deaths", [])
    assert any(d["cause"] == "lynched" and d["day"] == 1 for d in deaths), deaths


def seat_bots(srv, bots: BotThread, code: str, n: int) -> list:
    return bots.join(srv.base_url, code, [(f"Bot{i}", Tone(BOT_TONES[i])) for i in range(n)])


def act_in_page(p, done: set) -> None:
    """Do, through the screen, what my card allows now (once per phase)."""
    v = p.view()
    if not v or v.get("phase") == "over" or not v.get("me"):
        return
    me, phase = v["me"], v["phase"]
    key = (v["day"], phase, v.get("defender"))
    can = me.get("can") or []
    if key in done or not can:
        return
    page = p.page
    if "advance" in can:
        return  # the moderator's test moves on by itself
    clicks = _clicks(can, phase)
    if not clicks:
        return
    try:
        for selector in clicks:
            page.click(selector, timeout=CLICK_MS)
    except PlaywrightTimeout:
        # A short phase (the seer's 5 s, the wolves' 8 s) may end while a loaded machine
        # clicks: then the choice is simply gone, as for a slow player. Otherwise it is a
        # failure.
        now = p.view() or {}
        if (now.get("day"), now.get("phase"), now.get("defender")) == key:
            raise
    done.add(key)


CLICK_MS = 10_000
PICK = ".pcard.pickable .avatar >> nth=0"


def _clicks(can: list[str], phase: str) -> list[str]:
    """What to click, in order, for what `can` allows in `phase` (none: nothing to do)."""
    if "peek" in can:
        return [PICK, "#peek-confirm"]
    if "bite" in can or ("vote" in can and phase == "nomination"):
        return [PICK]
    if "ready" in can and phase == "day":
        return ["#ready-btn"]
    if "ready" in can and phase == "defence":
        return ["#defence-done"]
    if "vote" in can and phase == "lynch":
        return [".lynch-choices button >> nth=0"]
    return []


def tone_level(p, hz: float) -> float:
    return p.levels([hz])[0]


def test_a_whole_game_with_the_app_as_moderator(server, pw, tmp_path):
    p = launch_player(pw, tmp_path, "Ada", 520.0)
    p.page.add_init_script(PHASE_LOG)
    bots = BotThread()
    try:
        code = create_room(server, p, "?testaudio=1")
        p.page.click("#mic-enable")
        bot_list = seat_bots(server, bots, code, 3)
        wait_until(lambda: p.page.locator(".player-row").count() == 4, what="4 seated")
        set_options(p, {"lupi": 1, "timers": TIMERS})
        p.page.click("#start-btn")
        wait_until(lambda: (p.view() or {}).get("game") == "werewolf", what="the deal")
        for i, b in enumerate(bot_list):
            bots.play(b, lupi_policy, seed=i)
        mine = p.view()["me"]["role"]
        cards = [bots.wait_view(b, lambda v: v.get("game") == "werewolf")["me"]["role"]
                 for b in bot_list]
        wolf_bots = [b for b, card in zip(bot_list, cards, strict=True) if card == "lupo"]
        seen: set[str] = set()
        done: set = set()
        heard_day = silent_night = False
        end = time.monotonic() + 200
        while time.monotonic() < end:
            v = p.view() or {}
            phase = v.get("phase")
            if phase == "over":
                break
            if phase and phase not in seen:
                seen.add(phase)
                assert p.page.locator("#narration .say").count() >= 1, phase
                p.shot(f"lupi_game_{phase}")
            if phase in ("day", "nomination", "lynch") and not heard_day:
                # By day the living bots are heard (the page waits for it before it acts).
                living = [hz for b, hz in zip(bot_list, BOT_TONES, strict=False)
                          if any(x["id"] == b.pid and x["alive"] for x in v["players"])]
                deadline = time.monotonic() + 20  # a loaded machine is slow to start audio
                while not heard_day and time.monotonic() < deadline:
                    heard_day = max(p.levels(living)) > HEARD_DB
                    time.sleep(0.2)
            if phase == "wolves" and wolf_bots and mine != "lupo" and not silent_night:
                hz = BOT_TONES[bot_list.index(wolf_bots[0])]
                levels = []
                for _ in range(6):
                    levels.append(tone_level(p, hz))
                    time.sleep(0.2)
                assert max(levels) < SILENT_DB, ("a wolf heard at night", levels)
                silent_night = True
            act_in_page(p, done)
            time.sleep(0.2)
        p.page.wait_for_selector("#end-title", timeout=20000)
        p.shot("lupi_game_over")
        assert_every_phase(p)
        assert heard_day, "the page never heard a living bot by day"
        assert silent_night or mine == "lupo" or not wolf_bots
        roles = p.page.locator("#end-roles li").evaluate_all("els => els.map(e => e.dataset.role)")
        assert sorted(roles) == sorted(["lupo", "veggente", "contadino", "contadino"])
        assert p.page.inner_text("#end-side")
        assert not p.errors, p.errors
    finally:
        bots.stop()
        p.context.close()


def test_a_whole_game_with_a_human_moderator(server, pw, tmp_path):
    p = launch_player(pw, tmp_path, "Mara", 520.0)
    p.page.add_init_script(PHASE_LOG)
    bots = BotThread()
    try:
        code = create_room(server, p, "?testaudio=1")
        p.page.click("#mic-enable")
        bot_list = seat_bots(server, bots, code, 4)
        wait_until(lambda: p.page.locator(".player-row").count() == 5, what="5 seated")
        me = p.pid
        set_options(p, {"lupi": 1, "moderator": me, "timers": {**TIMERS, "night": 60,
                                                                     "wolves": 60}})
        p.page.click("#start-btn")
        wait_until(lambda: (p.view() or {}).get("game") == "werewolf", what="the deal")
        for i, b in enumerate(bot_list):
            bots.play(b, lupi_policy, seed=10 + i)
        v = p.view()
        assert v["me"]["moderator"] and v["me"]["role"] is None
        assert p.page.locator("#secret-card").count() == 0  # no card
        # Every card on the grid, to the moderator only.
        assert p.page.locator(".badge-role").count() == 4
        assert p.page.locator(".badge-role.role-lupo").count() == 1
        seen: set[str] = set()
        seer_checked = False
        end = time.monotonic() + 200
        while time.monotonic() < end:
            # The view and the button read in one go (the page renders each view at once):
            # a screenshot may take seconds on a loaded machine, and a phase may end meanwhile.
            v, disabled = p.page.evaluate(
                """() => [window.__sussurro.state.view,
                          document.querySelector('#advance-btn')?.disabled]""")
            v = v or {}
            phase = v.get("phase")
            if phase == "over":
                break
            if phase and phase not in seen:
                seen.add(phase)
                p.shot(f"lupi_mod_{phase}")
                assert "lupi.mod" not in p.page.inner_text("#lupi-panel")
            button = p.page.locator("#advance-btn")
            if phase == "seer":
                assert disabled  # the seer's phase always runs its time
                seer_checked = True
            elif phase == "wolves":
                # Wait for the bot wolf's pick, shown to the moderator, then move on.
                wait_until(lambda: p.page.locator("#mod-bites li").count() == 1, what="the pick")
                button.click()
                wait_until(lambda: (p.view() or {}).get("phase") != "wolves", what="day")
            elif phase in ("night", "day", "defence") and button.is_enabled():
                before = (phase, v.get("defender"))
                button.click()
                wait_until(lambda before=before: ((p.view() or {}).get("phase"),
                                                  (p.view() or {}).get("defender")) != before,
                           what=f"after {phase}")
            time.sleep(0.2)
        p.page.wait_for_selector("#end-title", timeout=20000)
        p.shot("lupi_mod_over")
        assert_every_phase(p)
        assert seer_checked, "the seer's phase was never seen with its button"
        head = p.page.locator(".end-head").get_attribute("class") or ""
        assert "won" not in head.split() and "lost" not in head.split()  # no faction
        assert p.page.locator("#end-roles li").count() == 4
        assert not p.errors, p.errors
    finally:
        bots.stop()
        p.context.close()
