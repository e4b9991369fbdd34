"""Issue 13: each listener's own volumes, and voices placed around the table, in the mixer.

Volumes and pans are part of the grouping key: listeners share one mix (and the
server one encode) exactly when their effective gains are equal.
"""

import math

import numpy as np
import pytest

from audio import CueBank, RoomMixer, Routing
from audio.spatial import CENTRE, SPREAD, pan, seat_pan
from audio.synth import tone
from tests.audio.mixhelp import run, tone_levels

PLAYERS = [f"p{i}" for i in range(4)]
HZ = {p: 400.0 + 200 * i for i, p in enumerate(PLAYERS)}  # exact bins of 1 s


def _room(players=PLAYERS):
    m = RoomMixer(cues=CueBank({"ding": tone(1100, 0.5, -12)}))
    for p in players:
        m.add_player(p)
    m.set_routing(Routing(public=frozenset(players)))
    return m


def _tones(players=PLAYERS):
    return {p: tone(HZ[p], 1.2, -20) for p in players}


def _db(x, hz):
    return tone_levels(x, [hz])[hz]


# ------------------------------------------------------------------ the law


def test_constant_power_law_keeps_power_and_centres_at_minus_3_db():
    for p in np.linspace(-1, 1, 21):
        left, right = pan(p)
        assert left**2 + right**2 == pytest.approx(1.0)
    assert pan(0.0) == pytest.approx((CENTRE, CENTRE))
    assert pan(-1.0) == pytest.approx((1.0, 0.0))


def test_the_next_seat_is_on_the_left_the_previous_on_the_right_the_opposite_centred():
    left, right = seat_pan(0, 1, 4)  # seat 1 is on seat 0's left
    assert left > right
    assert (left, right) == pytest.approx(pan(-SPREAD))
    assert seat_pan(0, 3, 4) == pytest.approx((right, left))
    assert seat_pan(0, 2, 4) == pytest.approx((CENTRE, CENTRE))
    # the same pair seen from the other side: mirrored
    assert seat_pan(1, 0, 4) == pytest.approx((right, left))


# --------------------------------------------------------------- volumes


def test_a_lowered_and_a_muted_voice_change_that_listener_only():
    m = _room()
    m.set_volumes("p0", {"p1": 0.5, "p2": 0.0})
    mixes, _, _ = run(m, _tones(), 60)
    ref = _db(mixes["p3"], HZ["p1"])
    assert _db(mixes["p0"], HZ["p1"]) == pytest.approx(ref + 20 * math.log10(0.5), abs=0.3)
    assert _db(mixes["p0"], HZ["p2"]) < -120  # muted: an exact zero
    assert _db(mixes["p0"], HZ["p3"]) == pytest.approx(_db(mixes["p1"], HZ["p3"]), abs=0.1)
    # nobody else hears a change
    assert _db(mixes["p3"], HZ["p2"]) == pytest.approx(_db(mixes["p1"], HZ["p2"]), abs=0.1)


def test_volume_above_one_raises_that_voice():
    m = _room()
    m.set_volumes("p0", {"p1": 1.5})
    mixes, _, _ = run(m, _tones(), 60)
    gain = _db(mixes["p0"], HZ["p1"]) - _db(mixes["p2"], HZ["p1"])
    assert gain == pytest.approx(20 * math.log10(1.5), abs=0.3)


def test_listeners_with_equal_effective_gains_still_share_one_mix():
    # p2 and p3 are muted (eliminated) and hear p0 + p1: one group ...
    m = _room()
    m.set_routing(Routing(public=frozenset({"p0", "p1"})))
    tones = _tones()
    t = iter(range(10))

    def tick():
        k = next(t)
        for p in ("p0", "p1"):
            m.push(p, tones[p][k * 960 : (k + 1) * 960])
        return m.tick()

    res = tick()
    assert res.mixes["p2"] is res.mixes["p3"]
    # ... unless one of them changes a gain
    m.set_volumes("p2", {"p0": 0.7})
    res = tick()
    assert res.mixes["p2"] is not res.mixes["p3"]
    assert res.distinct == 4
    # both setting the same gains: one group again, once p3's 5 ms ramp from its old
    # gains is over (issue 31 item 10: the change fades in over the next frame's start)
    m.set_volumes("p3", {"p0": 0.7})
    res = tick()
    assert res.mixes["p2"] is not res.mixes["p3"]
    res = tick()
    assert res.mixes["p2"] is res.mixes["p3"]
    assert res.distinct == 3
    # a gain for a voice they do not hear (p2 is silent) changes nothing heard: still shared
    m.set_volumes("p3", {"p0": 0.7, "p2": 0.2})
    res = tick()
    assert res.mixes["p2"] is res.mixes["p3"]
    # back to 1 everywhere: the group of the start
    m.set_volumes("p2", {})
    m.set_volumes("p3", {"p0": 1.0})
    res = m.tick()
    assert res.mixes["p2"] is res.mixes["p3"]


