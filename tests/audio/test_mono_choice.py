"""Issue 31, section 3 item 9: with the room's voices placed by seat, each listener may choose
mono for themself (one earbud): that listener's mix is not spatialised, everyone else's is.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from audio import RoomMixer, Routing
from audio.spatial import seat_pan
from audio.synth import tone
from tests.audio.mixhelp import run, tone_levels

PLAYERS = ["p0", "p1", "p2", "p3"]
HZ = {"p1": 700.0}  # p1 sits on p0's left (and on p2's right)


def _seated() -> RoomMixer:
    m = RoomMixer()
    for p in PLAYERS:
        m.add_player(p)
    m.set_routing(Routing(public=frozenset(PLAYERS)))
    m.set_layout(PLAYERS)
    for p in PLAYERS:
        m.set_stereo(p, True)  # every client takes stereo
    return m


def _db(x, hz):
    return tone_levels(x, [hz])[hz]


def _left_right(x, hz):
    if x.ndim == 1:  # a mono mix: the decoder plays it alike in both ears
        return _db(x, hz), _db(x, hz)
    return _db(x[:, 0], hz), _db(x[:, 1], hz)


def test_item9_a_listener_who_chose_mono_hears_a_voice_on_the_left_equally_in_both_ears():
    m = _seated()
    m.set_mono("p0", True)
    mixes, _, _ = run(m, {"p1": tone(HZ["p1"], 1.2, -20)}, 60)
    left, right = _left_right(mixes["p0"], HZ["p1"])
    assert left == pytest.approx(right, abs=0.01)
    assert left == pytest.approx(-20, abs=0.2)  # at its full level, not the pan's
    # p2 (stereo, seats on) still hears p1 from its right by the law's ratio
    l2, r2 = _left_right(mixes["p2"], HZ["p1"])
    lo, hi = seat_pan(2, 1, 4)
    assert r2 - l2 == pytest.approx(20 * math.log10(hi / lo), abs=0.2)
    assert r2 - l2 > 10


def test_item9_the_mono_choice_is_the_listeners_own_and_can_be_taken_back():
    m = _seated()
    m.set_mono("p0", True)
    assert m.mono("p0") and not m.mono("p2")
    res = m.tick()
    assert res.mixes["p0"].shape == (960,)
    assert res.mixes["p2"].shape == (960, 2)
    m.set_mono("p0", False)
    mixes, _, _ = run(m, {"p1": tone(HZ["p1"], 1.2, -20)}, 60)
    left, right = _left_right(mixes["p0"], HZ["p1"])
    assert left - right > 10  # placed on the left again


def test_item9_mono_listeners_share_the_room_mono_mix():
    m = _seated()
    for p in ("p0", "p2"):
        m.set_mono(p, True)
    m.set_stereo("p3", False)  # a client that cannot take stereo
    mixes, _, results = run(m, {"p1": tone(HZ["p1"], 1.2, -20)}, 10)
    # p0, p2 and p3 hear the same mono mix (p1 alone): one array
    last = results[-1].mixes
    assert last["p0"] is last["p2"] is last["p3"]
    np.testing.assert_array_equal(mixes["p0"], mixes["p3"])


def test_item9_mono_goes_with_its_listener():
    m = _seated()
    m.set_mono("p0", True)
    m.remove_player("p0")
    m.add_player("p0")
    assert not m.mono("p0")
