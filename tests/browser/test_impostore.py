"""Four real Chromium pages play an evening of Impostore against the real server, with
voice: a whole game in each style (Classica, Esperti, Caos, then Sosia), the anonymous
"Non conosco la parola" and its vote, guided turns with the called phone's chime and
buzz, floor control heard as such (a player who is not called is absent from the others'
mixes, measured by spectrum in each page), the changeable vote, the guess, and the
podium and awards after three games; at phone size, and the lobby and the end on a
desktop.
"""

from __future__ import annotations

import pytest

from tests.browser.harness import i18n, join_room, launch_player, open_rules, wait_until
from tests.browser.test_game_voice import assert_silent, hears, silent_now

# A four-page game with voice loads both cores: it runs alone (solo, see tests/conftest.py).
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.solo]

IT = i18n("it")
TONES = {"Ada": 520.0, "Bruno": 700.0, "Carla": 960.0, "Dario": 1300.0}
DESKTOP = {"width": 1280, "height": 900}
# Every vibration the page asks for, for the test to read (headless phones do not buzz).
RECORD_BUZZ = """
window.__buzz = [];
navigator.vibrate = (pattern) => { window.__buzz.push(pattern); return true; };
"""
TURN_BUZZ = [120, 60, 120]  # web/js/audio.js yourTurn()


def fits(player, label):
    """Save the screenshot and check nothing overflows sideways."""
    player.shot(label)
    width, client = player.overflow()
    assert width <= client, f"{label}: horizontal overflow on {player.name} ({width} > {client})"


def desktop_shot(player, label):
    player.page.set_viewport_size(DESKTOP)
    try:
        fits(player, label)
    finally:
        player.page.set_viewport_size({"width": 360, "height": 740})


def public(view):
    """A view without the player's own card: what every player sees alike."""
    return {k: v for k, v in view.items() if k != "me"}


@pytest.fixture
def table(pw, tmp_path):
    players = [launch_player(pw, tmp_path, name, freq) for name, freq in TONES.items()]
    for p in players:
        p.context.add_init_script(RECORD_BUZZ)
    yield players
    for p in players:
        p.context.close()


def phase(player):
    return player.state("s.view && s.view.phase")


def everyone(table, name):
    wait_until(lambda: all(phase(p) == name for p in table), timeout=20, what=f"phase {name}")


def all_seen(table):
    for p in table:
        if p.page.locator("#seen-btn").count():
            p.page.click("#seen-btn")
    everyone(table, "clues")


def guided_turns(table, by_pid):
    """Each called player says their clue and taps "done", round after round."""
    host = table[0]
    while phase(host) == "clues":
        turn = by_pid[host.state("s.view.turn")]
        taken = len(host.state("s.view.turns_taken"))
        turn.page.click("#done-btn")
        wait_until(lambda taken=taken: phase(host) != "clues"
                   or len(host.state("s.view.turns_taken")) > taken, what="the next turn")
    everyone(table, "vote")


def vote_out(table, target, other):
    """Everyone taps `target` (who taps `other`); the last vote closes the ballot."""
    for p in table:
        choice = other if p is target else target
        p.page.click(f".pcard[data-pid='{choice.pid}'] .avatar")
        wait_until(lambda p=p, choice=choice: p.state("s.view.me && s.view.me.vote") == choice.pid
                   or phase(p) not in ("vote", "runoff", "revote"), what=f"{p.name}'s vote")


def impostor_of(table):
    return next(p for p in table if p.state("s.view.me.role") == "impostore")


def guess(player, word):
    player.page.wait_for_selector("#guess-input")
    player.page.fill("#guess-input", word)
    player.page.click("#guess-input-send")


def rematch_as(host, table, preset):
    """The host picks the next game on the end screen, then the rematch."""
    if not host.page.is_visible("#next-rules #opt-preset"):
        host.page.click("#next-rules summary")
    host.page.select_option("#next-rules #opt-preset", preset)
    wait_until(lambda: host.state("s.room.settings.preset") == preset, what=f"preset {preset}")
    host.page.click("#rematch-btn")
    wait_until(lambda: all(p.state("s.room.preset") == preset and phase(p) not in (None, "over")
                           for p in table), timeout=20, what=f"a game of {preset}")


