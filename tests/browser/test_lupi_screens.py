"""Lupi Mannari's screens at phone size (360x740) and on a desktop: every phase, seen by every
kind of player (contadino, veggente, wolf, ghost, nominee, human moderator), fits the screen
with labelled controls and readable text. The views are the real engine's
(`game.view` of scripted games), fed to the page as if the server had sent them.

Also checked here: the night screen is the same for every role except what the card
allows (a contadino's and a dead wolf's night panels are identical; the seer's and the
wolves' differ only in their own phase), the narration is on screen in the player's
language, and the app asks the browser to speak it in the room's language (a headless
browser may have no voice: the text is what counts).
"""

from __future__ import annotations

import json

import pytest

from game import apply, new_game, tick, view
from tests.browser.harness import launch_player, wait_until
from tests.browser.test_screens import DESKTOP, PHONE, check

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elisabetta Maria Antonietta", "Fabio", "Giulia",
         "Ugo", "Mara"]
COLORS = ["#ff8a80", "#81d4fa", "#aed581", "#ce93d8", "#ffe066", "#4dd0c5", "#9fa8ff",
          "#f48fb1", "#bcaaa4"]
# p0, p1 wolves; p2 the veggente; p3..p7 contadini; p8 the human moderator (second table).
ROLES = {"p0": "lupo", "p1": "lupo", "p2": "veggente"}


def seats(moderator: bool):
    n = 9 if moderator else 8
    return [{"id": f"p{i}", "name": NAMES[i]} for i in range(n)]


def room(moderator: bool) -> dict:
    ps = seats(moderator)
    options = {"lang": "it", "lupi": "auto", "veggente": True, "moderator": "p8" if moderator else None,
               "narration_voice": True,
               "timers": {"night": 10, "seer": 20, "wolves": 45, "day": 180, "vote": 45, "defence": 30}}
    return {"type": "room", "code": "K7QMX", "host": "p0", "state": "playing", "phase": "playing",
            "preset": "lupi", "game": 1, "max_players": 16,
            "players": [{"id": p["id"], "name": p["name"], "color": COLORS[i], "online": i != 5,
                         "host": i == 0, "seat": i + 1, "points": 0} for i, p in enumerate(ps)],
            "settings": {"preset": "lupi", "options": options}}


def scenes(moderator: bool = False) -> dict[str, dict]:
    """(name -> view) along a scripted game, from the real engine."""
    opts = {"moderator": "p8"} if moderator else {}
    s = new_game("lupi", opts, 3, seats(moderator), 1000.0, deal={"roles": ROLES})
    out: dict[str, dict] = {}
    who = ["p8"] if moderator else []

    def shot(name, pids):
        for pid in pids:
            out[f"{name}_{pid}"] = view(s, pid)

    def timeout():
        nonlocal s
        s, _ = tick(s, s.deadline)

    def act(pid, **a):
        nonlocal s
        s, _ = apply(s, pid, a, s.phase_started + 1)

    shot("night", ["p3"] + who)
    timeout()
    shot("seer", ["p0", "p2", "p3"] + who)
    act("p2", type="peek", target="p0")
    shot("seer_answer", ["p2"] + who)
    timeout()
    act("p0", type="bite", target="p5")
    shot("wolves", ["p0", "p1", "p2", "p3"] + who)
    timeout()
    shot("day", ["p3", "p5"] + who)
    timeout()
    act("p3", type="vote", target="p4")
    act("p5", type="vote", target="p4")
    shot("nomination", ["p3", "p5"])
    act("p4", type="vote", target="p6")
    timeout()
    shot("defence", ["p4", "p3"] + who)
    timeout()
    timeout()
    act("p3", type="vote", target="p4")
    shot("lynch", ["p3", "p4", "p5"] + who)
    timeout()
    shot("night2", ["p1", "p4"])
    while s.phase != "over":
        if s.phase == "wolves":
            for w in s.wolves():
                act(w, type="bite", target=s.humans()[0])
        timeout()
    shot("over", ["p0", "p3"] + who)
    return out


@pytest.mark.parametrize(("size", "lang"), [(PHONE, "it"), (DESKTOP, "it"), (PHONE, "fr"), (PHONE, "en")],
                         ids=["phone-it", "desktop-it", "phone-fr", "phone-en"])
