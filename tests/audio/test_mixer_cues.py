"""Cues are mixed into the chosen listeners' mixes only, from the next tick, to their end."""

import numpy as np
import pytest

from audio import FRAME, CueBank, RoomMixer, Routing
from audio.synth import tone
from tests.audio.mixhelp import run, tone_levels


def _room(cues):
    m = RoomMixer(cues=cues)
    for p in ("a", "b", "c"):
        m.add_player(p)
    m.set_routing(Routing(public=frozenset({"a", "b", "c"})))
    return m


def test_cue_plays_sample_exact_across_frames_to_chosen_listeners_only():
    ding = tone(1000, 0.5, -12)  # 25 frames
    m = _room(CueBank({"ding": ding}))
    m.tick()
    m.play_cue("ding", ["a", "c"])
    mixes, _, _ = run(m, {}, 30)
    # no voices, so the mix is the cue itself, sample for sample, from the first tick
    np.testing.assert_array_equal(mixes["a"][: ding.size], ding)
    np.testing.assert_array_equal(mixes["c"][: ding.size], ding)
    assert not mixes["a"][ding.size :].any()
    assert not mixes["b"].any()
    assert m.stats()["cues_playing"] == 0


def test_cue_ending_mid_frame_is_followed_by_exact_silence_then_plays_again_exactly():
    # 2.5 frames: the last tick holds half a frame of cue and must be silence after
    # it, whatever the cue's row held the tick before; played again, it is the same.
    ding = tone(1000, 0.05, -12)
    m = _room(CueBank({"ding": ding}))
    m.play_cue("ding", ["a"])
    first, _, _ = run(m, {}, 5)
    m.play_cue("ding", ["a"])
    again, _, _ = run(m, {}, 5)
    for mixes in (first, again):
        np.testing.assert_array_equal(mixes["a"][: ding.size], ding)
        assert not mixes["a"][ding.size :].any()


def test_cue_is_added_on_top_of_the_voices_heard():
    m = _room(CueBank({"ding": tone(1000, 1.5, -20)}))
    m.play_cue("ding", ["b"])
    voices = {"a": tone(500, 1.5, -30), "c": tone(700, 1.5, -30)}
    mixes, _, _ = run(m, voices, 65)
    lb = tone_levels(mixes["b"], [500, 700, 1000])
    la = tone_levels(mixes["a"], [500, 700, 1000])
    assert abs(lb[1000] + 20) < 1 and abs(lb[500] + 30) < 1 and abs(lb[700] + 30) < 1
    assert la[1000] < -200


def test_loud_cue_over_loud_voices_stays_under_the_limiter():
    m = _room(CueBank({"boom": np.ones(10 * FRAME, dtype=np.float32)}))
    m.play_cue("boom", ["a"])
    voices = {p: tone(200, 0.3, 0.0) for p in ("b", "c")}
    mixes, _, _ = run(m, voices, 15)
    assert np.abs(mixes["a"]).max() <= 1.0


def test_real_cue_bank_cue_reaches_only_its_listener():
    bank = CueBank.load()
    name = bank.names()[0]
    m = _room(bank)
    m.play_cue(name, ["b"])
    mixes, _, _ = run(m, {}, 10)
    assert np.abs(mixes["b"]).max() > 0.01
    assert not mixes["a"].any() and not mixes["c"].any()


def test_cue_without_bank_or_unknown_name_is_an_error():
    with pytest.raises(ValueError):
        _room(None).play_cue("ding", ["a"])
    with pytest.raises(KeyError):
        _room(CueBank({"ding": tone(1000, 0.1)})).play_cue("nope", ["a"])
