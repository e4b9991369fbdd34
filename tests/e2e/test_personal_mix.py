"""Issue 13 through real WebRTC (aiortc peers, real Opus, the real mixer): each player's
own volumes, and voices placed around the table.

Every player's mic is a tone of its own; what each client records is read by tone level.
"""

from __future__ import annotations

import math

import pytest

from audio.spatial import seat_pan
from client.rtc_peer import Tone
from tests.e2e.spectrum import tone_db_robust
from tests.e2e.voice_room import TONES, levels, open_room

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

PRESENT = -30.0
ISOLATION = 60.0
# Opus (measured with SILK at 32 kb/s) with three steady tones in a mix: one tone's
# level drifts by up to ~2 dB from one recording to the next (the others steady), so levels
# compared across two recordings get 3 dB; the change asked for is 12 dB (25 %) or
# 60 dB (muted).
SAME = 3.0
LOWER = 0.25


async def test_a_lowered_voice_and_a_muted_one_change_that_listeners_mix_only():
    pids = ["p1", "p2", "p3", "p4"]
    tones = dict(zip(pids, TONES[1:5], strict=True))  # 300, 700, 1500, 3100 Hz
    room = await open_room({p: Tone(tones[p]) for p in pids})
    try:
        before = await room.listen(1.5)
        # p1 lowers p2 to 25 % and mutes p3 (issue 13: "applied in the server's mix for
        # that listener only")
        room.voice.set_volumes("p1", {"p2": LOWER, "p3": 0.0})
        after = await room.listen(1.5)
        p2_before, p2_after = levels(before, tones["p2"]), levels(after, tones["p2"])
        p3_before, p3_after = levels(before, tones["p3"]), levels(after, tones["p3"])
        assert p2_after["p1"] - p2_before["p1"] == pytest.approx(20 * math.log10(LOWER), abs=SAME)
        assert p3_before["p1"] > PRESENT
        assert p3_after["p1"] < p3_before["p1"] - ISOLATION, p3_after
        # p4 hears p1, p2 and p3 exactly as before: the neighbour's mix is unchanged
        for hz in (tones["p1"], tones["p2"], tones["p3"]):
            assert levels(after, hz)["p4"] == pytest.approx(levels(before, hz)["p4"], abs=SAME)
        # p1's other voice (p4) unchanged too
        assert levels(after, tones["p4"])["p1"] == pytest.approx(
            levels(before, tones["p4"])["p1"], abs=SAME)
    finally:
        await room.close()


async def test_a_seat_on_the_left_is_louder_in_the_left_ear_and_centred_across_the_table():
    # Seats clockwise p1, p2, p3, p4: p2 sits on p1's left, and straight across from p4.
    pids = ["p1", "p2", "p3", "p4"]
    hz = TONES[2]  # 700 Hz: Opus codes low stereo in full, not as intensity stereo
    room = await open_room({"p2": Tone(hz)})
    try:
        for pid in ("p1", "p4"):
            await room.join(pid, None, stereo=True)
        await room.join("p3", None)  # a client that cannot take stereo
        room.voice.set_layout(pids)
        rec = await room.listen(1.0)
        left, right = seat_pan(0, 1, 4)
        expected = 20 * math.log10(left / right)
        p1 = rec["p1"]
        l1, r1 = tone_db_robust(p1[:, 0], hz), tone_db_robust(p1[:, 1], hz)
        assert l1 > PRESENT
        assert l1 - r1 == pytest.approx(expected, abs=2.0), (l1, r1, expected)
        p4 = rec["p4"]
        l4, r4 = tone_db_robust(p4[:, 0], hz), tone_db_robust(p4[:, 1], hz)
        assert l4 > PRESENT
        assert l4 - r4 == pytest.approx(0.0, abs=1.0), (l4, r4)
        # constant power: p1's two ears together carry what p4's centred pair carries
        power1 = 10 ** (l1 / 10) + 10 ** (r1 / 10)
        power4 = 10 ** (l4 / 10) + 10 ** (r4 / 10)
        assert 10 * math.log10(power1 / power4) == pytest.approx(0.0, abs=1.5)
        # p3 offered mono: a mono mix at the full level
        assert levels({"p3": rec["p3"]}, hz)["p3"] == pytest.approx(l4 + 3.0, abs=1.5)
        assert room.voice.stats()["stereo_encoders"] >= 1
        # seats off: everyone back to one centred mono mix
        room.voice.set_layout(None)
        rec = await room.listen(0.5)
        p1 = rec["p1"]
        assert tone_db_robust(p1[:, 0], hz) == pytest.approx(tone_db_robust(p1[:, 1], hz), abs=0.5)
    finally:
        await room.close()


async def test_two_voices_at_once_each_keep_their_own_side():
    # Seats clockwise p1, p2, p3, p4: p2 on p1's left, p4 on p1's right, both talking.
    # The stereo mix once narrowed two simultaneous voices to a few dB (libopus's hybrid
    # mode, whose stereo width opens over seconds); each must arrive from its own side.
    pids = ["p1", "p2", "p3", "p4"]
    left_hz, right_hz = TONES[2], TONES[3]  # 700 and 1500 Hz
    room = await open_room({"p2": Tone(left_hz), "p4": Tone(right_hz)})
    try:
        await room.join("p1", None, stereo=True)
        await room.join("p3", None)
        room.voice.set_layout(pids)
        p1 = (await room.listen(1.0))["p1"]
        left, right = seat_pan(0, 1, 4)
        expected = 20 * math.log10(left / right)
        assert seat_pan(0, 3, 4) == pytest.approx((right, left))  # p4: the mirror image
        l2, r2 = tone_db_robust(p1[:, 0], left_hz), tone_db_robust(p1[:, 1], left_hz)
        l4, r4 = tone_db_robust(p1[:, 0], right_hz), tone_db_robust(p1[:, 1], right_hz)
        assert l2 > PRESENT and r4 > PRESENT, (l2, r4)
        assert l2 - r2 == pytest.approx(expected, abs=2.0), (l2, r2, expected)
        assert r4 - l4 == pytest.approx(expected, abs=2.0), (l4, r4, expected)
    finally:
        await room.close()


async def test_item9_a_listener_who_chose_mono_hears_a_voice_on_the_left_in_both_ears_alike():
    # Issue 31 item 9: seats on, p1 and p4 take stereo; p1 chose mono (one earbud).
    # p2 sits on p1's left: p1 hears it equally in both ears, p3 still from its right.
    pids = ["p1", "p2", "p3", "p4"]
    hz = TONES[2]
    room = await open_room({"p2": Tone(hz)})
    try:
        for pid in ("p1", "p3"):
            await room.join(pid, None, stereo=True)
        await room.join("p4", None)
        room.voice.set_layout(pids)
        room.voice.set_mono("p1", True)
        rec = await room.listen(1.0)
        p1, p3 = rec["p1"], rec["p3"]
        l1, r1 = tone_db_robust(p1[:, 0], hz), tone_db_robust(p1[:, 1], hz)
        assert l1 > PRESENT
        assert l1 - r1 == pytest.approx(0.0, abs=0.5), (l1, r1)
        left, right = seat_pan(2, 1, 4)  # p2 seen from p3: on the right
        l3, r3 = tone_db_robust(p3[:, 0], hz), tone_db_robust(p3[:, 1], hz)
        assert r3 - l3 == pytest.approx(20 * math.log10(right / left), abs=2.0), (l3, r3)
        # p1 at the full mono level, as the client without stereo (p4)
        assert l1 == pytest.approx(levels({"p4": rec["p4"]}, hz)["p4"], abs=1.5)
    finally:
        await room.close()
