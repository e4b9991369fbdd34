"""A whole Intruso game runs through the public API and ends."""

from game.simulate import play


def test_a_random_intruso_game_ends_with_one_outcome():
    state, broken, _ = play("intruso", 6, seed=11)
    assert broken == []
    assert state.phase == "over"
    assert state.outcome in ("civili", "infiltrati", "fantasma", "buffone")
