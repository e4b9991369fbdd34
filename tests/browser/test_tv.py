"""Issue 13, the shared screen in real Chromium at 1920x1080: /r/CODE/tv takes a spectator
pass and shows a whole game of each engine (undercover in every language of the manifest,
game/langs/, side by side: one game, a screen per language; impostor and werewolf in one
language) from the lobby to the podium, with no word or
role on it before the rules reveal them; its speaker mutes on the spot.

The table is bots (protocol clients, no voice) playing random legal moves; the screens
are written to test-artifacts/screens/tv-*.png.
"""

from __future__ import annotations

import pytest

from client.autoplay import autoplay
from client.bot import Bot
from tests.browser.bot_thread import BotThread
from tests.browser.harness import i18n, launch_player, ui_langs, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

TV = {"width": 1920, "height": 1080}
FAST = {"undercover": {"powers": [], "fantasmi": 0,
                       "timers": {"clue": 5, "debate": 5, "vote": 5, "guess": 5}},
        "impostor": {},
        "werewolf": {"lupi": 1, "timers": {"night": 5, "seer": 5, "wolves": 5, "day": 5,
                                           "vote": 5, "defence": 5}}}
PRESET = {"undercover": "intruso", "impostor": "classica", "werewolf": "lupi"}
SEATS = {"undercover": 3, "impostor": 3, "werewolf": 4}


def _table(bt: BotThread, base: str, engine: str) -> list[Bot]:
    async def make() -> list[Bot]:
        host = await Bot.create(base, "Ada", preset=PRESET[engine])
        others = [await Bot.join(base, host.client.code, name)
                  for name in ["Bruno", "Chloé", "Dario"][: SEATS[engine] - 1]]
        mark = host.client.mark()
        await host.client.send("settings", options=FAST[engine])
        await host.client.wait_for(lambda m: m["type"] in ("room", "error"), since=mark)
        assert not host.client.errors, host.client.errors
        return [host, *others]

    bots = bt.run(make())
    bt.bots += bots
    return bots


def _play(bt: BotThread, bots: list[Bot]) -> None:
    for i, bot in enumerate(bots):
        bt.play(bot, lambda v, rng: autoplay(v, rng), seed=i, delay=0.4)


def _tv_text(tv) -> str:
    return tv.page.inner_text("#tv")


@pytest.mark.parametrize("engine,langs", [
    ("undercover", ui_langs()), ("impostor", ["fr"]), ("werewolf", ["en"])])
