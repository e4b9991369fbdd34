"""The in-process benchmark (`bench/room_bench.py --breakdown`) still runs against the
server's current voice loop: it drives RoomVoice with stand-in peers, so a new field
that `RoomVoice.stats` reads from a peer once stopped it with an AttributeError that
no test saw. A few ticks, no timing asserted (the figures are the bench's)."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _room_bench():
    spec = importlib.util.spec_from_file_location("room_bench", ROOT / "bench" / "room_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("spatial", [False, True])
def test_the_breakdown_runs_and_encodes_what_the_talkers_say(spatial):
    out = _room_bench().breakdown(players=4, ticks=12, spatial=spatial)
    ticks = out["per_tick"]
    assert set(ticks) == {"talkers_0", "talkers_1", "talkers_3", "talkers_4"}
    assert ticks["talkers_0"]["encodes_per_tick"] < 0.5  # silence is not encoded
    for key in ("talkers_1", "talkers_3", "talkers_4"):
        assert ticks[key]["encodes_per_tick"] > 0.5, (key, ticks[key])
    # one talker: the listeners share one mix (the talker hears nothing), unless seats
    # are on and each hears the talker from their own seat
    assert (ticks["talkers_1"]["distinct_mixes"] > 2) == spatial, ticks["talkers_1"]
