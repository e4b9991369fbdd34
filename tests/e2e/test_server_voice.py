"""Voice through a real `sussurro serve`: bots join over HTTP, talk over WebRTC, play over
the WebSocket protocol. Who hears whom is read from the spectrum of each bot's recording.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time

import numpy as np
import pytest
import soundfile as sf

from client.bot import Bot
from client.rtc_peer import Syllables, Tone
from server.media.rtc import VoiceError
from tests.e2e.bots import close_all, drive, listen, open_bot_room, start_game
from tests.e2e.spectrum import pitch_spread_cents, tone_db
from tests.e2e.voice_room import TONES, levels
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

PRESENT = -30.0
ISOLATION = 60.0
DRUNK_CENTS = 40.0
CLEAN_CENTS = 10.0
LONG = 1800  # seconds: a phase that must not end by itself during a measurement


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    with ServerProc(tmp_path_factory.mktemp("voice") / "s.db") as server:
        yield server


async def test_a_whisper_is_heard_by_its_target_only_and_everyone_sees_the_mouth(srv):
    sources = [Syllables(TONES[0]), Tone(TONES[1]), Tone(TONES[2]), Tone(TONES[3])]
    bots = await open_bot_room(srv.base_url, sources, options={
        "powers": [], "fantasmi": 0, "timers": {"clue": 5, "debate": LONG}})
    try:
        await start_game(bots)
        await drive(bots, lambda v: v["phase"] == "debate", skip=("ready", "vote"))
        whisperer, target = bots[0], bots[1]
        marks = [b.client.mark() for b in bots]
        await whisperer.client.send("whisper_start", to=target.pid)
        await whisperer.client.wait_for(lambda m: m["type"] == "whisper" and m["active"],
                                        since=marks[0])
        rec = await listen(srv.base_url, bots, 1.0)
        lv = levels(rec, TONES[0])
        assert lv[target.pid] > PRESENT, lv
        for b in bots:
            if b is not target:
                assert lv[b.pid] < lv[target.pid] - ISOLATION, (b.pid, lv)
        # the other voices stay public
        assert levels(rec, TONES[2])[whisperer.pid] > PRESENT
        # every client is shown the whisperer's mouth moving
        for b, mark in zip(bots, marks, strict=True):
            seen = [m["levels"].get(whisperer.pid, 0.0) for m in b.client.messages[mark:]
                    if m["type"] == "mouths"]
            assert seen and max(seen) > 0.05, (b.pid, seen[-5:])
    finally:
        await close_all(bots)


async def test_muto_drunk_and_eliminated_as_the_game_says(srv):
    bots = await open_bot_room(srv.base_url, [Tone(TONES[1])] * 5, options={
        "powers": ["muto", "ubriacone", "spia"], "fantasmi": 0,
        "timers": {"powers": LONG, "clue": LONG, "debate": LONG, "vote": LONG}})
    try:
        await start_game(bots)
        by_power = {b.client.view["me"].get("power"): b for b in bots}
        muto, drunkard, spy = by_power["muto"], by_power["ubriacone"], by_power["spia"]
        civilian = next(k["player"] for k in spy.client.view["me"]["known"]
                        if k["fact"] == "civili_word")
        victims = [b for b in bots if b not in (drunkard, muto)][:2]
        sober = [b for b in bots if b not in victims and b is not muto]
        # tones by role: the Muto on the quietest bin, the victims low (the drunk
        # voice low-passes at 3 kHz), the sober ones on the remaining seats
        tone = {muto.pid: TONES[0], victims[0].pid: TONES[2], victims[1].pid: TONES[3],
                sober[0].pid: TONES[1], sober[1].pid: TONES[4]}
        for b in bots:
            b.speak(Tone(tone[b.pid]))
        await drunkard.client.act({"type": "intoxicate", "targets": [v.pid for v in victims]})
        await drive(bots, lambda v: v["phase"] == "clues", skip=("clue", "ready", "vote"))

        # clues: the Muto is heard by nobody; the victims' voices wobble, the others do not
        clues = await listen(srv.base_url, bots, 1.0)
        for v in victims:
            listener = next(b for b in bots if b is not v)
            spread = pitch_spread_cents(clues[listener.pid], tone[v.pid])
            assert spread >= DRUNK_CENTS, (v.pid, listener.pid, spread)
        for s in sober:
            listener = next(b for b in bots if b is not s)
            spread = pitch_spread_cents(clues[listener.pid], tone[s.pid])
            assert spread < CLEAN_CENTS, (s.pid, listener.pid, spread)

        # debate: the Muto talks
        await drive(bots, lambda v: v["phase"] == "debate", skip=("ready", "vote"))
        debate = levels(await listen(srv.base_url, bots, 1.0), TONES[0])
        for b in bots:
            if b is not muto:
                assert debate[b.pid] > PRESENT, debate
        heard = max(debate.values())
        for pid, level in levels(clues, TONES[0]).items():
            assert level < heard - ISOLATION, (pid, level, heard)

        # the vote eliminates a Civilian the Spia knows; from then on nobody hears them
        for b in bots:
            await b.client.act({"type": "ready"})
        await drive(bots, lambda v: v["phase"] == "vote", skip=("ready", "vote"))
        others = [b.pid for b in bots if b.pid != civilian]
        for b in bots:
            target = civilian if b.pid != civilian else others[0]
            await b.client.act({"type": "vote", "target": target})
        await drive(bots, lambda v: v["phase"] == "clues" and v["round"] == 2, skip=("clue",))
        out = next(b for b in bots if b.pid == civilian)
        if out is not muto:  # the voice to isolate goes on the quietest bin
            muto.speak(Tone(tone[out.pid]))
            out.speak(Tone(TONES[0]))
        after = levels(await listen(srv.base_url, bots, 1.0), TONES[0])
        for pid, level in after.items():
            assert level < heard - ISOLATION, (pid, level, heard, civilian)
    finally:
        await close_all(bots)


async def test_hostile_offers_are_refused_and_the_room_keeps_talking(srv):
    bots = await open_bot_room(srv.base_url, [Tone(TONES[1]), Tone(TONES[2]), Tone(TONES[3])],
                               voice=False)
    try:
        await asyncio.gather(bots[0].start_voice(), bots[1].start_voice())
        good = bots[0].voice.pc.localDescription.sdp
        hostile = {
            "not an sdp": "bad_sdp",
            good.replace("opus/48000/2", "speex/8000"): "no_audio",
            good + "m=video 9 UDP/TLS/RTP/SAVPF 97\r\na=rtpmap:97 VP8/90000\r\n": "no_audio",
            good.replace("a=ice-pwd:", "a=ice-pwd-gone:"): "bad_sdp",
            good.replace("\r\n", "\r\n\x01", 2): "bad_sdp",
        }
        for sdp, code in hostile.items():
            for b in (bots[2], bots[0]):  # a newcomer, and a connected player's bad re-offer
                with pytest.raises(VoiceError) as err:
                    await b._signal(sdp)
                assert err.value.code == code
        rec = await listen(srv.base_url, bots[:2], 0.5)
        assert levels(rec, TONES[1])[bots[1].pid] > PRESENT
        assert levels(rec, TONES[2])[bots[0].pid] > PRESENT
        assert bots[2].voice is None and not bots[0].client.closed
    finally:
        await close_all(bots)


async def test_a_whole_game_with_five_talking_bots(srv):
    tones = TONES[1:6]
    bots = await open_bot_room(srv.base_url, [Tone(t) for t in tones], options={
        "timers": {"powers": 5, "clue": 5, "debate": 5, "vote": 5, "guess": 5, "pick": 5}})
    try:
        await start_game(bots)
        started = time.monotonic()
        finals = await asyncio.gather(*(b.play(random.Random(i), timeout=150, delay=0.3)
                                        for i, b in enumerate(bots)))
        assert all(f["phase"] == "over" and f["result"]["winners"] for f in finals)
        for b in bots:  # during the game every bot heard every other one at some time
            heard = b.recorder.audio(since=started)
            assert len(heard) > 48000, len(heard)
            for other, hz in zip(bots, tones, strict=True):
                if other is not b:
                    loudest = max(tone_db(heard[i:i + 12000], hz)
                                  for i in range(0, len(heard) - 12000, 6000))
                    assert loudest > PRESENT, (b.pid, other.pid, loudest)
            assert not any(e["code"] == "rtc_failed" for e in b.client.errors)
    finally:
        await close_all(bots)


async def test_a_restart_mid_game_bots_reconnect_their_voice_and_finish(tmp_path):
    with ServerProc(tmp_path / "r.db") as server:
        bots = await open_bot_room(server.base_url, [Tone(t) for t in TONES[1:6]], options={
            "powers": [], "fantasmi": 0,
            "timers": {"clue": 5, "debate": LONG, "vote": 5, "guess": 5, "pick": 5}})
        try:
            await start_game(bots)
            await drive(bots, lambda v: v["phase"] == "debate", skip=("ready", "vote"))
            before = bots[0].client.view
            await asyncio.to_thread(server.restart)
            for b in bots:
                await b.client.connect()
            await asyncio.gather(*(b.start_voice() for b in bots))
            assert bots[0].client.view["phase"] == "debate"
            assert bots[0].client.view["clues"] == before["clues"]
            rec = await listen(server.base_url, bots, 0.5)
            for b, hz in zip(bots, TONES[1:6], strict=True):
                others = [x.pid for x in bots if x is not b]
                assert all(levels(rec, hz)[o] > PRESENT for o in others), (b.pid, hz)
            finals = await asyncio.gather(*(b.play(random.Random(i), timeout=150)
                                            for i, b in enumerate(bots)))
            assert all(f["phase"] == "over" for f in finals)
        finally:
            await close_all(bots)


async def test_the_bot_command_speaks_records_and_reports(srv, tmp_path):
    listener = await Bot.create(srv.base_url, "Ear", Tone(TONES[2]), preset="intruso")
    try:
        await listener.start_voice()
        wav = tmp_path / "bot.wav"
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "sussurro.cli", "bot", "--url", srv.base_url,
            "--room", listener.client.code, "--name", "Cli", "--tone", str(TONES[1]),
            "--record", str(wav), "--seconds", "3", stdout=asyncio.subprocess.PIPE)
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, out
        report = json.loads(out.decode().strip().splitlines()[-1])
        assert report["room"] == listener.client.code and report["frames"] > 50
        heard, rate = sf.read(wav)
        assert rate == 48000 and tone_db(heard[-24000:], TONES[2]) > PRESENT  # it heard us
        # and we heard it, while it was there
        assert max(tone_db(x, TONES[1]) for x in np.array_split(listener.recorder.audio(), 8)) > PRESENT
    finally:
        await listener.close()
