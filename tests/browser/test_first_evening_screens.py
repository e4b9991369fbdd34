"""Issue 31 section 3, the room's screens a first group tripped over, in real Chromium on a
390x844 phone: item 1 (the in-game volume slider keeps its width in Italian and a drag to
its middle reads the middle), item 6 (the host's lobby: players, game and start on the
first screen, the detailed rules folded), item 7 (the rematch button names the game the
host switched to), item 8 (Lupi Mannari's end has the change of game and the evening's
podium) and item 12 (plural forms: "1 punto", "1 partita", "1 voto" in it/fr/en).

The views are the real engine's (`game.view` of scripted games), fed to the page as the
server would send them (the page's `__sussurro.receive`), as in tests/browser/test_screens.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from game import apply, default_options, evening, new_game, result, tick, view
from tests.browser.harness import launch_player, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE_390 = {"width": 390, "height": 844}
NAMES = ["Ada", "Bruno", "Carla", "Dario"]
COLORS = ["#ff8a80", "#81d4fa", "#aed581", "#ce93d8"]
WEB_JS = Path(__file__).resolve().parents[2] / "web" / "js"
LANGS_DIR = Path(__file__).resolve().parents[2] / "game" / "langs"


def seats():
    return [{"id": f"p{i}", "name": n} for i, n in enumerate(NAMES)]


def room(preset: str, state: str = "playing", host: str = "p0", evening: dict | None = None,
         settings_preset: str | None = None) -> dict:
    """The room message; `settings_preset`: the next game the host chose (default: this one)."""
    nxt = settings_preset or preset
    msg = {"type": "room", "code": "K7QMX", "host": host, "state": state, "phase": state,
           "preset": preset, "game": 1, "max_players": 16,
           "players": [{"id": p["id"], "name": p["name"], "color": COLORS[i], "online": True,
                        "host": p["id"] == host, "seat": i + 1, "points": 0}
                       for i, p in enumerate(seats())],
           "settings": {"preset": nxt, "options": default_options(nxt)}}
    if evening is not None:
        msg["evening"] = evening
    return msg


def open_page(pw, tmp_path, lang: str, name: str = "viewer"):
    return launch_player(pw, tmp_path, name, 520.0, viewport=PHONE_390, mic="missing")


def goto(server, p, lang: str):
    p.page.goto(server.url("/"))
    p.page.wait_for_selector("#name")
    p.page.evaluate("(l) => localStorage.setItem('sussurro:lang', JSON.stringify(l))", lang)
    p.page.reload()
    p.page.wait_for_selector("#name")
    p.page.evaluate("window.__sussurro.set({code: 'K7QMX', player: 'p0', token: 'preview'})")


def feed(p, room_msg: dict, v: dict | None = None) -> None:
    p.page.evaluate("(r) => window.__sussurro.receive(r)", room_msg)
    if v is not None:
        p.page.evaluate("(v) => window.__sussurro.receive({type: 'view', view: v})", v)


def intruso_game():
    return new_game("intruso", {"powers": []}, 7, seats(), 1000.0)


def intruso_over():
    """An Intruso game the Civili win: the table votes out the infiltrator each ballot."""
    s = intruso_game()
    for _ in range(200):
        if s.phase == "over":
            break
        if s.phase in ("vote", "revote"):
            bad = next(pl.id for pl in s.players if pl.alive and pl.role != "civile")
            for pl in s.players:
                if pl.alive and s.phase in ("vote", "revote"):
                    target = bad if pl.id != bad else next(x for x in s.candidates if x != bad)
                    s, _ = apply(s, pl.id, {"type": "vote", "target": target}, s.phase_started + 1)
        elif s.phase == "guess":
            s, _ = apply(s, s.acting, {"type": "guess", "word": "zzzz"}, s.phase_started + 1)
        else:
            s, _ = tick(s, s.deadline)
    assert s.phase == "over" and s.outcome == "civili", (s.phase, s.outcome)
    return s


def lupi_over():
    s = new_game("lupi", {}, 3, seats(), 1000.0, deal={"roles": {"p0": "lupo", "p1": "veggente"}})
    for _ in range(200):
        if s.phase == "over":
            break
        if s.phase == "wolves":
            s, _ = apply(s, "p0", {"type": "bite", "target": s.humans()[0]}, s.phase_started + 1)
        s, _ = tick(s, s.deadline)
    assert s.phase == "over"
    return s


def evening_of(*states) -> dict:
    return evening([result(s) for s in states])


def test_item1_in_game_volume_slider_keeps_its_width_and_a_drag_to_the_middle_reads_half(
        shared_server, pw, tmp_path):
    """Issue 31 §3 item 1: under each avatar in the game (Italian, "Silenzia"), the slider
    is wide enough to drag and a drag to its middle gives half its range, not 0 %."""
    p = open_page(pw, tmp_path, "it")
    try:
        goto(shared_server, p, "it")
        s = intruso_game()
        feed(p, room("intruso"), view(s, "p0"))
        p.page.wait_for_selector(".pcard .vol-slider[data-pid='p1']")
        slider = p.page.locator(".pcard .vol-slider[data-pid='p1']")
        box = slider.bounding_box()
        p.shot("issue31_item1_game_volume_it")
        assert box["width"] >= 60, f"slider {box['width']:.0f} px wide"
        y = box["y"] + box["height"] / 2
        p.page.mouse.move(box["x"] + box["width"] * 0.85, y)
        p.page.mouse.down()
        p.page.mouse.move(box["x"] + box["width"] * 0.5, y, steps=5)
        p.page.mouse.up()
        value = int(slider.input_value())
        assert 55 <= value <= 95, f"a drag to the middle read {value} %"  # range 0-150
        assert not p.errors, p.errors
    finally:
        p.context.close()


def test_item6_host_lobby_shows_players_game_and_start_on_the_first_screen(shared_server, pw, tmp_path):
    """Issue 31 §3 item 6: on a 390x844 phone the host sees the players, the game and
    "Inizia la partita" without scrolling; the detailed rules are folded in a <details>.
    Until the mic is chosen (voice or text), that choice comes first, under the code
    (issue 37 item 5, tests/browser/test_full_lobby.py): the screen is then the one after it."""
    p = open_page(pw, tmp_path, "it")
    try:
        goto(shared_server, p, "it")
        feed(p, room("intruso", state="lobby"))
        p.page.wait_for_selector("#start-btn")
        height = PHONE_390["height"]
        for first in ("#mic-enable", "#mic-skip", "#start-btn"):
            box = p.page.locator(first).bounding_box()
            assert box["y"] + box["height"] <= height, (first, box)
        p.page.click("#mic-skip")
        p.page.wait_for_selector(".mic-skipped")
        p.shot("issue31_item6_host_lobby_it")
        start = p.page.locator("#start-btn").bounding_box()
        assert start["y"] + start["height"] <= height, f"start button at {start['y']:.0f} px"
        for pid in ("p0", "p1", "p2", "p3"):
            row = p.page.locator(f".player-row[data-pid='{pid}']").bounding_box()
            assert row["y"] + row["height"] <= height, (pid, row)
        game = p.page.locator("#opt-preset").bounding_box()
        assert game["y"] + game["height"] <= height, game
        # The detailed rules: in a closed <details>, opened on demand.
        details = p.page.locator("details#lobby-rules")
        assert details.count() == 1
        assert details.evaluate("d => !d.open && d.contains(document.querySelector('#opt-intrusi'))")
        p.page.click("details#lobby-rules > summary")
        assert p.page.locator("#opt-intrusi").is_visible()
        assert not p.errors, p.errors
    finally:
        p.context.close()


def test_item7_rematch_button_names_the_game_the_host_switched_to(shared_server, pw, tmp_path):
    """Issue 31 §3 item 7: after the host switches the next game on the end screen, the
    button no longer says "Rivincita con le stesse regole" but names the new game."""
    p = open_page(pw, tmp_path, "it")
    try:
        goto(shared_server, p, "it")
        s = lupi_over()
        ev = evening_of(s)
        feed(p, room("lupi", evening=ev), view(s, "p0"))
        p.page.wait_for_selector("#rematch-btn")
        assert p.page.inner_text("#rematch-btn").strip() == "Rivincita con le stesse regole"
        # The host picked Impostore (Classica) for the next game: the room says so.
        feed(p, room("lupi", evening=ev, settings_preset="classica"))
        wait_until(lambda: "Classica" in p.page.inner_text("#rematch-btn"),
                   what="the button naming the new game")
        label = p.page.inner_text("#rematch-btn")
        assert "stesse regole" not in label, label
        assert not p.errors, p.errors
    finally:
        p.context.close()


def test_item8_lupi_end_has_change_of_game_and_the_evening_podium(shared_server, pw, tmp_path):
    """Issue 31 §3 item 8: Lupi Mannari's end screen gives the host the change of game
    and shows everyone the evening's podium, as the other games' end screens do."""
    p = open_page(pw, tmp_path, "it")
    try:
        goto(shared_server, p, "it")
        s = lupi_over()
        ev = evening_of(s)
        assert ev["podium"], ev
        feed(p, room("lupi", evening=ev), view(s, "p0"))
        p.page.wait_for_selector("#end-title")
        p.shot("issue31_item8_lupi_end_it")
        assert p.page.locator("#next-rules #opt-preset").count() == 1
        assert p.page.locator("#evening #podium").count() == 1
        assert p.page.locator("#game-points").count() == 1
        assert not p.errors, p.errors
    finally:
        p.context.close()


PLURALS = {
    "it": ("1 punto", "2 punti", "1 partita", "1 voto"),
    "fr": ("1 point", "2 points", "1 partie", "1 voix"),
    "en": ("1 point", "2 points", "1 game", "1 vote"),
}


@pytest.mark.parametrize("lang", ["it", "fr", "en"])
def test_item12_counts_take_the_languages_plural_forms(shared_server, pw, tmp_path, lang):
    """Issue 31 §3 item 12: "1 punto" not "1 pts", "1 partita" not "1 partite", "1 voto"
    not "1 voti", by Intl.PluralRules of the player's language."""
    one_point, two_points, one_game, one_vote = PLURALS[lang]
    p = open_page(pw, tmp_path, lang)
    try:
        goto(shared_server, p, lang)
        ev = {"games": 1, "points": {"p0": 1, "p1": 2}, "names": {}, "awards": [],
              "podium": [{"place": 1, "points": 2, "players": ["p1"]},
                         {"place": 2, "points": 1, "players": ["p0"]}]}
        s = intruso_over()
        v = view(s, "p0")
        v["result"]["points"] = {"p0": 1, "p1": 2, "p2": 0, "p3": 0}
        feed(p, room("intruso", evening=ev), v)
        p.page.wait_for_selector("#evening")
        text = p.page.inner_text("#game-points") + "\n" + p.page.inner_text("#evening")
        assert one_point in text and two_points in text, text
        assert one_game in text, text
        # A ballot's count on an avatar: Impostore shows the tally once the vote closed.
        g = new_game("classica", {}, 7, seats(), 1000.0)
        imp = next(pl.id for pl in g.players if pl.role == "impostore")
        for _ in range(40):
            if "vote" in view(g, "p0")["me"]["can"]:
                break
            for pl in g.players:
                can = view(g, pl.id)["me"]["can"]
                a = next((x for x in ("seen", "done", "ready") if x in can), None)
                if a:
                    g, _ = apply(g, pl.id, {"type": a}, g.phase_started + 1)
                    break
        for pl in g.players:
            target = imp if pl.id != imp else next(x.id for x in g.players if x.id != imp)
            g, _ = apply(g, pl.id, {"type": "vote", "target": target}, g.phase_started + 1)
        assert g.phase == "guess", g.phase  # one vote on someone, three on the impostor
        feed(p, room("classica"), view(g, "p0"))
        wait_until(lambda: p.page.locator(".badge-count").count() > 0, what="vote counts")
        counts = p.page.locator(".badge-count").all_inner_texts()
        assert one_vote in counts, counts
        assert not p.errors, p.errors
    finally:
        p.context.close()


