"""RoomMixer as a whole: streams stay continuous through bursts and changes; stats."""

import numpy as np
import pytest

from audio import FRAME, CueBank, RoomMixer, Routing
from audio.jitter import FADE
from audio.synth import speech_like, tone
from tests.audio.mixhelp import run


def _room(players, **routing):
    m = RoomMixer()
    for p in players:
        m.add_player(p)
    m.set_routing(Routing(**routing))
    return m


def test_bursty_speaker_reaches_listener_as_an_exact_delayed_copy():
    m = _room(["a", "b"], public=frozenset({"a"}))
    x = tone(440, 4.0, -12.0)
    out, pos = [], 0
    for t in range(190):
        if t % 3 == 0:  # three frames every 60 ms
            m.push("a", x[pos : pos + 3 * FRAME])
            pos += 3 * FRAME
        out.append(m.tick().mixes["b"])
    out = np.concatenate(out)
    delay = int(np.argmax(out != 0)) - 1  # fade-in starts with an exact zero
    body = out[delay + FADE :]
    np.testing.assert_array_equal(body, x[FADE : FADE + body.size])
    assert delay <= 4 * FRAME  # bounded latency (queue + 1 ms limiter look-ahead)
    assert m.stats()["underruns"]["a"] == 0


def test_limiter_stays_under_full_scale_through_routing_changes():
    players = [f"p{i}" for i in range(8)]
    allow = {p: frozenset(players) - {p} for p in players}
    m = _room(players, public=frozenset(players), whisper=allow)
    voices = {p: np.clip(speech_like(3.0, seed=i, level_db=-3.0) * 2, -1, 1) for i, p in enumerate(players)}

    def change(t, mixer):
        if t % 7 == 0:
            mixer.start_whisper(players[t % 8], players[(t + 3) % 8])
        if t % 11 == 0:
            mixer.stop_whisper(players[t % 8])
        if t % 29 == 0:
            mixer.set_routing(Routing(public=frozenset(players[: 2 + t % 6]), whisper=allow))

    mixes, _, _ = run(m, voices, 140, on_tick=change)
    for p in players:
        assert np.abs(mixes[p]).max() <= 1.0


def _assert_a_reaches_b_exactly(m: RoomMixer, on_tick) -> None:
    """`a` speaks a tone for 90 ticks (`on_tick(t)` before each); `b` hears an exact,
    delayed copy after the fade-in."""
    x = tone(300, 2.0, -12.0)
    out = []
    for t in range(90):
        on_tick(t)
        m.push("a", x[t * FRAME : (t + 1) * FRAME])
        out.append(m.tick().mixes["b"])
    out = np.concatenate(out)
    delay = int(np.argmax(out != 0)) - 1
    body = out[delay + FADE :]
    np.testing.assert_array_equal(body, x[FADE : FADE + body.size])


def test_joining_player_does_not_disturb_the_others_streams():
    m = _room(["a", "b"], public=frozenset({"a", "b", "c"}))
    _assert_a_reaches_b_exactly(m, lambda t: m.add_player("c") if t == 40 else None)


def test_leaving_player_and_cues_do_not_disturb_the_others_streams():
    # The window of sources is kept between ticks: a player before the talker
    # leaving (rows move up) and cue rows coming and going must leave the talker's
    # stream an exact copy, look-ahead included.
    m = RoomMixer(cues=CueBank({"ding": tone(1000, 0.05, -20.0)}))
    for p in ("z", "a", "b"):
        m.add_player(p)
    m.set_routing(Routing(public=frozenset({"z", "a", "b"})))

    def change(t):
        if t == 30:
            m.play_cue("ding", ["z"])
        if t == 40:
            m.remove_player("z")

    _assert_a_reaches_b_exactly(m, change)


def test_stats_report_counters_depths_and_activity_per_speaker():
    m = _room(["a", "b", "c"], public=frozenset({"a", "b", "c"}))
    m.push("a", np.zeros(9 * FRAME, dtype=np.float32) + 0.1)  # 4 frames too many
    x = tone(200, 1.0, -20)
    for t in range(30):
        if not 10 <= t < 13:
            m.push("b", x[t * FRAME : (t + 1) * FRAME])
        m.tick()
    s = m.stats()
    assert s["overflows"] == {"a": 4, "b": 0, "c": 0}
    assert s["underruns"] == {"a": 0, "b": 1, "c": 0}  # a stopped; c never sent
    assert s["active"] == {"a": False, "b": True, "c": False}
    assert 0 <= s["depth"]["b"] <= 5
    assert s["distinct"] == 3
    assert s["tick_us"] > 0


