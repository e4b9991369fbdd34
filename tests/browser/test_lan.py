"""Issue 14's proof in real Chromium, with a name that reaches the server on loopback
but is not localhost (`sussurro.test`, host-resolver rules), as phones on a LAN see it:

- over plain http the client says the microphone needs the secure address and links to
  it, instead of a generic "no microphone";
- with `sussurro serve --lan`, plain http shows the first-visit guide whose button goes
  on to the https address (same host and port), where three players with fake mics play
  a whole round with voice (the self-made certificate is accepted in this test browser
  only, with --ignore-certificate-errors).
"""

from __future__ import annotations

import pytest

from tests.browser.harness import LAN_ARGS, LAN_NAME, i18n, launch_player, open_rules, wait_until
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IT = i18n("it")
HEARD_DB = -50.0


def test_over_plain_http_the_client_says_the_mic_needs_https_and_links_to_it(server, pw, tmp_path):
    ada = launch_player(pw, tmp_path, "Ada", 600.0, extra_args=LAN_ARGS)
    try:
        home = f"http://{LAN_NAME}:{server.port}/"
        ada.page.goto(home)
        ada.page.wait_for_selector("#insecure-notice")
        assert ada.page.evaluate("window.isSecureContext") is False
        # Said before a seat is taken here, with the https address of this very page.
        assert ada.page.inner_text("#insecure-notice .warn") == IT["net.insecure"]
        assert ada.page.get_attribute("#secure-link", "href") == f"https://{LAN_NAME}:{server.port}/"
        ada.page.fill("#name", "Ada")
        ada.page.click("#create-btn")
        ada.page.wait_for_selector("#room-code")
        code = ada.page.inner_text("#room-code").strip()
        # In the lobby the mic card says the same, links to the room's https page, and
        # offers no "turn on the microphone" that could only fail.
        card = ada.page.locator(".mic-insecure")
        card.wait_for()
        assert card.locator(".warn").inner_text() == IT["net.insecure"]
        assert card.locator("#secure-link").get_attribute("href") == (
            f"https://{LAN_NAME}:{server.port}/r/{code}")
        assert ada.page.locator("#mic-enable").count() == 0
        assert ada.state("s.mic") in ("unknown", "insecure")
        assert IT["mic.missing"] not in ada.page.inner_text("body")
        # Playing by text stays possible.
        ada.page.click("#mic-skip")
        wait_until(lambda: ada.state("s.mic") == "skipped", what="text only")
        assert not ada.errors, ada.errors
    finally:
        ada.context.close()


@pytest.fixture
def lan_server(tmp_path):
    srv = ServerProc(tmp_path / "s.db", args=["--lan"])
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def through_the_guide(player, port: int, path: str) -> None:
    """Open the plain http address as typed on a phone, read the guide, go on to https."""
    player.page.goto(f"http://{LAN_NAME}:{port}{path}")
    player.page.wait_for_selector("#guide-continue")
    assert player.page.inner_text("h1") == IT["guide.title"]
    assert player.page.locator(".guide-step").count() == 5        # 2 Android, 3 iOS
    assert player.page.get_attribute("#guide-continue", "href") == f"https://{LAN_NAME}:{port}{path}"
    player.page.click("#guide-continue")
    player.page.wait_for_url(f"https://{LAN_NAME}:{port}{path}")
    assert player.page.evaluate("window.isSecureContext") is True


def hears(listener, speaker) -> bool:
    return listener.levels([speaker.freq])[0] > HEARD_DB


def test_a_whole_voice_round_over_the_lan_https_address(lan_server, pw, tmp_path):
    port = lan_server.port
    names = {"Ada": 520.0, "Bruno": 760.0, "Carla": 1100.0}
    table = [launch_player(pw, tmp_path, n, f, extra_args=LAN_ARGS) for n, f in names.items()]
    ada, bruno, carla = table
    try:
        through_the_guide(ada, port, "/")
        ada.page.fill("#name", "Ada")
        ada.page.click("#create-btn")
        ada.page.wait_for_selector("#room-code")
        code = ada.page.inner_text("#room-code").strip()
        # The lobby shows the same https address as the QR code.
        wait_until(lambda: ada.page.inner_text("#room-link").startswith("https://"),
                   what="the https room link")
        assert ada.page.inner_text("#room-link") == f"https://127.0.0.1:{port}/r/{code}"
        ada.page.click("#mic-enable")
        for p in (bruno, carla):
            through_the_guide(p, port, f"/r/{code}")
            p.page.fill("#name", p.name)
            p.page.click("#join-btn")
            p.page.wait_for_selector("#room-code")
            p.page.click("#mic-enable")
        wait_until(lambda: ada.page.locator(".player-row").count() == 3, what="three in the lobby")
        wait_until(lambda: all(p.state("s.mic") == "on" and p.state("s.voice") == "on" for p in table),
                   timeout=60, what="mic and voice on every page over https")
        # No powers: the round is clues, debate, vote.
        open_rules(ada.page)
        ada.page.click("#opt-powers-pick")
        wait_until(lambda: ada.state("s.room.settings.options.powers.length === 0"), what="no powers")
        ada.page.click("#start-btn")
        wait_until(lambda: all(p.state("s.view && s.view.phase === 'clues'") for p in table), what="clues")
        # Every voice reaches the other two through the server's mixes.
        for listener in table:
            for speaker in table:
                if speaker is not listener:
                    wait_until(lambda listener=listener, speaker=speaker: hears(listener, speaker),
                               timeout=30, what=f"{listener.name} hears {speaker.name}")
        by_pid = {p.pid: p for p in table}
        words = {p.name: p.state("s.view.me.word") for p in table}
        for i in range(3):
            turn = by_pid[wait_until(lambda: ada.state("s.view.phase === 'clues' && s.view.turn"),
                                     what="a turn")]
            turn.page.wait_for_selector("#clue-input")
            turn.page.fill("#clue-input", f"zorblat {'abc'[i]}")
            turn.page.click("#clue-input-send")
            wait_until(lambda i=i: ada.state("s.view.clues.length") == i + 1, what=f"clue {i + 1}")
        wait_until(lambda: all(p.state("s.view.phase === 'debate'") for p in table), what="debate")
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
        wait_until(lambda: all(p.state("s.view.phase === 'over'") for p in table), what="the end")
        for p in table:
            p.page.wait_for_selector("#end-title")
            expected = IT["end.you_lost"] if p is intruder else IT["end.you_won"]
            assert p.page.inner_text("#end-title") == expected
            assert not p.errors, (p.name, p.errors)
    finally:
        for p in table:
            p.context.close()