@pytest.mark.parametrize("gain", [-0.1, 1.51, float("nan"), float("inf")])
def test_a_gain_out_of_bounds_is_refused_and_changes_nothing(gain):
    m = _room()
    m.set_volumes("p0", {"p1": 0.5})
    with pytest.raises(ValueError):
        m.set_volumes("p0", {"p1": gain})
    assert m.volumes("p0") == {"p1": 0.5}


def test_volumes_go_with_their_listener():
    m = _room()
    m.set_volumes("p0", {"p1": 0.5})
    m.remove_player("p0")
    m.add_player("p0")
    assert m.volumes("p0") == {}


# ---------------------------------------------------------------- seats


def _seated(stereo=PLAYERS):
    m = _room()
    m.set_layout(PLAYERS)
    for p in stereo:
        m.set_stereo(p, True)
    return m


def test_seats_pan_each_voice_by_the_constant_power_law():
    m = _seated()
    mixes, _, results = run(m, _tones(), 60)
    assert mixes["p0"].shape == (60 * 960, 2)
    x = mixes["p0"]
    left, right = seat_pan(0, 1, 4)
    # p1 sits on p0's left: louder on the left by the law's ratio
    diff = _db(x[:, 0], HZ["p1"]) - _db(x[:, 1], HZ["p1"])
    assert diff == pytest.approx(20 * math.log10(left / right), abs=0.2)
    # p3 on the right, by the same ratio
    diff = _db(x[:, 1], HZ["p3"]) - _db(x[:, 0], HZ["p3"])
    assert diff == pytest.approx(20 * math.log10(left / right), abs=0.2)
    # p2, opposite: centred, each ear at -3 dB of the mono level
    mono = _room()
    mono_mix, _, _ = run(mono, _tones(), 60)
    for ch in (0, 1):
        assert _db(x[:, ch], HZ["p2"]) == pytest.approx(_db(mono_mix["p0"], HZ["p2"]) - 3.01, abs=0.1)
    # every stereo listener hears the table from their own seat: four mixes
    assert results[-1].distinct == 4


def test_a_mono_listener_keeps_the_mono_mix_while_seats_are_on():
    m = _seated(stereo=["p0", "p1"])
    res = m.tick()
    assert res.mixes["p0"].shape == (960, 2)
    assert res.mixes["p2"].shape == (960,)
    mono = _room().tick()
    mixes, _, _ = run(m, _tones(), 40)
    ref, _, _ = run(_room(), _tones(), 40)
    np.testing.assert_allclose(mixes["p2"], ref["p2"], atol=1e-6)
    assert mono.distinct == 4


def test_seats_off_is_the_mono_mix_even_for_stereo_listeners():
    m = _seated()
    m.set_layout(None)
    res = m.tick()
    assert all(mix.shape == (960,) for mix in res.mixes.values())


def test_a_whisper_comes_from_the_whisperers_side_and_a_cue_from_the_centre():
    m = _seated()
    m.set_routing(Routing(public=frozenset(PLAYERS), whisper={"p3": frozenset({"p0"})}))
    m.start_whisper("p3", "p0")  # p3 sits on p0's right
    m.play_cue("ding", ["p0"])
    mixes, _, _ = run(m, {"p3": tone(HZ["p3"], 1.2, -20)}, 60)
    x = mixes["p0"]
    assert _db(x[:, 1], HZ["p3"]) - _db(x[:, 0], HZ["p3"]) > 10
    # the cue (0.5 s, 1100 Hz) measured over its own span: the same in both ears
    cue = x[: int(0.4 * 48000)]
    left, right = (tone_levels(cue[:, ch], [1100], seconds=0.4)[1100] for ch in (0, 1))
    assert left == pytest.approx(right, abs=0.01)
    assert left > -30


def test_a_loud_stereo_mix_is_limited_with_one_gain_for_both_ears():
    m = _seated()
    loud = {p: tone(HZ[p], 1.0, -1) for p in PLAYERS}
    mixes, _, _ = run(m, loud, 50)
    x = mixes["p0"]
    assert np.abs(x).max() <= 0.97 + 1e-6
    # p2 opposite stays centred though the limiter works hard: linked channels
    assert _db(x[:, 0], HZ["p2"]) == pytest.approx(_db(x[:, 1], HZ["p2"]), abs=0.05)
