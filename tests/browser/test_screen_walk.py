"""Issue 31, section 4: every screen of every engine, checked the same way.

Each engine's whole game is played once on one server by 16 protocol clients with
long names (client.protocol_client, random legal moves), a spectator pass beside
them; what each seat and the pass received is recorded. Then one page (resized from
one phone size to the other at each stop) is fed those messages
(window.__sussurro.receive, as the socket would) and stops at every new screen: the lobby of the host and of a guest, each phase as each kind of
seat sees it (its role, its power, its possible actions, alive or out), the end
screen with the host's change of rules. Each language of the manifest (game/langs/, Spanish
once its strings land) is one walk: the home screen, the lobbies and the end screens in
it, and its share of the game's screens (stop n goes to language n mod the count, so
that the languages see every phase between them and no screen is checked twice):

- phones (360x640, 390x844): no sideways overflow, no control under 44x44 CSS px
  without the room around it (tests/browser/screens_check.py);
- axe-core on every screen: no serious or critical violation;
- the shared screen (/r/CODE/tv) at 1920x1080 and 1280x720 in every phase: nothing
  outside the viewport, nothing cut (one page for both sizes, resized at each stop; the
  spectator pass's recorded messages replayed over it, one walk per language as above);

and photographed into test-artifacts/gallery/ (index.html lists them). Items 5, 13
and 14 of the issue are what these checks found first.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random

import pytest

from client.autoplay import autoplay
from client.protocol_client import Client
from tests.browser.bot_thread import BotThread, lupi_policy
from tests.browser.harness import launch_player, ui_langs, wait_until
from tests.browser.screens_check import (
    Gallery,
    axe_problems,
    axe_source,
    phone_problems,
    report,
    tv_problems,
)

# One worker for the module: the games fixture (a whole game of each engine, mostly
# timers) is then recorded once, not once on each worker that runs one of its tests.
# The timeout is a guard against a hung page, not a speed bound: the walk is 4-5 minutes
# alone on 2 cores, and a loaded machine can double it (330 s for the phone walk once).
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(720),
              pytest.mark.xdist_group("screen_walk")]

LANGS = ui_langs()
PHONES = {"360x640": {"width": 360, "height": 640}, "390x844": {"width": 390, "height": 844}}
TVS = {"1920x1080": {"width": 1920, "height": 1080}, "1280x720": {"width": 1280, "height": 720}}
# 16 seats, most of them at the longest name a seat takes (24 characters, server/rooms/seats.py).
NAMES = ["Massimiliano Bartolomeo", "Anne-Charlotte Dupont", "Giovanni Battista Rossi",
         "Marie-Josephine Lefevre", "Christopher Montgomery", "Alessandra Mariangela",
         "Jean-Baptiste Rousseau", "Elisabetta Antonietta", "Francesca Margherita B.",
         "Maximilian Alexander W.", "Bartholomew Fitzgerald", "Pierluigi Ferdinando",
         "Ada", "Guillaume de Montaigne", "Leonardo Michelangelo", "Genevieve Beaumarchais"]
PRESET = {"undercover": "intruso", "impostor": "classica", "werewolf": "lupi"}
FAST = {"undercover": {"timers": {"clue": 20, "debate": 20, "vote": 20, "guess": 20, "powers": 20}},
        "impostor": {},
        "werewolf": {"lupi": 7, "timers": {"night": 5, "seer": 5, "wolves": 5, "day": 5, "vote": 5,
                                "defence": 5}}}
POLICY = {"undercover": autoplay, "impostor": autoplay, "werewolf": lupi_policy}


async def _play(c: Client, policy, rng: random.Random, timeout: float = 150.0) -> None:
    """Answer each view with `policy` (once per view) until the game is over."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    tried: set[str] = set()
    while not (c.view and c.view.get("phase") == "over"):
        mark = c.mark()
        if c.view is not None:
            action = policy(c.view, rng)
            key = json.dumps([c.view, action], sort_keys=True)
            if action is not None and key not in tried:
                tried.add(key)
                await c.act(action)
        if loop.time() > end:
            raise TimeoutError(f"the game did not end in {timeout} s")
        with contextlib.suppress(TimeoutError):
            await c.wait_for(lambda m: m["type"] in ("view", "error"), 2.0, since=mark)
SHOWN = ("room", "view")  # what the screens draw from (no voice, no cues)


async def _record(base: str, engine: str) -> dict:
    """A whole game of `engine` at 16 seats; every seat's and the spectator's messages."""
    host = await Client.create(base, NAMES[0], preset=PRESET[engine])
    seats = [host] + [await Client.join(base, host.code, n) for n in NAMES[1:]]
    for c in seats:
        await c.connect()
    tv = await Client.watch(base, host.code)
    await tv.connect()
    if FAST[engine]:
        mark = host.mark()
        await host.send("settings", options=FAST[engine])
        await host.wait_for(lambda m: m["type"] in ("room", "error"), since=mark)
    await host.wait_for(lambda m: m["type"] == "room" and len(m["players"]) == 16)
    lobby = {c.player: len(c.messages) for c in seats}
    await host.send("start")
    await asyncio.gather(*(_play(c, POLICY[engine], random.Random(i)) for i, c in enumerate(seats)))
    await asyncio.sleep(0.5)   # the last room and spectator messages
    out = {"code": host.code, "host": host.player, "lobby": lobby,
           "seats": {c.player: [m for m in c.messages if m["type"] in SHOWN] for c in seats},
           "tv": [m for m in tv.messages if m["type"] in SHOWN]}
    for c in [*seats, tv]:
        await c.close()
    return out