def test_every_lupi_screen_fits_with_labelled_controls(shared_server, pw, tmp_path, size, lang):
    server = shared_server
    p = launch_player(pw, tmp_path, "viewer", 520.0, viewport=size, mic="missing")
    tag = ("phone" if size["width"] == 360 else "desktop") + f"_{lang}"
    try:
        p.page.goto(server.url("/"))
        p.page.wait_for_selector("#name")
        p.page.evaluate("(l) => localStorage.setItem('sussurro:lang', JSON.stringify(l))", lang)
        p.page.reload()
        p.page.wait_for_selector("#name")
        full = size == PHONE and lang == "it"  # every scene once; elsewhere one per phase
        for moderator in ((False, True) if full else (False,)):
            suffix = "_mod" if moderator else ""
            p.page.evaluate("window.__sussurro.set({code: 'K7QMX', player: 'p0', token: 'preview'})")
            p.page.evaluate("(r) => window.__sussurro.receive(r)",
                            {**room(moderator), "state": "lobby", "phase": "lobby"})
            p.page.wait_for_selector("#opt-moderator", state="attached")  # in the folded rules
            check(p, f"lupi_{tag}_lobby{suffix}")
            phases: set[str] = set()
            for name, v in scenes(moderator).items():
                if not full and v["phase"] in phases:
                    continue
                phases.add(v["phase"])
                me = name.rsplit("_", 1)[1]
                p.page.evaluate(f"window.__sussurro.set({{player: '{me}'}})")
                p.page.evaluate("(r) => window.__sussurro.receive(r)", room(moderator))
                p.page.evaluate("(v) => window.__sussurro.receive({type: 'view', view: v})", v)
                wait_until(lambda v=v: p.state("s.view && s.view.phase") == v["phase"]
                           and p.page.locator(".lupi:not([hidden]) .phase-name, #end-title").count() > 0,
                           what=name)
                check(p, f"lupi_{tag}_{name}{suffix}")
        assert not p.errors, p.errors
    finally:
        p.context.close()


def panel_text(p) -> str:
    return p.page.inner_text("#lupi-panel")


def test_night_looks_the_same_for_every_role_and_the_narration_is_shown_and_spoken(shared_server, pw, tmp_path):
    server = shared_server
    p = launch_player(pw, tmp_path, "viewer", 520.0, mic="missing", locale="en-GB")
    try:
        p.page.goto(server.url("/"))
        p.page.wait_for_selector("#name")
        p.page.evaluate("localStorage.setItem('sussurro:lang', JSON.stringify('en'))")
        # Record what the page asks the speech engine, whatever voices the browser has.
        p.page.add_init_script("""
          window.__spoken = [];
          const real = window.speechSynthesis;
          Object.defineProperty(window, 'speechSynthesis', { value: {
            speak: (u) => window.__spoken.push({ text: u.text, lang: u.lang }),
            cancel: () => {}, getVoices: () => [] } });
        """)
        p.page.reload()
        p.page.wait_for_selector("#name")
        views = scenes()
        p.page.evaluate("window.__sussurro.set({code: 'K7QMX', player: 'p3', token: 'preview'})")
        p.page.evaluate("(r) => window.__sussurro.receive(r)", room(False))

        def show(name, pid):
            p.page.evaluate(f"window.__sussurro.set({{player: '{pid}'}})")
            p.page.evaluate("(v) => window.__sussurro.receive({type: 'view', view: v})", views[name])
            wait_until(lambda: p.state("s.view.phase") == views[name]["phase"], what=name)
            return panel_text(p)

        # Every role's night panel is "close your eyes", but in the card's own phase.
        contadino = show("wolves_p3", "p3")
        assert contadino == show("wolves_p2", "p2") == show("seer_p0", "p0") == show("night_p3", "p3")
        answer = show("seer_answer_p2", "p2")
        assert "Ada" in answer and "werewolf" in answer  # the answer, to the seer alone
        wolf = show("wolves_p1", "p1")
        assert "pack" in wolf.lower() and wolf != contadino
        assert p.page.locator(".pcard[data-pid='p0'] .badge-pack").count() == 1
        assert p.page.locator(".lupi.is-night").count() == 1
        # The narration: on screen in the player's language, spoken in the room's (it).
        show("day_p3", "p3")
        says = p.page.inner_text("#narration")
        assert "Day breaks" in says and "Fabio" in says
        spoken = p.page.evaluate("window.__spoken")
        assert spoken and spoken[-1]["lang"] == "it-IT" and "Fabio" in spoken[-1]["text"]
        assert "giorno" in spoken[-1]["text"].lower()
        assert p.page.get_attribute("#narration", "data-spoken-lang") == "it"
        # The room turned the voice off: the text stays, nothing is spoken.
        quiet = json.loads(json.dumps(views["nomination_p3"]))
        quiet["narration"]["speak"] = False
        before = len(p.page.evaluate("window.__spoken"))
        p.page.evaluate("(v) => window.__sussurro.receive({type: 'view', view: v})", quiet)
        wait_until(lambda: p.state("s.view.phase") == "nomination", what="nomination")
        assert "accuse" in p.page.inner_text("#narration")
        assert len(p.page.evaluate("window.__spoken")) == before
        assert not p.errors, p.errors
    finally:
        p.context.close()
