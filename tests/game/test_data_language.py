"""Issue 38 item 1: a language is data. A throw-away language ("zz", made-up words) is
built in a temporary folder from data alone (language.json, a handful of pairs, one
Impostore category; no UI strings, no code), added to the search path the way a server
adds its own folder, and whole Intruso and Impostore games are played in it through
the engines."""

from __future__ import annotations

import json

import pytest

from game import GameError, languages, new_game, validate_options, words
from game.impostor import wordbank
from game.simulate import play
from game.text import check_clue, guess_matches

PAIRS = [
    ["bloru", "klimo", "things"], ["zatek", "vunor", "things"], ["pelim", "darok", "things"],
    ["sorvi", "tunka", "beasts"], ["milop", "garun", "beasts"], ["fesko", "wilta", "beasts"],
]
IMPOSTORE = [
    {"word": "snarfu", "hints": ["plok", "triv"]}, {"word": "quendo", "hints": ["brask", "lumi"]},
    {"word": "yarpel", "hints": ["okto", "zirn"]}, {"word": "holvik", "hints": ["mest", "pardu"]},
    {"word": "drumet", "hints": ["kovi", "sult"]}, {"word": "brinzo", "hints": ["tefa", "golm"]},
]
LANGUAGE = {
    "code": "zz", "name": "Zedzed", "speech": "zz-ZZ", "order": 99, "plural": "one_other",
    "text": {"articles": ["ka", "ko"], "compound_lead": 4, "fold_keep": "",
             "function_words": ["ka", "ko", "ve"]},
    "family": {
        "stemmer": None, "lemmas": None, "derivations": [], "short_derivations": [],
        "doubled_consonant_derivations": [], "inflections": {"u": ["uki"], "o": ["oki"]},
        "additions": [{"add": "z"}], "diminutives": [], "min_vowel_groups": 0,
        "invariable_after": "", "infinitives": [],
    },
}


def write_language(base, language=LANGUAGE, pairs=PAIRS, impostore=IMPOSTORE):
    """`base/<code>/` with language.json and, when given, pairs.json and impostore.json."""
    code = language["code"]
    folder = base / code
    folder.mkdir(parents=True)
    (folder / "language.json").write_text(json.dumps(language), encoding="utf-8")
    if pairs is not None:
        cats = {c: c.capitalize() for c in dict.fromkeys(p[2] for p in pairs)}
        (folder / "pairs.json").write_text(json.dumps(
            {"lang": code, "categories": cats, "pairs": pairs}), encoding="utf-8")
    if impostore is not None:
        (folder / "impostore.json").write_text(json.dumps(
            {"lang": code, "categories": {"stuff": "Stuff"},
             "words": [dict(w, category="stuff") for w in impostore]}), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def zz(tmp_path_factory):
    base = tmp_path_factory.mktemp("langs")
    write_language(base)
    languages.add_dir(base)
    yield languages.get("zz")
    languages.remove_dir(base)


def test_the_data_language_is_offered_for_both_games_last_in_the_menus(zz):
    assert languages.codes()[-1] == "zz" and zz.name == "Zedzed" and zz.speech == "zz-ZZ"
    assert "zz" in words.langs() and "zz" in wordbank.langs()
    assert words.category_names("zz") == {"things": "Things", "beasts": "Beasts"}
    assert validate_options("intruso", {"lang": "zz"}, 6)["lang"] == "zz"
    assert validate_options("classica", {"lang": "zz"}, 5)["lang"] == "zz"


def test_its_text_rules_come_from_its_data(zz):
    # Its articles leave a guess, its own inflection rows make a family.
    assert guess_matches("ka bloru", "bloru", "klimo", "zz")
    assert not guess_matches("ka bloru", "bloru", "klimo", "it")  # "ka" is no Italian article
    for clue in ("bloruki", "bloruz", "ka bloru"):
        with pytest.raises(GameError) as err:
            check_clue(clue, "bloru", "zz")
        assert err.value.code in ("clue_same_family", "clue_uses_secret_word")
    assert check_clue("blorax", "bloru", "zz") == "blorax"
    # "ve" is a function word there: it cannot be a Pappagallo's repeat.
    assert check_clue("klimo tunka", "bloru", "zz", must_repeat_from="ve klimo") == "klimo tunka"
    with pytest.raises(GameError) as err:
        check_clue("ve snarfu", "bloru", "zz", must_repeat_from="ve klimo")
    assert err.value.code == "clue_must_repeat"


@pytest.mark.parametrize("seed", range(8))
def test_a_whole_intruso_game_is_played_in_it(zz, seed):
    state, broken, _ = play("intruso", 6, seed, {"lang": "zz", "powers": []})
    assert broken == [] and state.phase == "over"
    dealt = {state.word_civili, state.word_intrusi}
    assert any(dealt == {a, b} for a, b, _ in PAIRS)


@pytest.mark.parametrize("seed", range(8))
def test_a_whole_impostore_game_is_played_in_it(zz, seed):
    state, broken, _ = play("classica", 5, seed, {"lang": "zz"})
    assert broken == [] and state.phase == "over"
    assert state.category == "stuff"
    assert set(state.words_seen) <= {w["word"] for w in IMPOSTORE}


def test_a_language_without_pairs_or_impostore_words_is_not_offered_for_that_game(tmp_path):
    write_language(tmp_path, dict(LANGUAGE, code="zy", order=98), pairs=None)
    languages.add_dir(tmp_path)
    try:
        assert "zy" in languages.codes() and "zy" in wordbank.langs()
        assert "zy" not in words.langs()
        with pytest.raises(GameError) as err:
            new_game("intruso", {"lang": "zy"}, 1, [{"id": f"p{i}", "name": f"P{i}"}
                                                     for i in range(5)], 0.0)
        assert err.value.code == "bad_options"
        with pytest.raises(GameError):
            words.load_pairs("zy")
    finally:
        languages.remove_dir(tmp_path)
    assert "zy" not in languages.codes()
