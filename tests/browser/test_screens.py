"""Every phase's screen at phone size (360x740) and on a desktop: no horizontal overflow,
labelled controls. The phases a short real game rarely reaches (powers, runoff, the
Giudice, the Vendicatore, the Fantasma's guess) are drawn from views fed to the page
as if the server had sent them (docs/contracts.md's view shape)."""

from __future__ import annotations

import pytest

from tests.browser.harness import launch_player, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elisabetta Maria Antonietta"]
ROOM = {
    "type": "room", "code": "K7QMX", "host": "p0", "state": "playing", "phase": "playing",
    "preset": "intruso", "game": 1, "max_players": 16,
    "players": [{"id": f"p{i}", "name": n, "color": c, "online": i != 3, "host": i == 0,
                 "seat": i + 1, "wins": 0}
                for i, (n, c) in enumerate(zip(NAMES, ["#ff8a80", "#81d4fa", "#aed581", "#ce93d8", "#ffe066"],
                                               strict=True))],
    "settings": {"preset": "intruso", "options": {
        "lang": "it", "categories": None, "intrusi": "auto", "fantasmi": "auto", "powers": "auto",
        "timers": {"powers": 30, "clue": 45, "debate": 180, "vote": 60, "guess": 45, "pick": 30},
        "eliminated_speak": False}},
}
ME = {"id": "p0", "alive": True, "word": "gatto", "role": None, "power": None,
      "known": [{"player": "p2", "fact": "civili_word"}], "vote": None, "can": [],
      "muted": None, "drunk": False}


def view(phase, **over):
    me = {**ME, **over.pop("me", {})}
    v = {
        "game": "undercover", "preset": "intruso", "lang": "it", "phase": phase, "round": 2,
        "phase_started": 0, "deadline": None, "turn": None, "order": ["p0", "p1", "p2", "p3"],
        "players": [{"id": f"p{i}", "name": n, "alive": i != 4, "revealed_role": "civile" if i == 4 else None,
                     "ready": i == 1, "voted": i in (1, 2), "whisper_ok": phase == "debate" and i not in (0, 4)}
                    for i, n in enumerate(NAMES)],
        "candidates": [],
        "clues": [{"round": 1, "player": f"p{i}", "text": t, "skipped": t == ""}
                  for i, t in enumerate(["miagola", "fusa di notte", "", "baffi lunghi", "tetto"])],
        "eliminations": [{"player": "p4", "role": "civile", "round": 1, "cause": "vote"}],
        "me": me, "acting": None, "vote_counts": None, "result": None,
    }
    v.update(over)
    return v


PHASES = {
    "powers_cupido": view("powers", round=1, me={"power": "cupido", "can": ["bind"]}),
    "powers_ubriacone": view("powers", round=1, me={"power": "ubriacone", "can": ["intoxicate"]}),
    "powers_wait": view("powers", round=1, me={"power": "spia"}),
    "clues_muto": view("clues", turn="p0", me={"power": "muto", "can": ["clue"], "muted": "muto"}),
    "clues_pappagallo": view("clues", turn="p0", me={"power": "pappagallo", "can": ["clue"]}),
    "debate_sabotatore": view("debate", me={"power": "sabotatore", "can": ["ready", "swap"]}),
    "revote": view("revote", candidates=["p1", "p2"], me={"can": ["vote"], "vote": "p1"}),
    "judge": view("judge", candidates=["p1", "p2"], me={"power": "giudice", "can": ["judge"]}),
    "judge_wait": view("judge", candidates=["p1", "p2"]),
    "avenge": view("avenge", me={"power": "vendicatore", "alive": False, "can": ["avenge"]}, acting="p0"),
    "guess": view("guess", me={"word": None, "role": "fantasma", "alive": False, "can": ["guess"]}, acting="p0"),
    "eliminated": view("debate", me={"alive": False, "muted": "eliminated"}),
    "over": view("over", result={
        "outcome": "civili", "winners": ["p0", "p1", "p2", "p4"],
        "sides": {"civili": ["p0", "p1", "p2", "p4"], "infiltrati": ["p3"]},
        "words": {"civili": "gatto", "intrusi": "tigre"}, "category": "animals",
        "players": [{"id": f"p{i}", "name": n, "role": "intruso" if i == 3 else "civile",
                     "word": "tigre" if i == 3 else "gatto", "power": "muto" if i == 0 else None,
                     "alive": i != 4, "won": i != 3} for i, n in enumerate(NAMES)],
        "cupid": [], "drunk": [], "guesses": [], "clues": [], "rounds": 2}),
}


def unlabelled_controls(page):
    """Buttons, inputs and selects a screen reader could not name."""
    return page.evaluate("""() => [...document.querySelectorAll('button, input, select')]
      .filter(el => el.offsetParent !== null)
      .filter(el => !(el.getAttribute('aria-label') || el.textContent.trim() || el.labels?.length
                      || el.getAttribute('title')))
      .map(el => el.outerHTML.slice(0, 120))""")


