"""Four real Chromium pages play a whole Intruso game against the real server, with voice.

Each page has its own fake microphone "speaking" one tone in syllables; each page analyses
its own incoming mix in the page (Web Audio), so "who hears whom" is measured where
the player would hear it. The UI is driven like a player: typing, tapping, holding.
"""

from __future__ import annotations

import time

import pytest

from tests.browser.harness import i18n, join_room, launch_player, open_rules, wait_until

# A four-page game with voice loads both cores: it runs alone (solo, see tests/conftest.py).
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.solo]

I18N = {lang: i18n(lang) for lang in ("it", "fr", "en")}
# Tones chosen so no 2nd/3rd-order intermodulation product of any two or three of
# them lands near a fourth (a limiter on the mix would otherwise fake a "heard" tone).
TONES = {"Ada": 520.0, "Bruno": 700.0, "Carla": 960.0, "Dario": 1300.0}
HEARD_DB = -50.0     # a voice in the mix: about -30 dB here
# Absent: usually -70 dB or lower, but on a loaded machine (starved jitter buffers,
# concealment) the codec's noise can lift every bin to about -55 dB; so absence is
# judged against the voices heard at that same moment. A leaked voice would be about
# as loud as the others (a gap near 0 dB); an absent one is 15 to 40 dB below.
SILENT_DB = -45.0
GAP_DB = 12.0


def no_overflow(player, label):
    width, client = player.overflow()
    assert width <= client, f"{label}: horizontal overflow on {player.name} ({width} > {client})"


def screen(player, label):
    """Save the phase's screenshot at phone size and check it fits."""
    player.shot(label)
    no_overflow(player, label)


def levels_by_name(player, players):
    values = player.levels([p.freq for p in players])
    return {p.name: v for p, v in zip(players, values, strict=True)}


def hears(player, speaker, players):
    return levels_by_name(player, players)[speaker.name] > HEARD_DB


def silent_now(listener, speaker, players):
    """True when `listener`'s mix carries other voices but not `speaker`'s."""
    lv = levels_by_name(listener, players)
    loudest = max(v for name, v in lv.items() if name not in (speaker.name, listener.name))
    return loudest > HEARD_DB and lv[speaker.name] < SILENT_DB and lv[speaker.name] < loudest - GAP_DB


def assert_silent(listener, speaker, players, what, needed=6, timeout=15.0):
    """`speaker`'s tone stays far below the voices `listener` does hear.

    Only samples where the mix demonstrably carries another voice count (on a busy
    machine a mix can starve for a moment: then nothing is heard, which proves
    nothing); every counted sample must show the speaker absent.
    """
    counted, deadline = 0, time.monotonic() + timeout
    while counted < needed:
        assert time.monotonic() < deadline, f"{what}: {listener.name}'s mix never carried other voices"
        lv = levels_by_name(listener, players)
        loudest = max(v for name, v in lv.items() if name not in (speaker.name, listener.name))
        if loudest > HEARD_DB:
            counted += 1
            assert lv[speaker.name] < SILENT_DB and lv[speaker.name] < loudest - GAP_DB, (
                f"{what}: {listener.name} hears {speaker.name}: {lv}")
        time.sleep(0.2)


def mouth_level(page_of, pid):
    return float(page_of.page.evaluate(
        "(pid) => Number(document.querySelector(`.mouth[data-pid='${pid}']`)?.dataset.level ?? -1)", pid))


def join(player, server, code, by):
    join_room(server, player, code, by=by, query="?testaudio=1")
    player.page.click("#mic-enable")


def set_option(host, selector_action, check, what):
    selector_action()
    wait_until(lambda: host.state(check), what=what)


@pytest.fixture
def table(pw, tmp_path):
    players = [launch_player(pw, tmp_path, name, freq) for name, freq in TONES.items()]
    yield players
    for p in players:
        p.context.close()


