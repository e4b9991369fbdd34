"""Word pairs of the undercover games, read from `game/langs/<lang>/pairs.json`.

Each file has one format:

    {"lang": "it",
     "categories": {"animals": "Animali", ...},      # stable English id -> display name
     "pairs": [["gatto", "tigre", "animals"], ...]}  # two close words and a category id

The files are validated when first loaded and cached: a malformed file is a
bug of the project and raises ValueError. The languages are those of
`game.languages` that have a pairs.json (`langs()`); one without it does not
offer these games.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from game import languages
from game.errors import GameError

PART = "pairs"  # the data file: game/langs/<lang>/pairs.json

# A word is lowercase letters (accented ones included), possibly several
# words joined by a space, apostrophe or hyphen.
# Used with fullmatch: with match, "$" also accepts a trailing newline.
_WORD_SHAPE = re.compile(r"[^\W\d_]+(?:[ '\-][^\W\d_]+)*")
_CATEGORY_ID = re.compile(r"[a-z][a-z_]*")


@dataclass(frozen=True)
class WordPair:
    """Two close words (`a`, `b`) of one category; orientation is chosen by the engine."""

    a: str
    b: str
    category: str


@dataclass(frozen=True)
class _WordData:
    categories: dict[str, str]
    pairs: tuple[WordPair, ...]


def langs() -> tuple[str, ...]:
    """The languages with word pairs, in menu order."""
    return languages.codes(PART)


def __getattr__(name: str) -> object:
    # `words.LANGS`: the same as `langs()`, read when asked (a language added later counts).
    if name == "LANGS":
        return langs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pairs_file(lang: str) -> Path:
    """The pairs.json of a language; GameError("bad_options") when it has none."""
    return languages.data_file(lang, PART)


def _check_lang(lang: str) -> None:
    pairs_file(lang)


def _validate(lang: str, raw: object, where: object = None) -> _WordData:
    """Check a parsed word file and build its data; ValueError on any defect."""
    where = where or f"game/langs/{lang}/pairs.json"
    if not isinstance(raw, dict) or set(raw) != {"lang", "categories", "pairs"}:
        raise ValueError(f"{where}: expected keys lang, categories, pairs")
    if raw["lang"] != lang:
        raise ValueError(f"{where}: lang is {raw['lang']!r}")
    cats = raw["categories"]
    if not isinstance(cats, dict) or not cats:
        raise ValueError(f"{where}: categories must be a non-empty object")
    for cid, name in cats.items():
        if not _CATEGORY_ID.fullmatch(cid) or not isinstance(name, str) or not name.strip():
            raise ValueError(f"{where}: bad category {cid!r}: {name!r}")
    rows = raw["pairs"]
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{where}: pairs must be a non-empty list")
    seen: set[frozenset[str]] = set()
    pairs = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 3 and all(isinstance(x, str) for x in row)):
            raise ValueError(f"{where}: bad pair {row!r}")
        a, b, cat = row
        for word in (a, b):
            if word != word.strip() or word != word.lower() or not _WORD_SHAPE.fullmatch(word):
                raise ValueError(f"{where}: bad word {word!r} in {row!r}")
        if a == b:
            raise ValueError(f"{where}: same word twice in {row!r}")
        if cat not in cats:
            raise ValueError(f"{where}: unknown category {cat!r} in {row!r}")
        key = frozenset((a, b))
        if key in seen:
            raise ValueError(f"{where}: duplicate pair {row!r}")
        seen.add(key)
        pairs.append(WordPair(a, b, cat))
    used = {p.category for p in pairs}
    if used != set(cats):
        raise ValueError(f"{where}: categories without pairs: {sorted(set(cats) - used)}")
    return _WordData(dict(cats), tuple(pairs))


def _load(lang: str) -> _WordData:
    return _read(lang, pairs_file(lang))


@cache
def _read(lang: str, path: Path) -> _WordData:
    with open(path, encoding="utf-8") as f:
        return _validate(lang, json.load(f), path)


def load_pairs(lang: str) -> list[WordPair]:
    """All word pairs of a language, in file order (validated, cached)."""
    return list(_load(lang).pairs)


def categories(lang: str) -> list[str]:
    """Category ids of a language ("animals", "food", ...), shared by every language."""
    return list(_load(lang).categories)


def category_names(lang: str) -> dict[str, str]:
    """Category id -> display name in that language."""
    return dict(_load(lang).categories)


def _impostore_words(lang: str) -> list[str]:
    """Words of the Impostore word file (game/langs/<lang>/impostore.json), if there is one.

    Read here only to list every secret word; its owner validates the file.
    """
    path = languages.get(lang).file("impostore")
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    return [row["word"] for row in raw.get("words", []) if isinstance(row.get("word"), str)]


def secret_words(lang: str) -> list[str]:
    """Every secret word the core can deal in a language, each once, in file order:
    both words of every undercover pair, then the Impostore words.

    The one list the clue checks are tested against (tests/game/test_word_families.py).
    """
    _check_lang(lang)
    words = [w for p in _load(lang).pairs for w in (p.a, p.b)] + _impostore_words(lang)
    return list(dict.fromkeys(words))


def pick_pair(rng: random.Random, lang: str, categories: list[str] | None = None) -> WordPair:
    """Draw one pair uniformly among the pairs of the chosen categories (all if None).

    The orientation (which word the Civili get) is left to the engine.
    Unknown or empty categories raise GameError("bad_options").
    """
    data = _load(lang)
    if categories is None:
        pool = data.pairs
    else:
        unknown = [c for c in categories if c not in data.categories]
        if unknown:
            raise GameError("bad_options", "unknown word category", categories=unknown)
        if not categories:
            raise GameError("bad_options", "no word category chosen", categories=[])
        chosen = set(categories)
        pool = tuple(p for p in data.pairs if p.category in chosen)
    return pool[rng.randrange(len(pool))]