CONTRAST_JS = """() => {
  // WCAG 2 contrast of every visible text against the first opaque background behind it.
  const parse = (c) => { const m = c.match(/[\\d.]+/g); return m ? m.map(Number) : [0, 0, 0, 0]; };
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((acc, v, i) => acc + v * [0.2126, 0.7152, 0.0722][i], 0);
  const bgOf = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.length < 4 || c[3] >= 0.9) return c;
    }
    return [23, 19, 42];
  };
  const out = [];
  let checked = 0;
  for (const el of document.querySelectorAll('body *')) {
    if (!el.offsetParent && getComputedStyle(el).position !== 'fixed') continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('[disabled], .dead, .qr, svg')) continue;
    const st = getComputedStyle(el);
    const fg = parse(st.color), bg = bgOf(el);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    checked += 1;
    const large = parseFloat(st.fontSize) >= 24 || (parseFloat(st.fontSize) >= 18.66 && Number(st.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) out.push(`${el.tagName}.${el.className}: ${ratio.toFixed(2)} "${el.textContent.trim().slice(0, 30)}"`);
  }
  return { checked, low: out };
}"""


def check(p, name):
    """Screenshot, then: no horizontal overflow, every control named, text contrast AA."""
    p.shot(f"phase_{name}")
    width, client = p.overflow()
    assert width <= client, f"{name} overflows: {width} > {client}"
    assert not unlabelled_controls(p.page), (name, unlabelled_controls(p.page))
    audit = p.page.evaluate(CONTRAST_JS)
    assert audit["checked"] > 10 and not audit["low"], (name, audit)


PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}


@pytest.mark.parametrize(("size", "lang"), [(PHONE, "it"), (DESKTOP, "it"), (PHONE, "fr"), (PHONE, "en")],
                         ids=["phone-it", "desktop-it", "phone-fr", "phone-en"])
def test_every_phase_fits_the_screen_with_labelled_controls(server, pw, tmp_path, size, lang):
    p = launch_player(pw, tmp_path, "viewer", 520.0, viewport=size, mic="missing")
    try:
        p.page.goto(server.url("/"))
        p.page.wait_for_selector("#name")
        p.page.evaluate("(l) => localStorage.setItem('sussurro:lang', JSON.stringify(l))", lang)
        p.page.reload()
        p.page.wait_for_selector("#name")
        assert p.page.get_attribute("html", "lang") == lang
        tag = ("phone" if size["width"] == 360 else "desktop") + f"_{lang}"
        check(p, f"{tag}_home")
        p.page.evaluate("window.__sussurro.set({code: 'K7QMX', player: 'p0', token: 'preview'})")
        lobby = {**ROOM, "state": "lobby", "phase": "lobby", "settings": {
            "preset": "intruso", "options": {**ROOM["settings"]["options"], "powers": ["muto", "spia"],
                                             "categories": ["animals", "food"]}}}
        p.page.evaluate("(r) => window.__sussurro.receive(r)", lobby)
        p.page.wait_for_selector("#room-code")
        assert p.page.locator("input[name=power]").count() == 10
        assert p.page.locator("input[name=category]").count() == 14
        check(p, f"{tag}_lobby")
        p.page.evaluate("(r) => window.__sussurro.receive(r)", ROOM)
        for name, v in PHASES.items():
            p.page.evaluate("(v) => window.__sussurro.receive({type: 'view', view: v})", v)
            p.page.evaluate("window.__sussurro.receive({type: 'mouths', levels: {p1: 0.8, p2: 0.4}})")
            wait_until(lambda v=v: p.page.locator(".phase-name, #end-title").count() > 0
                       and p.state("s.view.phase") == v["phase"], what=name)
            check(p, f"{tag}_{name}")
        # The mouth of a speaker moves on screen; a silent one's does not.
        p.page.evaluate("(v) => window.__sussurro.receive({type: 'view', view: v})", PHASES["debate_sabotatore"])
        p.page.evaluate("window.__sussurro.receive({type: 'mouths', levels: {p1: 0.8}})")
        assert float(p.page.get_attribute(".mouth[data-pid='p1']", "data-level")) > 0.5
        assert float(p.page.get_attribute(".mouth[data-pid='p2']", "data-level")) == 0
        # The help: the games (Lupi Mannari too), the ten powers, the evening's awards, the voice.
        p.page.click(".topbar .iconbtn:last-child")
        p.page.wait_for_selector(".dialog")
        tabs = p.page.locator(".tabs .tab").count()
        assert tabs == 8
        for tab in range(tabs):
            p.page.click(f".tabs .tab >> nth={tab}")
            width, client = p.overflow()
            assert width <= client
        p.page.click(".tabs .tab >> nth=5")
        assert p.page.locator(".powers-list dt").count() == 10
        p.shot(f"phase_{tag}_help_powers")
        assert not p.errors, p.errors
    finally:
        p.context.close()
