"""Impostore's word data: game/langs/<lang>/impostore.json (issue 9, "## Words"; rules/002 §1).

The files are read directly, not through the engine, so the data is checked
on its own: the same categories in it, fr and en (the 14 of the undercover
word files, films and one more), at least 40 common words per category,
no word twice, every word with at least two hint words, and every hint
accepted by the game's own clue check, so an impostor's hint is never the
secret word or a word of its family (RULES.md, "A clue may not contain...").
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from itertools import combinations

import pytest

from game import languages
from game.errors import GameError
from game.impostor import wordbank
from game.text import articles, check_clue, fold, guess_matches, hint_uses_word
from game.words import pairs_file

LANGS = wordbank.langs()  # the languages with an impostore.json

MIN_CATEGORIES = 16
MIN_WORDS_PER_CATEGORY = 40
MIN_HINTS = 2
# Categories whose entries are titles or names, written capitalised.
NAMED = {"films", "characters"}

# Letters, with single spaces, apostrophes (ASCII) or hyphens between them;
# "de' Paperoni" keeps its apostrophe before the space. Digits only in titles.
_LETTERS = r"[^\W\d_]+"
_SHAPE = re.compile(rf"^{_LETTERS}(?:(?:[ \-]|' ?){_LETTERS})*$")
_TITLE_SHAPE = re.compile(r"^[^\W_]+(?:(?:[ \-]|' ?)[^\W_]+)*$")
_PIECES = re.compile(r"[a-z]+")


@cache
def _load(lang: str) -> dict:
    return json.loads(languages.get(lang).file("impostore").read_text(encoding="utf-8"))


def _undercover_categories(lang: str) -> dict[str, str]:
    raw = json.loads(pairs_file(lang).read_text(encoding="utf-8"))
    return raw["categories"]


def _key(word: str, lang: str) -> str:
    """A word as a guess sees it: folded, one leading article dropped ("Lo squalo" = "squalo")."""
    folded = fold(word)
    for article in sorted(articles(lang), key=len, reverse=True):
        if article.endswith("'") and folded.startswith(article):
            return folded[len(article) :].strip()
        if folded.startswith(article + " "):
            return folded[len(article) + 1 :]
    return folded


def _entries(lang: str) -> list[dict]:
    return _load(lang)["words"]


def test_summary_every_language_has_its_words_and_hints(capsys):
    """Prints categories and words per language in the test output (plain pytest or -s;
    xdist workers swallow it) and checks each language's totals."""
    lines = []
    for lang in LANGS:
        per_cat = Counter(e["category"] for e in _entries(lang))
        hints = sum(len(e["hints"]) for e in _entries(lang))
        lines.append(
            f"impostore words {lang}: {len(per_cat)} categories, {len(_entries(lang))} words "
            f"({min(per_cat.values())}-{max(per_cat.values())} per category), {hints} hints"
        )
        assert len(_entries(lang)) >= MIN_CATEGORIES * MIN_WORDS_PER_CATEGORY, lang
        assert hints >= MIN_HINTS * len(_entries(lang)), lang
    with capsys.disabled():
        print("\n" + "\n".join(lines))


@pytest.mark.parametrize("lang", LANGS)
def test_file_has_one_shape(lang):
    raw = _load(lang)
    assert set(raw) == {"lang", "categories", "words"}
    assert raw["lang"] == lang
    cats = raw["categories"]
    assert isinstance(cats, dict)
    for cid, name in cats.items():
        assert re.fullmatch(r"[a-z][a-z_]*", cid), cid
        assert isinstance(name, str) and name.strip() == name and name, (cid, name)
    assert isinstance(raw["words"], list)
    for entry in raw["words"]:
        assert isinstance(entry, dict) and set(entry) == {"word", "category", "hints"}, entry
        assert isinstance(entry["word"], str), entry
        assert entry["category"] in cats, entry
        hints = entry["hints"]
        assert isinstance(hints, list) and all(isinstance(h, str) for h in hints), entry


def test_every_language_has_the_same_categories_including_the_undercover_ones_and_films():
    ids = list(_load("it")["categories"])
    assert len(ids) >= MIN_CATEGORIES
    assert set(_undercover_categories("it")) <= set(ids)
    assert "films" in ids
    for lang in LANGS:
        assert list(_load(lang)["categories"]) == ids, lang


@pytest.mark.parametrize("lang", LANGS)
def test_category_names_are_in_the_file_language_and_match_the_undercover_files(lang):
    names = _load(lang)["categories"]
    # A category shown in the lobby has one name whichever game is chosen.
    for cid, name in _undercover_categories(lang).items():
        assert names[cid] == name, (cid, names[cid], name)
    if lang != "it":
        # Written in the file's language: not the Italian names copied over.
        own = {cid: n for cid, n in names.items() if n != _load("it")["categories"][cid]}
        assert len(own) >= len(names) - 2, names


