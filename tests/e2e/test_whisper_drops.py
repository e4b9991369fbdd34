"""Issue 8, "a whisper becomes public when its target drops": through a real `sussurro serve`
and real WebRTC, a whisper whose target (or whisperer) drops never puts the whisperer's
voice on the public bus; the whisperer is hushed and told at once, and a new whisper works.
Issue 29: nor does the whisperer's own socket blip; the hush outlives it.

The whisperer talks on TONES[0] (the bin where the other seats' coding noise is lowest);
"absent" means at least ISOLATION dB under the level its target heard while the whisper
lasted, the same bar as the other voice tests: not a quieter copy.
"""

from __future__ import annotations

import pytest

from client.rtc_peer import Tone
from tests.e2e.bots import close_all, drive, listen, open_bot_room, start_game
from tests.e2e.voice_room import TONES, levels, record_all
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

PRESENT = -30.0
ISOLATION = 60.0
LONG = 1800


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    with ServerProc(tmp_path_factory.mktemp("whisper") / "s.db") as server:
        yield server


async def _debate(srv):
    """Three talking bots in the debate: whisperer (TONES[0]), target, listener."""
    bots = await open_bot_room(srv.base_url, [Tone(TONES[0]), Tone(TONES[1]), Tone(TONES[2])],
                               options={"powers": [], "fantasmi": 0,
                                        "timers": {"clue": 5, "debate": LONG}})
    await start_game(bots)
    await drive(bots, lambda v: v["phase"] == "debate", skip=("ready", "vote"))
    return bots


async def _whisper(srv, whisperer, target) -> float:
    """Start the whisper; the level at which the target hears the whisperer (in a window
    free of server-side glitches: on a starved machine any voice can drop out for a while,
    and this level is the reference that absence is judged against)."""
    mark = whisperer.client.mark()
    await whisperer.client.send("whisper_start", to=target.pid)
    await whisperer.client.wait_for(lambda m: m["type"] == "whisper" and m["active"], since=mark)
    heard = levels(await listen(srv.base_url, [target], 0.75), TONES[0])[target.pid]
    assert heard > PRESENT, heard
    return heard


def _absent(rec, heard: float) -> None:
    for pid, level in levels(rec, TONES[0]).items():
        assert level < heard - ISOLATION, (pid, level, heard)


async def _ended(bot, mark: int, *reasons: str) -> dict:
    return await bot.client.wait_for(
        lambda m: m["type"] == "whisper" and not m["active"] and m.get("reason") in reasons,
        since=mark)


async def test_the_targets_reload_hushes_the_whisperer_and_never_makes_them_public(srv):
    bots = await _debate(srv)
    w, t, listener = bots
    try:
        heard = await _whisper(srv, w, t)
        mark = w.client.mark()
        await t.close()  # a reload, a locked phone: socket and voice gone
        # whichever the server notices first: the voice or the socket closing
        note = await _ended(w, mark, "target_left", "target_no_voice")
        assert note["to"] == t.pid and note["hushed"] is True
        _absent(await record_all({w.pid: w, listener.pid: listener}, 1.0), heard)

        # The target comes back: no whisper is announced to them, the whisperer stays hushed.
        mark_t = t.client.mark()
        await t.client.connect()
        await t.start_voice()
        assert not [m for m in t.client.messages[mark_t:]
                    if m["type"] == "whisper" and m["active"]]
        _absent(await record_all({p.pid: p for p in bots}, 1.0), heard)

        # A new whisper to them works (room and mixer agree again), and letting go is public.
        again = await _whisper(srv, w, t)
        _absent(await record_all({listener.pid: listener}, 0.75), again)
        await w.client.send("whisper_stop")
        rec = await listen(srv.base_url, [listener, t], 0.75)
        assert min(levels(rec, TONES[0]).values()) > PRESENT
    finally:
        await close_all(bots)


async def _blip_back(bot) -> dict:
    """`bot`'s socket (already closed) opens again with a new voice; its welcome."""
    mark = bot.client.mark()
    await bot.client.connect()
    await bot.start_voice()
    return next(m for m in bot.client.messages[mark:] if m["type"] == "welcome")


async def _blip(bot) -> dict:
    """The bot's socket closes and its page reconnects by itself (same token), the voice
    restarting on `welcome` as the web client's does; that welcome."""
    await bot.client.close()
    return await _blip_back(bot)


async def test_issue29_the_whisperers_socket_blip_keeps_them_hushed_until_they_let_go(srv):
    """Issue 29 item 1: the whisperer's socket closes while the voice still sends (a phone
    going to sleep) and the page reconnects by itself. The whisper ends, and the whisperer
    stays heard by nobody on the new socket (its welcome says so) until their own
    gesture: letting go makes them public, a new whisper_start resumes the whisper."""
    bots = await _debate(srv)
    w, t, listener = bots
    try:
        heard = await _whisper(srv, w, t)
        mark = t.client.mark()
        await w.client.close()
        note = await _ended(t, mark, "whisperer_left")
        assert note["from"] == w.pid
        _absent(await record_all({t.pid: t, listener.pid: listener}, 1.0), heard)

        # Reconnected with a new voice: still hushed, absent from every other mix.
        welcome = await _blip_back(w)
        _absent(await record_all({t.pid: t, listener.pid: listener}, 1.0), heard)
        assert welcome.get("whisper") == {"to": t.pid, "hushed": True, "resumable": True}

        # The finger still down: the page resumes with a new whisper_start, the target alone.
        again = await _whisper(srv, w, t)
        _absent(await record_all({listener.pid: listener}, 0.75), again)

        # Another blip, then letting go: public again, and only then.
        welcome = await _blip(w)
        _absent(await record_all({t.pid: t, listener.pid: listener}, 0.75), heard)
        assert welcome["whisper"]["hushed"] is True
        mark = w.client.mark()
        await w.client.send("whisper_stop")
        done = await w.client.wait_for(lambda m: m["type"] == "whisper", since=mark)
        assert done["active"] is False and done["hushed"] is False
        rec = await listen(srv.base_url, [t, listener], 0.75)
        assert min(levels(rec, TONES[0]).values()) > PRESENT
    finally:
        await close_all(bots)


async def test_the_targets_voice_dropping_while_its_socket_stays_hushes_the_whisperer(srv):
    bots = await _debate(srv)
    w, t, listener = bots
    try:
        heard = await _whisper(srv, w, t)
        marks = w.client.mark(), t.client.mark()
        await t.stop_voice()  # the voice connection closes; the socket stays
        note = await _ended(w, marks[0], "target_no_voice")
        assert note["hushed"] is True
        await _ended(t, marks[1], "target_no_voice")  # both screens are updated
        _absent(await record_all({listener.pid: listener}, 1.0), heard)

        # Still hushed when the target's voice is back, until the whisperer lets go.
        await t.start_voice()
        _absent(await record_all({listener.pid: listener, t.pid: t}, 0.75), heard)
        # Issue 29: a hushed whisperer whose own socket blips is still hushed after it.
        welcome = await _blip(w)
        _absent(await record_all({listener.pid: listener, t.pid: t}, 1.0), heard)
        assert welcome.get("whisper") == {"to": t.pid, "hushed": True, "resumable": True}
        mark = w.client.mark()
        await w.client.send("whisper_stop")
        done = await w.client.wait_for(lambda m: m["type"] == "whisper", since=mark)
        assert done["active"] is False and done["hushed"] is False
        rec = await listen(srv.base_url, [listener, t], 0.75)
        assert min(levels(rec, TONES[0]).values()) > PRESENT
    finally:
        await close_all(bots)
