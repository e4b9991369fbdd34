"""Listeners whose mixes are identical share one array object; `distinct` counts the
routing's groups (listeners with equal gain rows)."""

import numpy as np

from audio import FRAME, CueBank, RoomMixer, Routing
from audio.plan import MERGED_CACHE
from audio.synth import tone
from tests.audio.mixhelp import run

PLAYERS = [f"p{i}" for i in range(6)]


def _room(routing):
    m = RoomMixer(cues=CueBank({"ding": tone(1000, 0.1, -12)}))
    for p in PLAYERS:
        m.add_player(p)
    m.set_routing(routing)
    return m


def _signals():
    return {p: tone(300 + 50 * i, 0.5, -30) for i, p in enumerate(PLAYERS)}


def _talk(m, talkers, t=0):
    """Two frames of each talker's tone (the jitter queue plays once it holds two), so
    the next tick sounds every talker."""
    for p, sig in _signals().items():
        if p in talkers:
            for k in (2 * t, 2 * t + 1):
                m.push(p, sig[k * FRAME : (k + 1) * FRAME])


def test_listeners_with_the_same_mix_share_one_array():
    # p0..p2 debate; p3..p5 are eliminated: muted, but they hear the debate.
    m = _room(Routing(public=frozenset(PLAYERS[:3])))
    _talk(m, PLAYERS[:3])
    res = m.tick()
    assert res.mixes["p3"] is res.mixes["p4"] is res.mixes["p5"]
    assert res.distinct == 4
    assert len({id(a) for a in res.mixes.values()}) == res.distinct
    assert sorted(res.groups) == [("p0",), ("p1",), ("p2",), ("p3", "p4", "p5")]


def test_groups_that_differ_only_in_silent_voices_share_one_array():
    # Only p0 talks: p1, p2 (who hear p0 and each other) and p3..p5 hear the very
    # same samples, so the mix is made once; p0 hears silence. The routing's
    # groups are still four.
    m = _room(Routing(public=frozenset(PLAYERS[:3])))
    _talk(m, ["p0"])
    res = m.tick()
    assert res.distinct == 4
    assert res.mixes["p1"] is res.mixes["p2"] is res.mixes["p3"] is res.mixes["p5"]
    assert np.abs(res.mixes["p1"]).max() > 0.01
    assert not res.mixes["p0"].any()
    # p1 starts talking too: p0 hears p1, p1 hears p0, and p2 (silent) hears both
    # like p3..p5: three mixes.
    _talk(m, ["p0", "p1"], 1)
    res = m.tick()
    assert len({id(a) for a in res.mixes.values()}) == 3
    assert res.distinct == 4
    assert res.mixes["p3"] is res.mixes["p4"]
    assert res.mixes["p2"] is res.mixes["p3"]  # p2 is silent: p0 + p1 for both
    np.testing.assert_array_equal(res.mixes["p2"], res.mixes["p5"])


def test_a_speaker_sending_digital_silence_counts_as_silent():
    # p2's mic sends frames of exact zeros (no DTX): p1 and p3..p5 still hear the
    # same samples as when p2 sends nothing, so they share one mix.
    m = _room(Routing(public=frozenset(PLAYERS[:3])))
    for _ in range(3):
        _talk(m, ["p0"])
        m.push("p2", np.zeros(2 * FRAME, np.float32))
        res = m.tick()
    assert res.mixes["p1"] is res.mixes["p2"] is res.mixes["p3"]
    assert np.abs(res.mixes["p1"]).max() > 0.01
    assert len({id(a) for a in res.mixes.values()}) == 2


def test_everyone_silent_is_one_silent_array():
    m = _room(Routing(public=frozenset(PLAYERS[:3])))
    res = m.tick()
    assert len({id(a) for a in res.mixes.values()}) == 1
    assert not res.mixes["p0"].any()
    assert res.distinct == 4


def test_shared_mix_is_what_each_member_should_hear():
    m = _room(Routing(public=frozenset(PLAYERS[:3])))
    mixes, _, results = run(m, _signals(), 20)
    assert results[-1].mixes["p3"] is results[-1].mixes["p4"]
    assert np.abs(mixes["p3"]).max() > 0.05  # the debate, not silence
    np.testing.assert_array_equal(mixes["p3"], mixes["p5"])
    assert not np.array_equal(mixes["p0"], mixes["p3"])


def test_shared_mix_is_read_only():
    m = _room(Routing(public=frozenset(PLAYERS[:3])))
    res = m.tick()
    assert not res.mixes["p3"].flags.writeable


def test_whisper_target_leaves_the_shared_group():
    m = _room(Routing(public=frozenset(PLAYERS[:3]), whisper={"p0": frozenset({"p4"})}))
    m.start_whisper("p0", "p4")
    _talk(m, PLAYERS[:3])
    res = m.tick()
    assert res.mixes["p3"] is res.mixes["p5"]
    assert res.mixes["p4"] is not res.mixes["p3"]
    # p0 is off the bus, so p0, p3 and p5 all hear exactly p1 + p2: one mix
    assert res.mixes["p0"] is res.mixes["p3"]
    assert res.distinct == 4


def test_cue_splits_its_listeners_off_while_it_plays_then_they_rejoin():
    m = _room(Routing(public=frozenset(PLAYERS[:3])))
    m.play_cue("ding", ["p4"])
    first = m.tick()
    assert first.mixes["p3"] is first.mixes["p5"]
    assert first.mixes["p4"] is not first.mixes["p3"]
    assert first.distinct == 5
    for _ in range(6):  # 100 ms cue = 5 frames
        res = m.tick()
    assert res.mixes["p4"] is res.mixes["p3"]
    assert res.distinct == 4


def test_everyone_silent_and_public_still_counts_each_distinct_row():
    m = _room(Routing(public=frozenset(PLAYERS)))
    res = m.tick()
    assert res.distinct == len(PLAYERS)


def test_merged_plans_are_kept_for_a_bounded_number_of_sets_and_mix_the_same():
    # 8 players, everyone public: each subset of talkers is its own sounding set. Far
    # more sets than the cache keeps go by; the cache stays bounded, and every mix is
    # bit for bit the one of a mixer that builds every merged plan afresh.
    players = [f"q{i}" for i in range(8)]
    sig = {p: tone(300 + 70 * i, 0.2, -30) for i, p in enumerate(players)}
    kept, fresh = RoomMixer(), RoomMixer()
    for m in (kept, fresh):
        for p in players:
            m.add_player(p)
        m.set_routing(Routing(public=frozenset(players)))
    rng = np.random.default_rng(3)
    seen: set[tuple[int, ...]] = set()
    for t in range(4 * MERGED_CACHE):
        talkers = [p for p in players if rng.random() < 0.5]
        k = t % 5
        for m in (kept, fresh):
            for p in talkers:
                m.push(p, sig[p][k * FRAME : (k + 1) * FRAME])
        if fresh._plan is not None:
            fresh._plan.merged.clear()
        a, b = kept.tick(), fresh.tick()
        for p in players:
            np.testing.assert_array_equal(a.mixes[p], b.mixes[p])
        assert len(kept._plan.merged) <= MERGED_CACHE
        seen |= set(kept._plan.merged)
    assert len(seen) > MERGED_CACHE  # so the oldest sets were forgotten on the way
