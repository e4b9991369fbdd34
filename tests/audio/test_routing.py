"""Who hears whom, checked on real tones: each speaker has its own exact-bin frequency.

A tone counts as present when it reads at its sent level (+-1 dB) in the
listener's mix, and absent when it is at least 60 dB below that.
"""

import numpy as np
import pytest

from audio import RoomMixer, Routing
from audio.synth import tone
from tests.audio.mixhelp import run, tone_levels

LEVEL = -30.0  # dBFS per speaker: 16 of them sum below the limiter's ceiling
TICKS = 65  # 1.3 s: 0.3 s to settle, 1 s analysed
PLAYERS = [f"p{i}" for i in range(8)]
FREQ = {p: 400.0 + 130.0 * i for i, p in enumerate(PLAYERS)}


def _room(routing=None, players=PLAYERS):
    m = RoomMixer(seed=0)
    for p in players:
        m.add_player(p)
    if routing is not None:
        m.set_routing(routing)
    return m


def _signals(players=PLAYERS):
    return {p: tone(FREQ[p], 1.4, LEVEL) for p in players}


def _heard(mixes, listener):
    levels = tone_levels(mixes[listener], FREQ.values())
    present, absent = set(), set()
    for p, f in FREQ.items():
        if abs(levels[f] - LEVEL) <= 1.0:
            present.add(p)
        elif levels[f] <= LEVEL - 60.0:
            absent.add(p)
        else:
            raise AssertionError(f"{p}'s tone at {levels[f]:.1f} dB in {listener}'s mix")
    return present


def test_public_speakers_are_heard_by_everyone_but_themselves():
    m = _room(Routing(public=frozenset(PLAYERS)))
    mixes, _, _ = run(m, _signals(), TICKS)
    for p in PLAYERS:
        assert _heard(mixes, p) == set(PLAYERS) - {p}


def test_muted_speaker_reaches_nobody_but_still_hears_the_public():
    public = frozenset(PLAYERS) - {"p3"}
    m = _room(Routing(public=public))
    mixes, _, _ = run(m, _signals(), TICKS)
    for p in PLAYERS:
        assert "p3" not in _heard(mixes, p)
    assert _heard(mixes, "p3") == set(public)


def test_whisper_is_heard_by_its_target_alone():
    routing = Routing(public=frozenset(PLAYERS), whisper={"p1": frozenset({"p5", "p6"})})
    m = _room(routing)
    m.start_whisper("p1", "p5")
    mixes, _, _ = run(m, _signals(), TICKS)
    assert _heard(mixes, "p5") == set(PLAYERS) - {"p5"}
    for p in set(PLAYERS) - {"p5"}:
        assert _heard(mixes, p) == set(PLAYERS) - {p, "p1"}
        # absent means an exact zero contribution, not a quieter copy
        assert tone_levels(mixes[p], [FREQ["p1"]])[FREQ["p1"]] < -200


def test_whisper_leaves_the_whisperers_private_channel_too():
    routing = Routing(
        channels=(frozenset({"p0", "p1", "p2"}),), whisper={"p0": frozenset({"p7"})}
    )
    m = _room(routing)
    m.start_whisper("p0", "p7")
    mixes, _, _ = run(m, _signals(), TICKS)
    assert _heard(mixes, "p1") == {"p2"}
    assert _heard(mixes, "p2") == {"p1"}
    assert _heard(mixes, "p7") == {"p0"}


def test_whisper_not_allowed_by_routing_is_refused():
    m = _room(Routing(public=frozenset(PLAYERS), whisper={"p1": frozenset({"p2"})}))
    with pytest.raises(ValueError):
        m.start_whisper("p1", "p3")
    with pytest.raises(ValueError):
        m.start_whisper("p2", "p1")
    with pytest.raises(ValueError):
        m.start_whisper("p1", "nobody")
    assert m.whispers == {}


def test_a_routing_carries_the_whispers_in_progress_and_the_mixer_keeps_none_of_its_own():
    # Issue 8: one owner of the whisper set. A routing without a whisper ends it;
    # the mixer neither keeps nor drops a whisper on its own.
    allow = {"p1": frozenset({"p2"}), "p3": frozenset({"p4"})}
    m = _room(Routing(public=frozenset(PLAYERS), whisper=allow))
    m.start_whisper("p1", "p2")
    m.start_whisper("p3", "p4")
    m.set_routing(Routing(public=frozenset(PLAYERS), whisper={"p3": frozenset({"p4"})},
                          whispering={"p3": "p4"}))
    assert m.whispers == {"p3": "p4"}
    mixes, _, _ = run(m, _signals(), TICKS)
    assert "p1" in _heard(mixes, "p0")  # p1 is back on the public bus
    assert "p3" not in _heard(mixes, "p0")
    assert _heard(mixes, "p4") >= {"p3"}