def test_issue29_14_one_speakers_failing_queue_costs_nobody_else_their_frame(caplog):
    """Issue 29 item 14: a speaker's jitter queue that raises (as `_shed` did on an
    empty queue) failed the whole tick: no listener got a frame, every voice had a
    20 ms hole. Now that speaker is silent for the tick and their queue starts afresh
    (its counters kept); the others are mixed as usual, and the fault is logged."""
    m = _room(["a", "b", "c"], public=frozenset({"a", "b"}))
    x = tone(300, 1.0, -12.0)
    for t in range(10):
        m.push("a", x[t * FRAME : (t + 1) * FRAME])
        m.push("b", x[t * FRAME : (t + 1) * FRAME])
        m.tick()
    m.push("a", np.zeros(20 * FRAME, dtype=np.float32) + 0.1)  # some frames too many
    overflows = m.stats()["overflows"]["a"]
    assert overflows > 0
    broken = m._sources.queues["a"]

    def fail():
        raise ValueError("need at least one array to concatenate")

    broken.pop = fail
    m.push("b", x[10 * FRAME : 11 * FRAME])
    res = m.tick()
    mix_c = res.mixes["c"]
    # c hears b's frame (past the limiter's look-ahead: a's last millisecond before it)
    assert np.abs(mix_c[FRAME // 4 :]).max() > 0.1
    assert res.mouths["b"] > 0
    assert "speaker a" in caplog.text and "ValueError" in caplog.text
    s = m.stats()
    assert s["queue_faults"] == 1 and s["overflows"]["a"] == overflows
    assert s["depth"]["a"] == 0  # a fresh queue: what the broken one held is dropped
    for t in range(11, 20):
        m.push("a", x[t * FRAME : (t + 1) * FRAME])
        m.push("b", x[t * FRAME : (t + 1) * FRAME])
        m.tick()
    assert m.stats()["queue_faults"] == 1 and m.stats()["active"]["a"]


def test_tick_with_no_players_is_empty():
    res = RoomMixer().tick()
    assert res.mixes == {} and res.mouths == {} and res.distinct == 0


def test_unknown_effect_is_refused():
    m = _room(["a"])
    with pytest.raises(ValueError):
        m.set_routing(Routing(effects={"a": "robot"}))


def test_routing_from_game_policy():
    from game import AudioPolicy

    policy = AudioPolicy(
        public=frozenset({"a", "b"}),
        whisper={"a": frozenset({"b"})},
        drunk=frozenset({"b"}),
        floor="a",
    )
    r = Routing.from_policy(policy)
    assert r.public_speakers() == frozenset({"a"})
    assert r.effects == {"b": "drunk"}
    m = _room(["a", "b"])
    m.set_routing(r)
    m.start_whisper("a", "b")
    assert m.whispers == {"a": "b"}


def test_silent_drunk_speaker_rests_then_comes_back_without_click():
    m = _room(["a", "b"], public=frozenset({"a"}), effects={"a": "drunk"})
    talk = tone(300, 1.0, -12.0)
    x = np.concatenate([talk, np.zeros(2 * 48000, np.float32), talk])
    mixes, _, _ = run(m, {"a": x}, 200)
    out = mixes["b"]
    assert not out[int(2.5 * 48000) : int(3.0 * 48000)].any()  # resting: exact silence
    assert np.abs(out[int(3.2 * 48000) :]).max() > 0.1  # heard again when talking
    assert np.abs(np.diff(out)).max() < 0.1  # and no click anywhere


def test_the_frames_energies_in_one_product_are_each_frames_own_sum_of_squares():
    # Sources.read writes every frame at once and takes every energy in one product
    # (issue 37 item 7): the same values as each frame's own dot product, zeros for the
    # silent and for pushed digital silence, which does not sound.
    from audio.sources import Sources

    src = Sources()
    rng = np.random.default_rng(3)
    for p in ("a", "b", "c", "d"):
        src.add(p)
    frames = {p: (0.2 * rng.standard_normal(960)).astype(np.float32) for p in ("a", "c")}
    frames["d"] = np.zeros(960, np.float32)
    for p, f in frames.items():
        src.queues[p].push(f)
    for _ in range(3):
        window, sounding, energies, _ = src.read()
        if any(energies):
            break
    played = [np.array(window[i, -960:]) for i in range(4)]  # the frames as played
    assert energies[0] == float(played[0].dot(played[0])) > 1.0
    assert energies[2] == float(played[2].dot(played[2])) > 1.0
    assert energies[1] == energies[3] == 0.0
    assert sounding == (0, 2)
    assert not window[[1, 3]].any()