def test_item12_plural_helper_picks_the_languages_form():
    """Issue 31 §3 item 12, the helper itself under Node: the category of the language's
    plural rule (its language.json's "plural"), the `.one` form where the dictionary has
    one, else the key itself."""
    node = shutil.which("node")
    if not node:
        pytest.skip("no node")
    rules = {lang: json.loads((LANGS_DIR / lang / "language.json").read_text(encoding="utf-8"))["plural"]
             for lang in ("it", "fr", "en")}
    script = (
        "import { pluralKey } from './plural.js';\n"
        f"const rules = {json.dumps(rules)};\n"
        "const d = {'k': '{n} punti', 'k.one': '{n} punto'};\n"
        "const out = {};\n"
        "for (const [lang, n] of [['it', 0], ['it', 1], ['it', 2], ['fr', 0], ['fr', 1], ['fr', 2],"
        " ['en', 0], ['en', 1], ['en', 1.5]]) out[lang + n] = pluralKey(d, rules[lang], 'k', {n});\n"
        "out.fr1_5 = pluralKey(d, rules.fr, 'k', {n: 1.5});\n"
        "out.cldr = pluralKey(d, 'cldr:fr', 'k', {n: 0});\n"
        "out.none = pluralKey(d, rules.it, 'k', {});\n"
        "out.missing = pluralKey({}, rules.it, 'x', {n: 1});\n"
        "console.log(JSON.stringify(out));\n"
    )
    res = subprocess.run([node, "--input-type=module", "-e", script], cwd=WEB_JS,
                         capture_output=True, text=True, timeout=30, check=True)
    out = json.loads(res.stdout)
    assert out == {"it0": "k", "it1": "k.one", "it2": "k", "fr0": "k.one", "fr1": "k.one", "fr2": "k",
                   "en0": "k", "en1": "k.one", "en1.5": "k", "fr1_5": "k.one", "cldr": "k.one",
                   "none": "k", "missing": "x"}, out
