"""The core as a home for several engines: one API, dispatched by preset and by state."""

from __future__ import annotations

import pytest

import game
from game.engines import ENGINE_API, ENGINES, engine_of_preset


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_engine_offers_the_whole_api(name):
    engine = ENGINES[name]
    missing = [f for f in ENGINE_API if not hasattr(engine, f)]
    assert not missing, (name, missing)
    assert engine.NAME == name
    for preset in engine.PRESETS:
        assert engine_of_preset(preset) is engine and game.engine_name(preset) == name


def test_preset_names_are_unique_across_engines():
    names = [p for engine in ENGINES.values() for p in engine.PRESETS]
    assert len(names) == len(set(names)) == len(game.PRESETS)


def test_an_unknown_preset_is_refused_with_bad_options():
    for bad in ("nope", None, 3, ["intruso"]):
        with pytest.raises(game.GameError) as info:
            game.default_options(bad)
        assert info.value.code == "bad_options" and info.value.detail["field"] == "preset"


@pytest.mark.parametrize("preset", sorted(game.PRESETS))
def test_the_one_door_reaches_the_engine_of_each_preset(preset):
    """new_game / opening_events / view / audio_policy / result through game/__init__."""
    players = [{"id": f"p{i}", "name": f"P{i}"} for i in range(8)]
    options = game.validate_options(preset, game.default_options(preset), len(players))
    words = game.draw_words(preset, options, 5)
    state = game.new_game(preset, options, 5, players, 0.0, words=words)
    assert state.game == game.engine_name(preset)
    assert game.opening_events(state)[0] == {"type": "phase", "phase": state.phase}
    assert game.result(state) is None
    spectator = game.view(state, None)
    assert spectator["me"] is None and spectator["phase"] == state.phase
    assert game.view(state, "p0")["me"]["id"] == "p0"
    assert isinstance(game.audio_policy(state), game.AudioPolicy)
    # A phase has a deadline unless the preset plays without timers (Impostore's default
    # pace): then it waits for the players, and someone can act.
    timed = any(v is not None for v in options["timers"].values())
    assert (game.next_deadline(state) is not None) == timed
    if not timed:
        assert any(game.view(state, p["id"])["me"]["can"] for p in players)