def test_four_pages_play_a_whole_game_with_voice(server, table):
    ada, bruno, carla, dario = table

    # ---- home and lobby: create, join by link and by typed code ----
    ada.page.goto(server.url("/?testaudio=1"))
    screen(ada, "01_home")
    ada.page.fill("#name", "Ada")
    ada.page.click("#create-btn")
    ada.page.wait_for_selector("#room-code")
    code = ada.page.inner_text("#room-code").strip()
    assert ada.page.url.endswith(f"/r/{code}?testaudio=1")
    ada.page.click("#mic-enable")
    join(bruno, server, code, by="link")
    join(carla, server, code, by="code")
    join(dario, server, code, by="link")
    wait_until(lambda: ada.page.locator(".player-row").count() == 4, what="four in the lobby")

    # The host's settings: one power, the Muto; the timers. Others read them only.
    open_rules(ada.page)
    set_option(ada, lambda: ada.page.click("#opt-powers-pick"),
               "s.room.settings.options.powers.length === 0", "powers picked by host")
    set_option(ada, lambda: ada.page.check("input[name=power][value=muto]"),
               "s.room.settings.options.powers.join() === 'muto'", "the Muto in play")
    # Long enough that no turn or phase runs out while the test listens to the voices (a
    # slow machine spends a minute and more on it): the turns are played, never skipped.
    for key, seconds in (("clue", 300), ("debate", 600), ("vote", 300)):
        ada.page.fill(f"#opt-timer-{key}", str(seconds))
        ada.page.press(f"#opt-timer-{key}", "Tab")
        wait_until(lambda key=key, seconds=seconds: ada.state(f"s.room.settings.options.timers.{key}") == seconds,
                   what=f"{key} timer")
    wait_until(lambda: bruno.page.is_checked("input[name=power][value=muto]"), what="Bruno sees the setting")
    assert bruno.page.is_disabled("#opt-preset") and not ada.page.is_disabled("#opt-preset")
    assert bruno.page.locator("#start-btn").count() == 0
    screen(ada, "02_lobby_host")
    screen(bruno, "02_lobby_guest")
    wait_until(lambda: all(p.state("s.voice") == "on" for p in table), timeout=60,
               what="voice connected on every page")

    # ---- the game starts: the clue phase ----
    ada.page.click("#start-btn")
    wait_until(lambda: all(p.state("s.view && s.view.phase === 'clues'") for p in table), what="clues")
    by_pid = {p.pid: p for p in table}
    muto = next(p for p in table if p.state("s.view.me.power") == "muto")
    talkers = [p for p in table if p is not muto]
    words = {p.name: p.state("s.view.me.word") for p in table}
    assert muto.page.is_visible("#muto-note") and muto.page.is_visible("#game-muted")

    # The secret card shows the word only while pressed.
    assert not ada.page.is_visible("#secret-word")
    box = ada.page.locator("#secret-card").bounding_box()
    ada.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    ada.page.mouse.down()
    wait_until(lambda: ada.page.is_visible("#secret-word"), what="card revealed")
    assert ada.page.inner_text("#secret-word") == words["Ada"]
    ada.page.mouse.up()
    wait_until(lambda: not ada.page.is_visible("#secret-word"), what="card hidden again")

    # Voice during clues: every talker is heard by the others; the Muto by nobody.
    for listener in table:
        for speaker in talkers:
            if speaker is not listener:
                wait_until(lambda listener=listener, speaker=speaker: hears(listener, speaker, table),
                           timeout=20, what=f"{listener.name} hears {speaker.name} during clues")
    # The lobby's audio still in flight (jitter buffers, a second or two) drains first.
    for listener in table:
        if listener is not muto:
            wait_until(lambda listener=listener: silent_now(listener, muto, table), timeout=20,
                       what=f"the Muto's voice leaves {listener.name}'s mix")
            assert_silent(listener, muto, table, "the Muto during clues")
    # Every page sees the talkers' mouths move, and the Muto's stay shut.
    for viewer in table:
        for speaker in talkers:
            wait_until(lambda viewer=viewer, speaker=speaker: mouth_level(viewer, speaker.pid) > 0,
                       what=f"{viewer.name} sees {speaker.name}'s mouth move")
        wait_until(lambda viewer=viewer: mouth_level(viewer, muto.pid) == 0,
                   what=f"{viewer.name} sees the Muto's mouth shut")

    # Clues in turn, typed like a player; the Muto's words are refused, emoji accepted.
    first = by_pid[ada.state("s.view.turn")]
    screen(first, "03_clues_my_turn")
    screen(next(p for p in table if p is not first), "04_clues_waiting")
    for i in range(4):
        turn = by_pid[wait_until(lambda: ada.state("s.view.phase === 'clues' && s.view.turn"), what="a turn")]
        turn.page.wait_for_selector("#clue-input")
        if turn is muto:
            turn.page.fill("#clue-input", "gatto")
            turn.page.click("#clue-input-send")
            wait_until(lambda turn=turn: turn.page.inner_text(".inline-error") == I18N["it"]["error.clue_not_emoji"],
                       what="the Muto's refusal in Italian")
            turn.page.fill("#clue-input", "")
            turn.page.click(".emoji-picker .emoji >> nth=0")
        else:
            turn.page.fill("#clue-input", f"zorblat {'abcd'[i]}")
        turn.page.click("#clue-input-send")
        wait_until(lambda i=i: ada.state("s.view.clues.length") == i + 1, what=f"clue {i + 1} on the board")
    wait_until(lambda: all(p.state("s.view.phase === 'debate'") for p in table), what="debate")
    for p in table:
        assert p.page.locator(".board .clue").count() == 4

    # ---- debate: Carla's private notepad, then a reload returns her seat, voice and notes ----
    screen(carla, "05_debate")
    mark = carla.page.locator(f".pcard[data-pid='{dario.pid}'] .mark")
    for expected in ("suspect", "trusted", "none", "suspect"):
        mark.click()
        wait_until(lambda expected=expected: mark.get_attribute("data-mark") == expected, what=f"mark {expected}")
    assert ada.page.get_attribute(f".pcard[data-pid='{dario.pid}'] .mark", "data-mark") == "none"
    seat = carla.pid
    carla.page.reload()
    wait_until(lambda: carla.state("s.view && s.view.phase") == "debate", what="Carla back in the debate")
    assert carla.pid == seat
    assert carla.page.get_attribute(f".pcard[data-pid='{dario.pid}'] .mark", "data-mark") == "suspect"
    wait_until(lambda: carla.state("s.voice") == "on", timeout=40, what="Carla's voice after reload")
    for speaker in (ada, bruno, dario):
        wait_until(lambda speaker=speaker: hears(carla, speaker, table), timeout=20,
                   what=f"Carla hears {speaker.name} after reload")
    wait_until(lambda: hears(ada, carla, table), timeout=20, what="Ada hears Carla after her reload")

    # ---- a whisper: Ada holds Bruno's avatar; only Bruno hears her; all see her mouth ----
    for listener in (bruno, carla, dario):
        wait_until(lambda listener=listener: hears(listener, ada, table), timeout=20,
                   what=f"{listener.name} hears Ada in the debate")
    target = ada.page.locator(f".pcard[data-pid='{bruno.pid}'] .avatar")
    box = target.bounding_box()
    ada.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    ada.page.mouse.down()
    try:
        wait_until(lambda: bruno.page.is_visible(f".banner-whisper[data-whisper-from='{ada.pid}']"),
                   what="Bruno's whisper banner")
        assert I18N["it"]["whisper.from"].format(name="Ada") in bruno.page.inner_text(".banner-whisper")
        for listener in (carla, dario):
            wait_until(lambda listener=listener: silent_now(listener, ada, table),
                       timeout=20, what=f"Ada's whisper leaves {listener.name}'s mix")
            assert_silent(listener, ada, table, "a whisper to Bruno")
        assert hears(bruno, ada, table), levels_by_name(bruno, table)
        for viewer in table:
            wait_until(lambda viewer=viewer: mouth_level(viewer, ada.pid) > 0,
                       what=f"{viewer.name} sees the whisperer's mouth move")
        screen(bruno, "06_debate_whispered_to")
    finally:
        ada.page.mouse.up()
    wait_until(lambda: not bruno.page.is_visible(".banner-whisper"), what="whisper banner gone")

    # ---- ready, then the vote: everyone votes the odd word out ----
    for p in table:
        p.page.click("#ready-btn")
    wait_until(lambda: all(p.state("s.view.phase === 'vote'") for p in table), what="vote")
    counts = {w: list(words.values()).count(w) for w in words.values()}
    intruder = next(p for p in table if counts[words[p.name]] == 1)
    for p in table:
        choice = intruder if p is not intruder else next(x for x in table if x is not intruder)
        p.page.click(f".pcard[data-pid='{choice.pid}'] .avatar")
        wait_until(lambda p=p, choice=choice: p.state("s.view.me.vote") == choice.pid or
                   p.state("s.view.phase") != "vote", what=f"{p.name}'s vote")
        if p is ada:
            screen(ada, "07_vote")
    wait_until(lambda: all(p.state("s.view.phase === 'over'") for p in table), what="the end")

    # ---- the end: winners, both words side by side, every role, the whole board ----
    civili_word = next(w for w, n in counts.items() if n == 3)
    for p in table:
        p.page.wait_for_selector("#end-title")
        assert p.page.inner_text("#word-civili") == civili_word
        assert p.page.inner_text("#word-intruso") == words[intruder.name]
        title = p.page.inner_text("#end-title")
        assert title == (I18N["it"]["end.you_lost"] if p is intruder else I18N["it"]["end.you_won"])
        assert p.page.locator(".end-row").count() == 4
        assert p.page.locator(".end .board .clue").count() == 4
    screen(ada, "08_end")
    assert bruno.page.locator("#rematch-btn").count() == 0

    # ---- a rematch with the same settings: a new game, a clean notepad ----
    ada.page.click("#rematch-btn")
    wait_until(lambda: all(p.state("s.view && s.view.phase === 'clues' && s.view.round === 1") for p in table),
               what="the rematch's first clues")
    assert carla.page.get_attribute(f".pcard[data-pid='{dario.pid}'] .mark", "data-mark") == "none"
    assert sum(p.state("s.view.me.power") == "muto" for p in table) == 1
    for p in table:
        assert not p.errors, (p.name, p.errors)