def _signature(view: dict) -> tuple:
    """What makes a screen differ from one seat to another in the same phase."""
    me = view.get("me") or {}
    return (view.get("phase"), tuple(sorted(me.get("can") or [])), me.get("role"),
            me.get("alive"))


def _stops(rec: dict) -> list[tuple[str, int, str]]:
    """(seat, message index, name) of each screen worth a look: the lobby as host and as
    guest, then every new screen signature, the end screen as host and as guest."""
    stops = []
    host = rec["host"]
    guest = next(p for p in rec["seats"] if p != host)
    for who, tag in ((host, "lobby-host"), (guest, "lobby-guest")):
        msgs = rec["seats"][who]
        last_room = max(i for i, m in enumerate(msgs[: rec["lobby"][who] + 1]) if m["type"] == "room")
        stops.append((who, last_room, tag))
    seen: set[tuple] = set()
    for who, msgs in rec["seats"].items():
        for i, m in enumerate(msgs):
            if m["type"] != "view" or m["view"].get("phase") == "over":
                continue
            sig = _signature(m["view"])
            if sig not in seen:
                seen.add(sig)
                stops.append((who, i, f"{sig[0]}-{len(seen):02d}"))
    for who, tag in ((host, "over-host"), (guest, "over-guest")):
        msgs = rec["seats"][who]
        stops.append((who, len(msgs) - 1, tag))
    return stops


@pytest.fixture(scope="module")
def games(shared_server) -> dict:
    async def all_games() -> dict:
        # The three rooms at once: most of a game is its timers (the werewolf's nights),
        # so side by side they take about as long as the longest alone.
        recs = await asyncio.gather(*(_record(shared_server.base_url, e) for e in PRESET))
        return dict(zip(PRESET, recs, strict=True))

    # Playwright's sync API owns this thread's loop: the clients play on the bots' thread.
    bt = BotThread()
    try:
        return bt.run(all_games(), timeout=400)
    finally:
        bt.stop()


@pytest.fixture(scope="module")
def axe() -> str:
    return axe_source()


def _feed(page, msgs: list[dict]) -> None:
    # As one JSON text: Playwright's own serialisation of deep objects is slow.
    page.evaluate("(ms) => { for (const m of JSON.parse(ms)) window.__sussurro.receive(m); }",
                  json.dumps(msgs))


def _latest(msgs: list[dict]) -> list[dict]:
    """The last message of each kind the screens draw from, in their order."""
    last = {m["type"]: i for i, m in enumerate(msgs)}
    return [msgs[i] for i in sorted(last.values())]


def _set_lang(page, lang: str) -> None:
    page.select_option("#topbar select", lang)
    assert page.evaluate("document.documentElement.lang") == lang


def _mine(lang: str, n: int, every: bool) -> bool:
    """Whether stop `n` is checked in `lang`: a lobby or an end in every language, a game's
    screen in one, turning from stop to stop."""
    return every or LANGS[n % len(LANGS)] == lang


@pytest.mark.parametrize("lang", LANGS)
def test_every_room_screen_fits_a_phone(shared_server, pw, tmp_path, games, axe, lang):
    """Items 5 and 14 and section 4: every room screen of every engine at both phone
    sizes, in each language: nothing slides sideways, every control is big enough to
    tap, axe-core finds nothing serious.

    One page walks both sizes: each stop is fed once and checked (and photographed) at
    one size, then resized to the other and checked again; the next stop starts at the
    size the last one ended at, so that a stop costs one resize."""
    sizes = list(PHONES)
    p = launch_player(pw, tmp_path, f"walk-phone-{lang}", 0, viewport=PHONES[sizes[0]], mic="missing")
    galleries = {size: Gallery(f"phone-{size}") for size in sizes}
    problems: dict[str, list[str]] = {}

    def check(name: str) -> None:
        assert p.page.evaluate("document.documentElement.lang") == lang
        # Both sizes, the one the page is at first (fewest resizes).
        for size in sizes if p.page.viewport_size == PHONES[sizes[0]] else sizes[::-1]:
            if p.page.viewport_size != PHONES[size]:
                p.page.set_viewport_size(PHONES[size])
            problems[f"{size}/{name}"] = phone_problems(p.page) + axe_problems(p.page, axe)
            galleries[size].shot(p.page, name)

    try:
        p.page.goto(shared_server.url("/"))
        p.page.wait_for_selector("#name")
        _set_lang(p.page, lang)
        check(f"home-{lang}")
        for engine, rec in games.items():
            fed: tuple[str, int] | None = None
            for n, (who, upto, tag) in enumerate(_stops(rec)):
                if not _mine(lang, n, tag.startswith(("lobby", "over"))):
                    continue
                msgs = rec["seats"][who]
                if fed is None or fed[0] != who or fed[1] > upto:
                    # Another seat (or back in time): that seat's page from the start.
                    p.page.evaluate("(s) => window.__sussurro.set({code: s.code, player: s.who, "
                                    "token: 'preview', room: null, view: null})",
                                    {"code": rec["code"], "who": who})
                    fed = (who, -1)
                # What came since the last stop, as its last room and view: the screens draw
                # from those, and a change between the two stops (a new phase, a fact
                # learnt) is still one. Each language's walk skips the others' stops, so
                # every message in turn would cost each walk the whole game again.
                _feed(p.page, _latest(msgs[fed[1] + 1: upto + 1]))
                fed = (who, upto)
                check(f"{engine}-{tag}-{lang}")
        assert not p.errors, p.errors
        assert not report(problems), report(problems)
    finally:
        p.context.close()


