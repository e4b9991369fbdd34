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


# ----------------------------------------------------- against the dB formulas
# The limiter works in linear gains over every mix at once (issue 37 item 7); the
# method as written in decibels, block by block, must give the same gains.


def _reference(window: np.ndarray, gain: float) -> tuple[np.ndarray, float]:
    """One mix through the limiter's method in dB, edge by edge (state: linear gain)."""
    from audio.limiter import BLOCK, CEILING, RELEASE_DB_PER_S

    blocks = window.size // BLOCK
    peaks = np.abs(window.astype(np.float64)).reshape(blocks, BLOCK).max(axis=1)
    target = [min(0.0, 20 * np.log10(CEILING / max(p, 1e-12))) for p in peaks]
    step = RELEASE_DB_PER_S * BLOCK / 48000
    edges = [min(20 * np.log10(gain), target[0])]
    for k in range(1, blocks):
        edges.append(min(target[k], target[k - 1], edges[-1] + step, 0.0))
    lin = 10 ** (np.array(edges) / 20)
    r = np.arange(BLOCK) / BLOCK
    curve = np.concatenate([lin[k] + (lin[k + 1] - lin[k]) * r for k in range(blocks - 1)])
    return window[: curve.size] * curve, float(lin[-1])


def test_every_mix_at_once_gives_the_gains_of_the_formulas_and_quiet_mixes_pass_exactly():
    from audio.limiter import limit

    rng = np.random.default_rng(5)
    mixes = np.zeros((6, 1008), dtype=np.float32)
    mixes[0] = rng.normal(0, 0.6, 1008)  # loud
    mixes[1] = rng.normal(0, 0.05, 1008)  # quiet, unlimited
    mixes[2] = rng.normal(0, 0.05, 1008)  # quiet, still releasing
    mixes[3, 500:] = 3.0 * rng.normal(0, 1, 508)  # a burst in the look-ahead
    mixes[4] = rng.normal(0, 0.3, 1008)  # mixes 4 and 5: a stereo pair
    mixes[5] = rng.normal(0, 0.9, 1008)
    gain = np.array([1.0, 1.0, 0.5, 0.8, 1.0, 1.0])
    partner = np.array([0, 1, 2, 3, 5, 4])
    out, state = limit(mixes, gain, partner)
    assert np.array_equal(out[1], mixes[1, :960])  # gain exactly 1
    assert state[1] == 1.0
    linked = np.maximum(np.abs(mixes[4]), np.abs(mixes[5]))
    for i in range(6):
        src = mixes[i] if i < 4 else linked
        want, want_state = _reference(src, gain[i])
        curve = want / np.where(src[:960] == 0, 1, src[:960])
        assert np.max(np.abs(out[i] - mixes[i, :960] * curve)) <= 1e-6
        assert abs(state[i] - want_state) <= 1e-7  # (targets from float32 peaks)
        assert np.abs(out[i]).max() <= 0.97 + 1e-6