def test_the_shared_screen_shows_a_whole_game_and_no_secret(pw, server, tmp_path, engine,
                                                             langs):
    bt = BotThread()
    tvs = []
    try:
        bots = _table(bt, server.base_url, engine)
        code = bots[0].client.code
        for lang in langs:
            tv = launch_player(pw, tmp_path, f"tv-{engine}-{lang}", 0, viewport=TV, mic="missing")
            tv.page.goto(server.url(f"/r/{code}/tv?lang={lang}"))
            wait_until(lambda tv=tv: tv.state("s.spectator && s.room"), what="the pass")
            tvs.append((lang, tv))
        # The lobby: the code, the QR, the table; not a player: the roster is the bots'.
        for lang, tv in tvs:
            assert tv.state("s.player") is None and tv.state("s.spectator").startswith("s")
            wait_until(lambda tv=tv: tv.page.locator("#tv-table .tv-seat").count() == len(bots))
            assert code in _tv_text(tv) and i18n(lang)["tv.join"] in _tv_text(tv)
            tv.shot(f"tv-{engine}-{lang}-lobby")
        # the players' view counts the screens; it reaches the bots' thread on its own time
        wait_until(lambda: bots[0].client.room["spectators"] == len(tvs),
                   what="the spectators counted in the players' view")
        assert len(bots[0].client.room["players"]) == len(bots)

        bt.run(bots[0].client.send("start"))
        _play(bt, bots)
        seen: list[str] = []
        shot_phases: set[str] = set()
        lang0, tv0 = tvs[0]

        def over() -> bool:
            # the phase and the screen's text read in one go: read apart, the end screen
            # (which shows the word) could be drawn between them and pass for a phase
            # before the end; the screen is drawn from the state, so it never runs ahead
            phase, text = tv0.state(
                "[s.view && s.view.phase, document.getElementById('tv').innerText]") or [None, ""]
            if phase and phase != "over":
                seen.append(text)
                if phase not in shot_phases:
                    shot_phases.add(phase)
                    for lang, tv in tvs:
                        tv.shot(f"tv-{engine}-{lang}-{phase}")
            return phase == "over"

        wait_until(over, timeout=200, step=0.5, what="the end of the game")
        view = tv0.view()
        result = view["result"]
        # Nothing the screen showed before the end held a word or a hidden role.
        secrets = set()
        if engine == "undercover":
            secrets |= set(result["words"].values())
        if engine == "impostor":
            secrets |= {result["word"], *(w for w in [result.get("hint")] if w)}
        if engine == "werewolf":
            roles = {p["role"] for p in result["players"]}
            secrets |= {i18n(lang0).get(f"lupi.role.{r}", r) for r in roles}
        for text in seen:
            leaked = [s for s in secrets if s and s.lower() in text.lower()]
            assert not leaked, (leaked, text)
        # The end: the winners, the words (or the roles), the podium.
        for lang, tv in tvs:
            wait_until(lambda tv=tv: tv.page.locator("#tv-end").count() == 1, what="the end")
            wait_until(lambda tv=tv: tv.page.locator("#podium").count() == 1, what="the podium")
            text = _tv_text(tv)
            if engine == "undercover":
                for word in result["words"].values():
                    assert word in text
            if engine == "impostor":
                assert result["word"] in text
            tv.shot(f"tv-{engine}-{lang}-over")
            assert not tv.errors, tv.errors
            assert not tv.csp_violations()
            assert tv.overflow()[0] <= TV["width"]
        # The mute button silences the screen's own speaker at once, and back.
        page = tvs[0][1].page
        page.click("#tv-mute")
        assert page.evaluate("document.getElementById('remote-audio').muted")
        page.click("#tv-mute")
        assert not page.evaluate("document.getElementById('remote-audio').muted")
        assert {"clues", "vote"} & shot_phases or engine != "undercover"
    finally:
        for _, tv in tvs:
            tv.context.close()
        bt.stop()


NAMES16 = ["Ada", "Bruno", "Chloé", "Dario", "Elena", "Fabio", "Giulia", "Hugo", "Irene",
           "Jacopo", "Katia", "Luca", "Marta", "Nico", "Olga", "Piero"]


def test_sixteen_seats_fit_the_shared_screen(pw, server, tmp_path):
    """Issue 13: a full table (16 players) is shown whole on a 1920x1080 screen, in the
    lobby (beside the code and the QR) and during a game (beside the clues): every seat,
    face and name inside the screen, nothing cut off below."""
    bt = BotThread()
    tv = None
    try:
        async def make() -> list[Bot]:
            host = await Bot.create(server.base_url, NAMES16[0], preset="intruso")
            others = [await Bot.join(server.base_url, host.client.code, n) for n in NAMES16[1:]]
            return [host, *others]

        bots = bt.run(make(), timeout=120)
        bt.bots += bots
        code = bots[0].client.code
        tv = launch_player(pw, tmp_path, "tv-16", 0, viewport=TV, mic="missing")
        tv.page.goto(server.url(f"/r/{code}/tv"))
        wait_until(lambda: tv.page.locator("#tv-table .tv-seat").count() == 16, what="16 seats")

        def all_inside() -> list:
            boxes = tv.page.evaluate("""() => [...document.querySelectorAll('#tv-table .tv-seat')]
                .map((e) => { const r = e.getBoundingClientRect();
                              return [r.left, r.top, r.right, r.bottom]; })""")
            return [b for b in boxes if b[0] < 0 or b[1] < 0 or b[2] > TV["width"] or b[3] > TV["height"]]

        assert all_inside() == []
        tv.shot("tv-16-lobby")
        bt.run(bots[0].client.send("start"))
        wait_until(lambda: tv.state("s.view && s.view.phase") not in (None, "over"), what="the game")
        wait_until(lambda: tv.page.locator("#tv-table .tv-seat").count() == 16, what="16 seats")
        assert all_inside() == []
        tv.shot("tv-16-game")
        assert tv.overflow()[0] <= TV["width"] and not tv.errors
    finally:
        if tv is not None:
            tv.context.close()
        bt.stop()