def test_stopped_whisper_returns_to_the_public_bus():
    m = _room(Routing(public=frozenset(PLAYERS), whisper={"p1": frozenset({"p2"})}))
    m.start_whisper("p1", "p2")
    m.stop_whisper("p1")
    mixes, _, _ = run(m, _signals(), TICKS)
    assert "p1" in _heard(mixes, "p0")


def test_werewolves_at_night_hear_only_each_other():
    wolves = frozenset({"p2", "p5"})
    m = _room(Routing(public=frozenset(), channels=(wolves,)))
    mixes, _, _ = run(m, _signals(), TICKS)
    assert _heard(mixes, "p2") == {"p5"}
    assert _heard(mixes, "p5") == {"p2"}
    for p in set(PLAYERS) - wolves:
        assert not mixes[p].any()  # villagers hear exact silence


def test_channel_mates_who_are_also_public_are_not_doubled():
    wolves = frozenset({"p2", "p5"})
    m = _room(Routing(public=frozenset(PLAYERS), channels=(wolves,)))
    mixes, _, _ = run(m, _signals(), TICKS)
    assert _heard(mixes, "p2") == set(PLAYERS) - {"p2"}  # p5 at its level, not +6 dB


def test_floor_makes_one_speaker_the_only_public_one():
    m = _room(Routing(public=frozenset(PLAYERS), floor="p4"))
    mixes, _, _ = run(m, _signals(), TICKS)
    for p in set(PLAYERS) - {"p4"}:
        assert _heard(mixes, p) == {"p4"}
    assert _heard(mixes, "p4") == set()


def test_floor_does_not_unmute_a_muted_speaker():
    m = _room(Routing(public=frozenset(PLAYERS) - {"p4"}, floor="p4"))
    mixes, _, _ = run(m, _signals(), TICKS)
    for p in PLAYERS:
        assert _heard(mixes, p) == set()


def test_floor_keeps_whispers_and_channels():
    routing = Routing(
        public=frozenset(PLAYERS),
        floor="p4",
        channels=(frozenset({"p0", "p1"}),),
        whisper={"p6": frozenset({"p7"})},
    )
    m = _room(routing)
    m.start_whisper("p6", "p7")
    mixes, _, _ = run(m, _signals(), TICKS)
    assert _heard(mixes, "p0") == {"p4", "p1"}
    assert _heard(mixes, "p7") == {"p4", "p6"}
    assert _heard(mixes, "p2") == {"p4"}


def test_drunk_effect_changes_that_voice_for_every_listener_only():
    m = _room(Routing(public=frozenset(PLAYERS), effects={"p1": "drunk"}))
    mixes, _, _ = run(m, _signals(), TICKS)
    levels = tone_levels(mixes["p0"], FREQ.values())
    # the wobble spreads p1's tone over neighbouring bins: no longer a clean line
    assert levels[FREQ["p1"]] < LEVEL - 3.0
    for p in set(PLAYERS) - {"p0", "p1"}:
        assert abs(levels[FREQ[p]] - LEVEL) <= 1.0
    # and it is streamed: no click at frame edges in the drunk voice
    only_p1 = run(_room(Routing(public=frozenset({"p1"}), effects={"p1": "drunk"})),
                  {"p1": tone(FREQ["p1"], 1.4, -10.0)}, TICKS)[0]["p0"]
    steps = np.abs(np.diff(only_p1[4800:]))
    assert steps.max() < 0.1


def test_removed_player_is_gone_from_every_mix():
    m = _room(Routing(public=frozenset(PLAYERS)))
    m.remove_player("p2")
    players = [p for p in PLAYERS if p != "p2"]
    mixes, _, _ = run(m, _signals(players), TICKS)
    assert set(mixes) == set(players)
    assert _heard(mixes, "p0") == set(players) - {"p0"}


def test_a_whisperer_whose_target_leaves_the_mix_is_heard_by_nobody_not_by_everyone():
    # Issue 8: removing the target used to drop the whisper inside the mixer and put
    # the whisperer back on the public bus while the room still said "whispering".
    routing = Routing(public=frozenset(PLAYERS), whisper={"p1": frozenset({"p2"})})
    m = _room(routing)
    m.start_whisper("p1", "p2")
    m.remove_player("p2")
    assert m.whispers == {"p1": "p2"}  # the owner of the routing ends it, not the mixer
    players = [p for p in PLAYERS if p != "p2"]
    mixes, _, _ = run(m, _signals(players), TICKS)
    for p in players:
        assert "p1" not in _heard(mixes, p)
        assert tone_levels(mixes[p], [FREQ["p1"]])[FREQ["p1"]] < -200  # an exact zero
    assert _heard(mixes, "p0") == set(players) - {"p0", "p1"}
