"""Word data of the undercover games (game/langs/*/pairs.json) and the pair draw."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from game.errors import GameError
from game.text import check_clue, fold
from game.words import (
    LANGS,
    WordPair,
    _validate,
    categories,
    category_names,
    load_pairs,
    pairs_file,
    pick_pair,
)

MIN_PAIRS = {"it": 260, "fr": 160, "en": 160, "es": 1200}


def test_every_language_has_a_word_file_in_one_format():
    for lang in LANGS:
        raw = json.loads(pairs_file(lang).read_text(encoding="utf-8"))
        assert raw["lang"] == lang
        assert set(raw) == {"lang", "categories", "pairs"}
        assert all(len(row) == 3 for row in raw["pairs"])


def test_category_ids_are_shared_by_every_language_with_translated_names():
    ids = categories("it")
    assert len(ids) >= 12
    for lang in LANGS:
        assert categories(lang) == ids
        names = category_names(lang)
        assert set(names) == set(ids)
        assert all(name.strip() for name in names.values())
    assert category_names("it")["animals"] == "Animali"
    assert category_names("fr")["animals"] == "Animaux"


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_has_enough_pairs_over_at_least_twelve_categories(lang):
    pairs = load_pairs(lang)
    assert len(pairs) >= MIN_PAIRS[lang]
    per_category = Counter(p.category for p in pairs)
    assert len(per_category) >= 12
    # No category is a token one: a room restricted to it still gets variety.
    assert min(per_category.values()) >= 10


@pytest.mark.parametrize("lang", LANGS)
def test_no_word_is_repeated_too_often(lang):
    counts = Counter(w for p in load_pairs(lang) for w in (p.a, p.b))
    assert max(counts.values()) <= 3, counts.most_common(3)


@pytest.mark.parametrize("lang", LANGS)
def test_no_pair_is_repeated_in_either_orientation(lang):
    keys = [frozenset((p.a, p.b)) for p in load_pairs(lang)]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("lang", LANGS)
def test_every_word_is_a_plain_lowercase_word(lang):
    for pair in load_pairs(lang):
        for word in (pair.a, pair.b):
            assert word == word.strip().lower()
            assert 2 <= len(word) <= 20
            assert "  " not in word
            assert all(c.isalpha() or c in " '-" for c in word), word


@pytest.mark.parametrize("lang", LANGS)
def test_the_two_words_of_a_pair_are_not_of_the_same_family(lang):
    # A player holding one word may name the other in a clue: the clue check
    # must accept it both ways, and the folded words must differ.
    for pair in load_pairs(lang):
        assert fold(pair.a) != fold(pair.b)
        assert check_clue(pair.b, pair.a, lang) == pair.b
        assert check_clue(pair.a, pair.b, lang) == pair.a


@pytest.mark.parametrize("lang", LANGS)
def test_every_word_passes_the_clue_shape_check(lang):
    for pair in load_pairs(lang):
        for word in (pair.a, pair.b):
            assert check_clue(word, None, lang) == word


BAD_FILES = [
    {"lang": "it", "categories": {"animals": "Animali"}, "pairs": []},
    {"lang": "fr", "categories": {"animals": "Animali"}, "pairs": [["gatto", "tigre", "animals"]]},
    {"lang": "it", "categories": {"animals": "Animali"}, "pairs": [["gatto", "tigre", "food"]]},
    {"lang": "it", "categories": {"animals": "Animali"}, "pairs": [["Gatto", "tigre", "animals"]]},
    {"lang": "it", "categories": {"animals": "Animali"}, "pairs": [["gatto", "gatto", "animals"]]},
    {"lang": "it", "categories": {"animals": "Animali"}, "pairs": [["gatto", "tigre"]]},
    {
        "lang": "it",
        "categories": {"animals": "Animali"},
        "pairs": [["gatto", "tigre", "animals"], ["tigre", "gatto", "animals"]],
    },
    {
        "lang": "it",
        "categories": {"animals": "Animali", "food": "Cibo"},
        "pairs": [["gatto", "tigre", "animals"]],
    },
]


@pytest.mark.parametrize("raw", BAD_FILES)
def test_a_malformed_word_file_is_refused_at_load(raw):
    with pytest.raises(ValueError):
        _validate("it", raw)


def test_pick_pair_draws_from_the_chosen_categories_only():
    rng = random.Random(7)
    for _ in range(50):
        pair = pick_pair(rng, "it", ["animals", "food"])
        assert isinstance(pair, WordPair)
        assert pair.category in {"animals", "food"}


def test_pick_pair_is_deterministic_for_a_seed():
    draws = [[pick_pair(random.Random(seed), "fr") for _ in range(3)] for seed in (1, 1)]
    assert draws[0] == draws[1]


def test_pick_pair_is_uniform_over_the_pairs_of_the_chosen_categories():
    pool = [p for p in load_pairs("en") if p.category in {"animals", "drinks"}]
    rng = random.Random(3)
    counts = Counter(pick_pair(rng, "en", ["animals", "drinks"]) for _ in range(200 * len(pool)))
    assert set(counts) == set(pool)
    # Each pair expected 200 times; a generous band still catches a skew by category.
    assert all(100 < n < 300 for n in counts.values())


def test_pick_pair_does_not_orient_the_pair():
    pairs = load_pairs("it")
    rng = random.Random(5)
    for _ in range(20):
        assert pick_pair(rng, "it") in pairs


@pytest.mark.parametrize("cats", [["dragons"], []])
def test_pick_pair_refuses_unknown_or_no_categories(cats):
    with pytest.raises(GameError) as info:
        pick_pair(random.Random(0), "it", cats)
    assert info.value.code == "bad_options"


def test_an_unknown_language_is_refused():
    with pytest.raises(GameError) as info:
        load_pairs("de")
    assert info.value.code == "bad_options"


def test_loaded_pairs_are_a_copy_the_caller_may_not_spoil():
    pairs = load_pairs("it")
    pairs.clear()
    assert load_pairs("it")
