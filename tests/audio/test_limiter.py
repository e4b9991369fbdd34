"""The limiter on every mix: loud rooms never clip, normal levels pass untouched."""

import numpy as np

from audio import RoomMixer, Routing
from audio.synth import speech_like, tone
from tests.audio.mixhelp import run, tone_levels

PLAYERS = [f"p{i:02d}" for i in range(16)]


def _room():
    m = RoomMixer()
    for p in PLAYERS:
        m.add_player(p)
    m.set_routing(Routing(public=frozenset(PLAYERS)))
    return m


def test_sixteen_players_shouting_at_full_scale_never_exceed_full_scale():
    signals = {}
    for i, p in enumerate(PLAYERS):
        x = speech_like(2.0, seed=i, f0=90 + 7 * i, level_db=-6.0)
        signals[p] = np.clip(x / np.abs(x).max(), -1, 1)  # peaks at exactly full scale
    mixes, _, _ = run(_room(), signals, 100)
    for p in PLAYERS:
        assert np.abs(mixes[p]).max() <= 1.0
        assert np.abs(mixes[p]).max() > 0.5  # limited, not silenced


def test_limiting_a_loud_sine_does_not_clip_it_into_harmonics():
    # 16 in-phase full-scale sines sum to 15x full scale in every mix: a hard
    # clipper would make a near-square wave (3rd harmonic at about -10 dB).
    f = 500.0
    mixes, _, _ = run(_room(), {p: tone(f, 1.5, 0.0) for p in PLAYERS}, 70)
    x = mixes["p00"]
    assert np.abs(x).max() <= 1.0
    levels = tone_levels(x, [f, 2 * f, 3 * f, 5 * f])
    assert levels[f] > -1.0
    for h in (2 * f, 3 * f, 5 * f):
        assert levels[h] < levels[f] - 40.0


def test_normal_level_passes_within_half_a_db():
    m = RoomMixer()
    m.add_player("a")
    m.add_player("b")
    m.set_routing(Routing(public=frozenset({"a"})))
    mixes, _, _ = run(m, {"a": tone(440, 1.4, -20.0)}, 65)
    level = tone_levels(mixes["b"], [440])[440]
    assert abs(level - (-20.0)) < 0.5
    rms_in = 10 ** (-20 / 20) / np.sqrt(2)
    rms_out = np.sqrt(np.mean(mixes["b"][-48000:] ** 2))
    assert abs(20 * np.log10(rms_out / rms_in)) < 0.5


def test_gain_recovers_after_a_loud_burst():
    m = RoomMixer()
    for p in ("a", "b", "c"):
        m.add_player(p)
    m.set_routing(Routing(public=frozenset({"a", "b"})))
    loud = np.concatenate([tone(300, 0.5, 0.0), tone(300, 2.5, -20.0)])
    mixes, _, _ = run(m, {"a": loud, "b": loud}, 150)
    x = mixes["c"]
    assert np.abs(x[: 24000]).max() <= 1.0
    # two seconds later the -14 dBFS sum is back to its own level
    assert abs(tone_levels(x, [300])[300] - (-20.0 + 20 * np.log10(2))) < 0.5