def test_an_evening_of_impostore_in_every_style_with_voice(server, table):
    ada, bruno, carla, dario = table

    # ---- the lobby: Impostore · Classica chosen at home, floor control on ----
    ada.page.goto(server.url("/?testaudio=1"))
    ada.page.fill("#name", "Ada")
    ada.page.select_option("#preset", "classica")
    ada.page.click("#create-btn")
    ada.page.wait_for_selector("#room-code")
    code = ada.page.inner_text("#room-code").strip()
    ada.page.click("#mic-enable")
    for p in (bruno, carla, dario):
        join_room(server, p, code, query="?testaudio=1")
        p.page.click("#mic-enable")
    wait_until(lambda: ada.page.locator(".player-row").count() == 4, what="four in the lobby")
    assert ada.page.input_value("#opt-preset") == "classica"
    open_rules(ada.page)
    ada.page.check("#opt-floor")
    wait_until(lambda: ada.state("s.room.settings.options.floor") is True, what="floor control on")
    wait_until(lambda: bruno.page.is_checked("#opt-floor"), what="Bruno reads the setting")
    assert bruno.page.is_disabled("#opt-floor")
    fits(ada, "imp_01_lobby_host")
    desktop_shot(ada, "imp_01_lobby_desktop")
    wait_until(lambda: all(p.state("s.voice") == "on" for p in table), timeout=60,
               what="voice connected on every page")

    # ==== game 1: Classica ====
    ada.page.click("#start-btn")
    everyone(table, "card")
    by_pid = {p.pid: p for p in table}
    words = {p.name: p.state("s.view.me.word") for p in table}
    impostor = impostor_of(table)
    assert words[impostor.name] is None and impostor.state("s.view.me.hint")
    # The card shows only while held.
    assert not carla.page.is_visible("#my-role")
    box = carla.page.locator("#secret-card").bounding_box()
    carla.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    carla.page.mouse.down()
    wait_until(lambda: carla.page.is_visible("#my-role"), what="card revealed")
    fits(carla, "imp_02_card_held")
    carla.page.mouse.up()
    wait_until(lambda: not carla.page.is_visible("#my-role"), what="card hidden again")

    # "Non conosco la parola": Carla asks; the others cannot tell who.
    carla.page.on("dialog", lambda d: d.accept())
    carla.page.click("#ask-word-btn")
    everyone(table, "word_vote")
    others = [ada, bruno, dario]
    views = [public(p.view()) for p in others]
    assert views[0] == views[1] == views[2]
    panels = {p.page.inner_text(".panel") for p in others}
    assert len(panels) == 1 and "Carla" not in panels.pop()
    assert carla.page.is_visible("#word-yes") and not carla.page.locator("#ask-word-btn").count()
    fits(ada, "imp_03_word_vote")
    for p, button in ((ada, "#word-yes"), (bruno, "#word-no"), (carla, "#word-yes"),
                      (dario, "#word-yes")):
        p.page.click(button)
    everyone(table, "card")
    changed = {p.name: p.state("s.view.me.word") for p in table}
    assert all(changed[n] != words[n] for n in words if words[n])
    assert IT["imp.wv.changed"].format(yes=3, no=1) in ada.page.inner_text("#word-vote-result")

    # Guided turns with floor control: the called phone chimes and buzzes; only they are heard.
    all_seen(table)
    first = by_pid[ada.state("s.view.turn")]
    wait_until(lambda: TURN_BUZZ in first.page.evaluate("window.__buzz"), what="the caller's buzz")
    assert all(TURN_BUZZ not in p.page.evaluate("window.__buzz") for p in table if p is not first)
    assert first.page.is_visible("#done-btn")
    quiet = [p for p in table if p is not first]
    assert all(p.page.is_visible("#floor-note") for p in quiet)
    fits(first, "imp_04_my_turn")
    fits(quiet[0], "imp_05_floor_closed")
    for listener in quiet:
        wait_until(lambda listener=listener: hears(listener, first, table), timeout=20,
                   what=f"{listener.name} hears the called {first.name}")
    for listener in quiet:
        for speaker in quiet:
            if speaker is not listener:
                wait_until(lambda listener=listener, speaker=speaker:
                           silent_now(listener, speaker, table), timeout=20,
                           what=f"{speaker.name} leaves {listener.name}'s mix")
                assert_silent(listener, speaker, table, f"{speaker.name} off the floor", needed=4)
    # The floor passes on with the turn.
    first.page.click("#done-btn")
    second = by_pid[wait_until(lambda: ada.state("s.view.turn") != first.pid
                               and ada.state("s.view.turn"), what="the second turn")]
    wait_until(lambda: hears(first, second, table), timeout=20, what="the second speaker heard")
    guided_turns(table, by_pid)

    # Discussion and the changeable vote, then the impostor's one try.
    innocent = next(p for p in table if p is not impostor)
    ada_target = innocent if innocent is not ada else bruno
    ada.page.click(f".pcard[data-pid='{ada_target.pid}'] .avatar")
    wait_until(lambda: ada.state("s.view.me.vote") == ada_target.pid, what="Ada's first vote")
    fits(ada, "imp_06_vote")
    # The notepad (RULES.md, 002 "Consigli"): a private mark on an avatar, on this phone only.
    mark = carla.page.locator(f".pcard[data-pid='{dario.pid}'] .mark")
    mark.click()
    wait_until(lambda: mark.get_attribute("data-mark") == "suspect", what="Carla's mark")
    assert ada.page.get_attribute(f".pcard[data-pid='{dario.pid}'] .mark", "data-mark") == "none"
    vote_out(table, impostor, innocent)   # Ada changes her vote to the impostor
    everyone(table, "guess")
    fits(impostor, "imp_07_guess")
    guess(impostor, "zorblat")
    everyone(table, "over")
    for p in table:
        p.page.wait_for_selector("#end-title")
        won = p is not impostor
        assert p.page.inner_text("#end-title") == IT["end.you_won" if won else "end.you_lost"]
        assert p.page.inner_text("#end-word") == changed[innocent.name]
    assert ada.page.locator("#podium .step").count() >= 1
    assert IT["evening.awards_soon"] in ada.page.inner_text("#awards-soon")
    fits(ada, "imp_08_end")

    # ==== game 2: Esperti (nothing for the impostor, 2 rounds, secret vote) ====
    rematch_as(ada, table, "esperti")
    everyone(table, "card")
    impostor = impostor_of(table)
    assert impostor.state("s.view.me.hint") is None and impostor.state("s.view.me.category") is None
    assert impostor.page.evaluate("window.scrollY") == 0  # the rematch starts at the top
    box = impostor.page.locator("#secret-card").bounding_box()
    impostor.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    impostor.page.mouse.down()
    wait_until(lambda: impostor.page.is_visible("#secret-nothing"), what="an empty card")
    impostor.page.mouse.up()
    all_seen(table)
    called = by_pid[ada.state("s.view.turn")]
    for listener in table:
        if listener is not called:
            wait_until(lambda listener=listener: hears(listener, called, table), timeout=20,
                       what=f"{listener.name} hears {called.name} (Esperti)")
    guided_turns(table, by_pid)
    assert len(ada.state("s.view.turns_taken")) == 8  # two rounds of four
    innocent = next(p for p in table if p is not impostor)
    vote_out(table, impostor, innocent)
    assert all(p.page.locator(".badge-vote").count() == 0 for p in table)  # the secret vote
    everyone(table, "guess")
    guess(impostor, "zorblat")
    everyone(table, "over")

    # ==== game 3: Caos (random count, by elimination): then the awards ====
    rematch_as(ada, table, "caos")
    everyone(table, "card")
    impostors = [p for p in table if p.state("s.view.me.role") == "impostore"]
    assert len(impostors) == 1   # at 4 players the random count is at most 1
    assert ada.state("s.view.impostors") is None  # nobody is told how many
    all_seen(table)
    called = by_pid[ada.state("s.view.turn")]
    # the impostor hears the called player's clue; if the impostor is the one called,
    # another player does (not Ada by name: she may be both)
    listener = (impostors[0] if impostors[0] is not called
                else next(p for p in table if p is not called))
    wait_until(lambda: hears(listener, called, table), timeout=20,
               what=f"a clue heard (Caos): {listener.name} hears {called.name}")
    guided_turns(table, by_pid)
    vote_out(table, impostors[0], next(p for p in table if p is not impostors[0]))
    everyone(table, "guess")
    guess(impostors[0], "zorblat")
    everyone(table, "over")
    wait_until(lambda: ada.page.locator("#awards .award").count() >= 1, what="the awards")
    assert ada.state("s.room.evening.games") == 3
    fits(ada, "imp_09_end_awards")
    desktop_shot(dario, "imp_09_end_desktop")

    # ==== game 4: Sosia (the undercover engine): typed clues, then the impostor's guess ====
    rematch_as(ada, table, "sosia")
    everyone(table, "clues")
    words = {p.name: p.state("s.view.me.word") for p in table}
    sosia = next(p for p in table if list(words.values()).count(words[p.name]) == 1)
    wait_until(lambda: hears(sosia, ada if sosia is not ada else bruno, table), timeout=20,
               what="a clue heard (Sosia)")
    for i in range(4):
        turn = by_pid[wait_until(lambda: ada.state("s.view.phase === 'clues' && s.view.turn"),
                                 what="a turn")]
        turn.page.wait_for_selector("#clue-input")
        turn.page.fill("#clue-input", f"zorblat {'abcd'[i]}")
        turn.page.click("#clue-input-send")
        wait_until(lambda i=i: ada.state("s.view.clues.length") == i + 1, what=f"clue {i + 1}")
    everyone(table, "debate")
    for p in table:
        p.page.click("#ready-btn")
    everyone(table, "vote")
    vote_out(table, sosia, next(p for p in table if p is not sosia))
    everyone(table, "guess")
    guess(sosia, "zorblat")
    everyone(table, "over")
    assert ada.state("s.room.evening.games") == 4
    assert ada.page.locator("#podium .step").count() >= 1
    fits(sosia, "imp_10_sosia_end")
    for p in table:
        assert not p.errors, (p.name, p.errors)