@pytest.mark.parametrize("lang", LANGS)
def test_each_category_has_at_least_forty_words(lang):
    per_cat = Counter(e["category"] for e in _entries(lang))
    assert set(per_cat) == set(_load(lang)["categories"])
    thin = {c: n for c, n in per_cat.items() if n < MIN_WORDS_PER_CATEGORY}
    assert not thin, thin


@pytest.mark.parametrize("lang", LANGS)
def test_no_word_appears_twice_in_a_language(lang):
    # Case, accents and a leading article ignored: "Lo squalo" would repeat "squalo".
    counts = Counter(_key(e["word"], lang) for e in _entries(lang))
    repeated = [w for w, n in counts.items() if n > 1]
    assert not repeated, repeated


@pytest.mark.parametrize("lang", LANGS)
def test_words_and_hints_are_letters_with_spaces_apostrophes_or_hyphens(lang):
    bad = []
    for e in _entries(lang):
        shape = _TITLE_SHAPE if e["category"] == "films" else _SHAPE
        if not shape.match(e["word"]):
            bad.append(e["word"])
        bad += [h for h in e["hints"] if not _SHAPE.match(h)]
    assert not bad, bad


@pytest.mark.parametrize("lang", LANGS)
def test_words_are_in_their_natural_case(lang):
    bad = []
    for e in _entries(lang):
        word = e["word"]
        if e["category"] in NAMED:
            # Titles and names: capitalised as usual ("Il re leone", "Peter Pan").
            if not word[0].isupper():
                bad.append(word)
        elif word != word.lower():
            bad.append(word)
    assert not bad, bad


@pytest.mark.parametrize("lang", LANGS)
def test_every_word_has_at_least_two_distinct_hints(lang):
    few = [e["word"] for e in _entries(lang) if len({fold(h) for h in e["hints"]}) < MIN_HINTS]
    repeated = [
        e["word"] for e in _entries(lang) if len({fold(h) for h in e["hints"]}) != len(e["hints"])
    ]
    assert not few, few
    assert not repeated, repeated


@pytest.mark.parametrize("lang", LANGS)
def test_every_hint_passes_the_games_clue_check_for_its_word(lang):
    """A hint is never the word or a word of its family (plural, diminutive, compound)."""
    refused = []
    for e in _entries(lang):
        for hint in e["hints"]:
            try:
                cleaned = check_clue(hint, e["word"], lang)
            except GameError as exc:  # report every refused hint at once
                refused.append((e["word"], hint, exc.code))
                continue
            assert cleaned == hint, (e["word"], hint, cleaned)
    assert not refused, refused


@pytest.mark.parametrize("lang", LANGS)
def test_no_hint_holds_its_word_issue29_13(lang):
    """Issue 29, item 13: no shipped hint holds its word or an inflection of it as a room's
    own list is checked (`hint_uses_word`): "incollare" showed "colla" to the impostor."""
    bad = [(e["word"], hint) for e in _entries(lang) for hint in e["hints"]
           if hint_uses_word(hint, e["word"], lang)]
    assert not bad, bad


@pytest.mark.parametrize("lang", LANGS)
def test_no_hint_is_a_piece_of_its_word(lang):
    """The clue check refuses a hint that contains the word; the other way round,
    a hint that is the start or the end of the word gives it away just as much
    ("sun" for "sunflower", "pluie" for "parapluie")."""
    bad = []
    for e in _entries(lang):
        pieces = _PIECES.findall(fold(e["word"]))
        for hint in e["hints"]:
            for part in _PIECES.findall(fold(hint)):
                if len(part) >= 3 and any(
                    len(p) > len(part) and (p.startswith(part) or p.endswith(part)) for p in pieces
                ):
                    bad.append((e["word"], hint))
    assert not bad, bad


@pytest.mark.parametrize("lang", LANGS)
def test_no_word_is_taken_for_another_of_its_category_by_the_guess_check(lang):
    """The impostor's guess forgives small typos (RULES.md); two words of one
    category must stay further apart than that, or naming the wrong one
    ("shirt" for "skirt") would win."""
    by_cat: dict[str, list[str]] = {}
    for e in _entries(lang):
        by_cat.setdefault(e["category"], []).append(e["word"])
    clashes = []
    for words in by_cat.values():
        for a, b in combinations(words, 2):
            if guess_matches(a, b, None, lang) or guess_matches(b, a, None, lang):
                clashes.append((a, b))
    assert not clashes, clashes
