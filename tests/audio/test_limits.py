"""The listeners' limiter states across ticks: the last tick's row states reused while the
mixing plan stays (issue 37 item 7) give what spreading them to the listeners each tick gives."""

import numpy as np

from audio import FRAME, RoomMixer, Routing
from audio.limits import ListenerLimits
from audio.synth import speech_like

PLAYERS = [f"p{i:02d}" for i in range(8)]


class _EveryTick(ListenerLimits):
    """The general path: the row states spread to the listeners and gathered again each tick."""

    def start(self, plan):
        self._listeners()
        return super().start(plan)


def _scene(mixer: RoomMixer) -> list[dict[str, np.ndarray]]:
    for p in PLAYERS:
        mixer.add_player(p)
    mixer.set_routing(Routing(public=frozenset(PLAYERS)))
    voices = [3.0 * speech_like(3.0, seed=i, f0=100 + 11 * i, level_db=-12.0) for i in range(8)]
    outs = []
    for t in range(120):
        if t == 30:
            mixer.set_volumes("p00", {"p01": 0.2})  # a ramp, then a new plan
        if t == 50:
            mixer.set_routing(Routing(public=frozenset(PLAYERS) - {"p05"}))
        if t == 70:
            mixer.set_layout(PLAYERS)
            mixer.set_stereo("p06", True)
        if t == 90:
            mixer.remove_player("p07")
        for i, p in enumerate(mixer.players):
            quiet = 60 <= t < 66 and i < 4  # some voices pause: the loud mixes release
            mixer.push(p, np.zeros(FRAME, np.float32) if quiet else voices[i][t * FRAME : (t + 1) * FRAME])
        outs.append({p: np.array(a) for p, a in mixer.tick().mixes.items()})
    return outs


def test_row_states_kept_between_ticks_give_the_same_mixes_as_states_spread_every_tick():
    fast = RoomMixer()
    general = RoomMixer()
    general._limits = _EveryTick()
    a, b = _scene(fast), _scene(general)
    assert fast._limits.engaged  # the limiter was at work, so the fast path ran
    for got, want in zip(a, b, strict=True):
        assert got.keys() == want.keys()
        for p in got:
            assert np.array_equal(got[p], want[p]), p
