"""Impostore's words: the loader (against a small fixture of the word files' format) and a
room's own word list (game/custom_words.py) for both engines."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from game import GameError, draw_words, new_game, public_options, validate_options, view
from game.custom_words import MAX_BYTES, MAX_ENTRIES, parse_pairs, parse_words
from game.impostor import wordbank

FIXTURE = Path(__file__).with_name("fixtures") / "impostore"


@pytest.fixture
def fixture_words(monkeypatch):
    """Point the loader at the fixture (the same format as game/langs/<lang>/impostore.json)."""
    monkeypatch.setattr(wordbank, "FOLDER", FIXTURE)
    yield
    wordbank._load.cache_clear()


def test_the_loader_reads_categories_words_and_hints(fixture_words):
    assert wordbank.categories("it") == ["animals", "sports", "films"]
    assert wordbank.category_names("fr")["animals"] == "Animaux"
    assert wordbank.words_of("en", "films")[0] == {"word": "Titanic", "hints": ["iceberg", "ship"]}


def test_a_draw_is_one_category_and_different_words_of_it(fixture_words):
    seen = set()
    for seed in range(60):
        d = wordbank.draw(random.Random(seed), "it", None, 3)
        words = [w["word"] for w in d["words"]]
        assert len(set(words)) == 3
        assert set(words) == {w["word"] for w in wordbank.words_of("it", d["category"])}
        seen.add(d["category"])
    assert seen == {"animals", "sports", "films"}
    only = wordbank.draw(random.Random(1), "it", ["sports"], 2)
    assert only["category"] == "sports" and len(only["words"]) == 2


def test_a_malformed_word_file_is_a_bug(tmp_path, monkeypatch):
    bad = json.loads((FIXTURE / "it.json").read_text(encoding="utf-8"))
    bad["words"][0]["hints"] = []
    (tmp_path / "it.json").write_text(json.dumps(bad), encoding="utf-8")
    monkeypatch.setattr(wordbank, "FOLDER", tmp_path)
    try:
        with pytest.raises(ValueError):
            wordbank.categories("it")
    finally:
        wordbank._load.cache_clear()


@pytest.mark.parametrize("hint", ["fast food", "FOOD", "Cibo da strada", "gatto nero"])
def test_a_hint_that_says_its_word_or_category_is_a_bug(tmp_path, monkeypatch, hint):
    """In hint mode the hint is all an impostor sees: a shipped hint that names the word or
    the category ("fast food" under `food`, a CI run's leak) stops the file from loading."""
    raw = {"lang": "it", "categories": {"food": "Cibo", "animals": "Animali"},
           "words": [{"word": "pizza", "category": "food", "hints": ["forno"]},
                     {"word": "pasta", "category": "food", "hints": ["sugo"]},
                     {"word": "gatto", "category": "animals", "hints": ["fusa"]},
                     {"word": "cane", "category": "animals", "hints": ["osso"]}]}
    (tmp_path / "it.json").write_text(json.dumps(raw), encoding="utf-8")
    monkeypatch.setattr(wordbank, "FOLDER", tmp_path)
    try:
        assert wordbank.categories("it") == ["food", "animals"]  # the file as it stands loads
        wordbank._load.cache_clear()
        target = raw["words"][2] if "gatto" in hint else raw["words"][0]
        target["hints"].append(hint)
        (tmp_path / "it.json").write_text(json.dumps(raw), encoding="utf-8")
        with pytest.raises(ValueError, match="a hint of"):
            wordbank.categories("it")
    finally:
        wordbank._load.cache_clear()


def test_the_real_word_files_load_in_every_language():
    """The word data (game/langs/*/impostore.json) has categories with words and hints."""
    for lang in wordbank.LANGS:
        cats = wordbank.categories(lang)
        assert len(cats) >= 14 and "films" in cats
        assert all(len(wordbank.words_of(lang, c)) >= 2 for c in cats)


# ---------------------------------------------------------------- a room's own list


def test_custom_words_one_per_line_or_with_hints():
    """Issue 9: one word per line, or `word: hint, hint`; blank and # lines skipped."""
    text = "gatto: fusa, baffi\n\n# animals\ncane\n  Leone marino :  foca,  mare \n"
    assert parse_words(text) == [
        {"word": "gatto", "hints": ["fusa", "baffi"]},
        {"word": "cane", "hints": []},
        {"word": "Leone marino", "hints": ["foca", "mare"]},
    ]
    assert parse_words(parse_words(text)) == parse_words(text)  # the stored list checks again


@pytest.mark.parametrize("text,code,line", [
    ("gatto\ncane", "words_too_few", None),
    ("gatto\nc\ncane", "words_too_short", 2),
    ("gatto\ncane\n" + "x" * 31, "words_too_long", 3),
    ("gatto\nca<ne\nleone", "words_bad_characters", 2),
    ("gatto\ncane\nGÀTTO", "words_duplicate", 3),
    ("gatto: gatto\ncane\nleone", "words_duplicate", 1),
    ("\n".join(f"parola{i}" for i in range(MAX_ENTRIES + 1)), "words_too_many", None),
    ("gatto\n" * 2000, "words_too_big", None),
])
def test_custom_words_refused_with_a_clear_code(text, code, line):
    """Issue 9: validated with clear errors (too short, duplicates, too long, bad characters,
    over a size limit); the refusal names the line."""
    with pytest.raises(GameError) as info:
        parse_words(text)
    assert info.value.code == code and info.value.detail["field"] == "custom_words"
    if line is not None:
        assert info.value.detail["line"] == line
    assert len(("gatto\n" * 2000).encode()) > MAX_BYTES


def test_custom_pairs_for_the_undercover_presets():
    """Issue 9: pairs for the undercover presets: `word, word` (or `word / word`)."""
    assert parse_pairs("gatto, tigre\nmare / lago\n") == [["gatto", "tigre"], ["mare", "lago"]]
    for text, code in (("gatto tigre", "words_bad_pair"), ("gatto, gatto", "words_duplicate"),
                       ("gatto, tigre\ntigre, gatto", "words_duplicate"),
                       ("a, tigre", "words_too_short"), ("", "words_too_few")):
        with pytest.raises(GameError) as info:
            parse_pairs(text)
        assert info.value.code == code, text


def test_a_custom_list_is_dealt_and_a_replay_deals_the_same_word():
    """Issue 9: stored with the room (its options) so that a replay deals the same word."""
    opts = validate_options("classica", {"custom_words": "zebra: strisce\npanda\nkoala"}, 5)
    assert opts["custom_words"][0] == {"word": "zebra", "hints": ["strisce"]}
    words = draw_words("classica", opts, 7)
    assert words["category"] == "custom"
    assert {w["word"] for w in words["words"]} == {"zebra", "panda", "koala"}
    assert draw_words("classica", opts, 7) == words
    s = new_game("classica", opts, 7, [{"id": f"p{i}", "name": str(i)} for i in range(5)], 0,
                 words=words)
    innocent = next(pl.id for pl in s.players if pl.role == "innocente")
    assert view(s, innocent)["me"]["word"] == words["words"][0]["word"]
    uc = validate_options("intruso", {"custom_words": "mare, lago"}, 5)
    assert draw_words("intruso", uc, 3) == ["mare", "lago", "custom"]


def test_the_table_sees_only_the_size_of_a_custom_list():
    """The list is the host's secret: the options shown to the table carry its size only."""
    opts = validate_options("classica", {"custom_words": "zebra\npanda\nkoala"}, 5)
    shown = public_options("classica", opts)
    assert shown["custom_words"] == {"count": 3} and "zebra" not in json.dumps(shown)
    assert public_options("intruso", validate_options("intruso", None, 5))["custom_words"] is None
