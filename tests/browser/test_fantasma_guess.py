"""The Fantasma, voted out, gets the last-chance field; guessing the Civili's word
(in another case, with a small typo) wins alone, and the end screen says so (000 §5-6)."""

from __future__ import annotations

import pytest

from tests.browser.harness import i18n, launch_player, seat_text_only, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IT = i18n("it")


def test_the_voted_out_fantasma_guesses_the_word_and_wins_alone(server, pw, tmp_path):
    trio = [launch_player(pw, tmp_path, name, 0, mic="missing") for name in ("Ivo", "Lia", "Max")]
    try:
        host = trio[0]
        seat_text_only(server, trio)
        # One Fantasma, no Intruso, no powers.
        host.page.select_option("#opt-intrusi", "0")
        wait_until(lambda: host.state("s.room.settings.options.intrusi") == 0, what="no intrusi")
        host.page.select_option("#opt-fantasmi", "1")
        wait_until(lambda: host.state("s.room.settings.options.fantasmi") == 1, what="one fantasma")
        host.page.click("#opt-powers-pick")
        wait_until(lambda: host.state("s.room.settings.options.powers.length === 0"), what="no powers")
        host.page.click("#start-btn")
        wait_until(lambda: all(p.state("s.view && s.view.phase === 'clues'") for p in trio), what="clues")

        ghost = next(p for p in trio if p.state("s.view.me.role") == "fantasma")
        civili = [p for p in trio if p is not ghost]
        word = civili[0].state("s.view.me.word")
        assert ghost.state("s.view.me.word") is None
        box = ghost.page.locator("#secret-card").bounding_box()
        ghost.page.mouse.move(box["x"] + 20, box["y"] + 20)
        ghost.page.mouse.down()
        assert ghost.page.inner_text("#secret-word") == IT["card.no_word"]
        ghost.page.mouse.up()

        by_pid = {p.pid: p for p in trio}
        for i in range(3):
            turn = by_pid[wait_until(lambda: host.state("s.view.phase === 'clues' && s.view.turn"), what="turn")]
            if i == 0:
                assert turn is not ghost          # the Fantasma never opens a round
            turn.page.fill("#clue-input", f"zorblat {'xyz'[i]}")
            turn.page.click("#clue-input-send")
            wait_until(lambda i=i: host.state("s.view.clues.length") == i + 1, what=f"clue {i + 1}")
        wait_until(lambda: all(p.state("s.view.phase === 'debate'") for p in trio), what="debate")
        for p in trio:
            p.page.click("#ready-btn")
        wait_until(lambda: all(p.state("s.view.phase === 'vote'") for p in trio), what="vote")
        for p in trio:
            target = ghost if p is not ghost else civili[0]
            p.page.click(f".pcard[data-pid='{target.pid}'] .avatar")
        wait_until(lambda: all(p.state("s.view.phase === 'guess'") for p in trio), what="the guess")
        # Everyone sees who is guessing and what they were; only the Fantasma gets the field.
        for p in civili:
            assert p.page.locator("#guess-input").count() == 0
            assert ghost.name in p.page.inner_text(".panel")
            assert p.page.locator(f".pcard[data-pid='{ghost.pid}'] .badge-dead").inner_text() == IT["role.fantasma"]
        ghost.shot("10_guess")
        typo = word.upper()[:-1] + ("A" if word[-1].lower() != "a" else "E") if len(word) > 5 else word.upper()
        ghost.page.fill("#guess-input", typo)
        ghost.page.click("#guess-input-send")
        wait_until(lambda: all(p.state("s.view.phase === 'over'") for p in trio), what="the end")
        assert ghost.page.inner_text("#end-title") == IT["end.you_won"]
        assert ghost.page.inner_text("#end-side") == IT["end.side.fantasma"]
        for p in civili:
            assert p.page.inner_text("#end-title") == IT["end.you_lost"]
            assert p.page.inner_text("#word-civili") == word
        for p in trio:
            assert not p.errors, (p.name, p.errors)
    finally:
        for p in trio:
            p.context.close()
