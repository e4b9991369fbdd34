"""Issue 31, section 3 item 10: a personal mute or volume change is heard at once, without a click.

A listener mutes or lowers a voice (`set_volumes`): the very next frame moves to the
new gain over a short ramp (a few ms), so the voice is silent from the second frame on
and a new volume is exact there; the step is smooth (no jump at the frame edge larger
than the tone's own sample-to-sample change).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from audio import FRAME, RoomMixer, Routing
from audio.synth import tone
from tests.audio.mixhelp import run

HZ = {"a": 500.0, "b": 700.0, "c": 1500.0}
LEVEL_DB = -10.0  # loud: a click would stand out
CHANGE_AT = 50  # the tick before which the listener's choice arrives


def _room(stereo: bool = False) -> RoomMixer:
    m = RoomMixer()
    for p in HZ:
        m.add_player(p)
    m.set_routing(Routing(public=frozenset(HZ)))
    if stereo:
        m.set_layout(list(HZ))
        m.set_stereo("a", True)
    return m


def _tones():
    return {p: tone(HZ[p], 2.0, LEVEL_DB) for p in ("b", "c")}


def _frame_db(x: np.ndarray, t: int, hz: float) -> float:
    """Level (dBFS, peak scale) of tone `hz` in frame `t` of x (an exact 50 Hz bin grid)."""
    seg = x[t * FRAME : (t + 1) * FRAME].astype(np.float64)
    spec = np.abs(np.fft.rfft(seg)) * 2.0 / FRAME
    return 20 * math.log10(spec[int(round(hz / 50.0))] + 1e-15)


def _natural_step(hz: float) -> float:
    """The largest sample-to-sample change of the tone itself."""
    return 10 ** (LEVEL_DB / 20) * 2 * math.pi * hz / 48000


def _mix(m: RoomMixer, gains: dict[str, float]) -> np.ndarray:
    def change(t, mixer):
        if t == CHANGE_AT:
            mixer.set_volumes("a", gains)

    mixes, _, _ = run(m, _tones(), CHANGE_AT + 10, on_tick=change)
    return mixes["a"]


def test_item10_a_mute_silences_the_voice_from_the_next_frame_on():
    x = _mix(_room(), {"b": 0.0})
    assert _frame_db(x, CHANGE_AT - 1, HZ["b"]) == pytest.approx(LEVEL_DB, abs=0.2)
    # the frame after the change holds the ramp; from the next one the voice is gone
    for t in range(CHANGE_AT + 1, CHANGE_AT + 10):
        assert _frame_db(x, t, HZ["b"]) < -100, t
    # the other voice is untouched
    for t in range(CHANGE_AT - 2, CHANGE_AT + 10):
        assert _frame_db(x, t, HZ["c"]) == pytest.approx(LEVEL_DB, abs=0.2), t


def test_item10_a_volume_change_lands_exactly_within_two_frames():
    x = _mix(_room(), {"b": 0.25, "c": 1.5})
    for t in range(CHANGE_AT + 1, CHANGE_AT + 10):
        assert _frame_db(x, t, HZ["b"]) == pytest.approx(LEVEL_DB + 20 * math.log10(0.25), abs=0.05)
        assert _frame_db(x, t, HZ["c"]) == pytest.approx(LEVEL_DB + 20 * math.log10(1.5), abs=0.05)


@pytest.mark.parametrize("gains", [{"b": 0.0, "c": 0.0}, {"b": 0.0}, {"c": 1.5}])
def test_item10_a_mute_or_volume_change_has_no_click_at_the_frame_edge(gains):
    x = _mix(_room(), gains)
    edge = CHANGE_AT * FRAME
    around = x[edge - FRAME : edge + 2 * FRAME].astype(np.float64)
    # no sample-to-sample jump beyond what the two tones themselves make at full level
    allowed = 1.1 * (_natural_step(HZ["b"]) + 1.5 * _natural_step(HZ["c"]))
    assert np.abs(np.diff(around)).max() <= allowed
    # a full mute: the ramp still lets the voice out for only a few ms of that frame
    if gains == {"b": 0.0, "c": 0.0}:
        tail = x[edge + FRAME // 2 : edge + FRAME]
        assert not tail.any()


def test_item10_a_stereo_listener_also_gets_the_ramp_on_both_ears():
    m = _room(stereo=True)

    def change(t, mixer):
        if t == CHANGE_AT:
            mixer.set_volumes("a", {"b": 0.0})

    mixes, _, _ = run(m, _tones(), CHANGE_AT + 10, on_tick=change)
    x = mixes["a"]
    edge = CHANGE_AT * FRAME
    for ch in (0, 1):
        around = x[edge - FRAME : edge + 2 * FRAME, ch].astype(np.float64)
        allowed = 1.1 * (_natural_step(HZ["b"]) + _natural_step(HZ["c"]))
        assert np.abs(np.diff(around)).max() <= allowed, ch
        for t in range(CHANGE_AT + 1, CHANGE_AT + 10):
            assert _frame_db(x[:, ch], t, HZ["b"]) < -100, (ch, t)


def test_item10_the_neighbours_mix_is_not_touched_by_the_ramp():
    m = _room()

    def change(t, mixer):
        if t == CHANGE_AT:
            mixer.set_volumes("a", {"b": 0.0})

    before, _, _ = run(_room(), _tones(), CHANGE_AT + 10)
    after, _, _ = run(m, _tones(), CHANGE_AT + 10, on_tick=change)
    np.testing.assert_array_equal(after["c"], before["c"])
