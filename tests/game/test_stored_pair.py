"""A game's word pair can be fixed from outside, so a stored game replays with its own words.

The server draws the pair with `draw_words`, stores it with the game, and gives
it to `new_game` and `replay`: a restart after the word files changed still
deals the words the players already saw.
"""

from __future__ import annotations

from game import apply, draw_words, new_game, replay, state_bytes, validate_options, view
from game.words import load_pairs

PLAYERS = [{"id": f"p{i}", "name": f"N{i}"} for i in range(5)]


def _words(state) -> set[str]:
    return {view(state, p["id"])["me"]["word"] for p in PLAYERS} - {None}


def test_draw_words_is_a_pair_of_the_chosen_language_and_categories():
    opts = validate_options("intruso", {"categories": ["animals"]}, 5)
    a, b, cat = draw_words("intruso", opts, 7)
    assert cat == "animals"
    assert any(p.a == a and p.b == b and p.category == cat for p in load_pairs("it"))
    assert draw_words("intruso", opts, 7) == [a, b, cat]


def test_a_fixed_pair_is_the_one_dealt_in_either_orientation():
    opts = validate_options("intruso", {"powers": [], "fantasmi": 0, "intrusi": 1}, 5)
    pair = ["zanzara", "mosca", "animals"]
    for seed in range(6):
        state = new_game("intruso", opts, seed, PLAYERS, 0.0, words=pair)
        assert _words(state) == {"zanzara", "mosca"}


def test_replay_with_the_stored_pair_equals_the_original_even_if_words_differ():
    opts = validate_options("intruso", {"powers": [], "fantasmi": 0, "intrusi": 1}, 5)
    # A pair that is not in the word files at all stands for "the files changed".
    pair = ["lanterna", "lampione", "objects"]
    state = new_game("intruso", opts, 3, PLAYERS, 10.0, words=pair)
    turn = view(state, "p0")["turn"]
    state, _ = apply(state, turn, {"type": "clue", "text": "buio"}, 12.0)
    log = [{"t": 12.0, "player": turn, "action": {"type": "clue", "text": "buio"}}]
    again = replay("intruso", opts, 3, PLAYERS, log, started_at=10.0, words=pair)
    assert state_bytes(again) == state_bytes(state)
    assert _words(again) == {"lanterna", "lampione"}