def _tv_stops(rec: dict) -> list[tuple[int, str]]:
    """(message index, name): the lobby, then the first view of every phase and round."""
    msgs = rec["tv"]
    first_view = next(i for i, m in enumerate(msgs) if m["type"] == "view")
    stops = [(max(i for i in range(first_view) if msgs[i]["type"] == "room"), "lobby")]
    seen: set[tuple] = set()
    for i, m in enumerate(msgs):
        if m["type"] == "view":
            v = m["view"]
            key = (v.get("phase"), min(v.get("round") or v.get("day") or 1, 2))
            if key not in seen:
                seen.add(key)
                stops.append((i, f"{key[0]}-{key[1]}"))
    stops.append((len(msgs) - 1, "over-end"))
    return stops


@pytest.fixture(scope="module")
def tv_page(pw, tmp_path_factory):
    """One shared screen for both sizes: the viewport is resized, not a browser relaunched."""
    tv = launch_player(pw, tmp_path_factory.mktemp("tv"), "tv-walk", 0, viewport=TVS["1920x1080"],
                       mic="missing")
    try:
        yield tv
    finally:
        tv.context.close()


def _set_tv_lang(page, lang: str) -> None:
    # The shared screen has no language picker (its top bar is hidden): the page's own
    # i18n module (the same instance app.js imported) switches it, as ?lang= would.
    page.evaluate("(l) => import('/static/js/i18n.js').then((m) => m.setLang(l))", lang)
    assert page.evaluate("document.documentElement.lang") == lang


def walk_tv(tv, base_url: str, games: dict, axe: str, lang: str) -> dict[str, list[str]]:
    """Every stop of every engine's recorded game on the shared screen in `lang`, at both
    sizes: the lobby and the end, and the phases that are this language's (turning); the
    problems found at each, and a photograph of each in the gallery."""
    sizes = list(TVS)
    problems: dict[str, list[str]] = {}
    galleries = {size: Gallery(f"tv-{size}") for size in sizes}
    for engine, rec in games.items():
        tv.page.goto(f"{base_url}/r/{rec['code']}/tv")
        tv.page.wait_for_selector("#tv")
        # The pass's own socket brings the room as it is now (over): only then is the
        # game replayed over it from the lobby on.
        wait_until(lambda: tv.state("s.view && s.view.phase === 'over'"), what="the live end of the game")
        tv.page.evaluate("window.__sussurro.set({view: null})")
        fed = -1
        for n, (upto, tag) in enumerate(_tv_stops(rec)):
            if not _mine(lang, n, tag in ("lobby", "over-end")):
                continue
            _feed(tv.page, rec["tv"][fed + 1: upto + 1])
            fed = upto
            # The live socket may still bring the room as it is now (everyone gone): the
            # stop's own room and view again, so that each check sees the stop.
            now = [next((m for m in reversed(rec["tv"][: upto + 1]) if m["type"] == t), None)
                   for t in SHOWN]
            # Both sizes, the one the page is at first (fewest resizes).
            for size in sizes if tv.page.viewport_size == TVS[sizes[0]] else sizes[::-1]:
                if tv.page.viewport_size != TVS[size]:
                    tv.page.set_viewport_size(TVS[size])
                _feed(tv.page, [m for m in now if m is not None])
                # After the room: a room's message puts its own language back on a screen
                # nobody picked one on (web/js/session.js).
                _set_tv_lang(tv.page, lang)
                name = f"{engine}-{tag}-{lang}"
                problems[f"{size}/{name}"] = tv_problems(tv.page) + axe_problems(tv.page, axe)
                galleries[size].shot(tv.page, name, full_page=False)
    return problems


@pytest.mark.parametrize("lang", LANGS)
def test_every_phase_fits_the_shared_screen(shared_server, tv_page, games, axe, lang):
    """Item 13 and section 4: the shared screen with 16 long names, every phase of every
    engine (rounds 1 and 2), at both sizes, in each language: nothing outside the
    viewport, nothing cut; axe-core."""
    problems = walk_tv(tv_page, shared_server.base_url, games, axe, lang)
    assert not tv_page.errors, tv_page.errors
    assert not report(problems), report(problems)
