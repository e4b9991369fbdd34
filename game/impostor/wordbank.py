"""Impostore's secret words, read from `game/langs/<lang>/impostore.json`.

One format per language:

    {"lang": "it",
     "categories": {"animals": "Animali", ...},                     # id -> display name
     "words": [{"word": "gatto", "category": "animals", "hints": ["fusa", "baffi"]}, ...]}

Each word has hint words (related, never giving it away) an impostor may be
shown. A file is checked when first read and cached; a malformed file is a
bug of the project and raises ValueError. The languages are those of
`game.languages` with an impostore.json (`langs()`). `FOLDER`, when a test
sets it, is a folder of `<lang>.json` files read instead (a small fixture of
the same format).
"""

from __future__ import annotations

import json
import random
import re
from functools import cache
from pathlib import Path
from typing import Any

from .. import languages
from ..errors import GameError

PART = "impostore"  # the data file: game/langs/<lang>/impostore.json
FOLDER: Path | None = None
CUSTOM = "custom"  # the category of a room's own word list


def langs() -> tuple[str, ...]:
    """The languages with Impostore words, in menu order."""
    if FOLDER is not None:
        return tuple(c for c in languages.codes() if (Path(FOLDER) / f"{c}.json").is_file())
    return languages.codes(PART)


def __getattr__(name: str) -> object:
    # `wordbank.LANGS`: the same as `langs()`, read when asked.
    if name == "LANGS":
        return langs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _path(lang: str) -> Path:
    if FOLDER is None:
        return languages.data_file(lang, PART)
    path = Path(FOLDER) / f"{lang}.json"
    if lang not in languages.codes() or not path.is_file():
        raise GameError("bad_options", f"unknown language {lang!r}", field="lang")
    return path


def _names(text: str, secret: str) -> bool:
    """Whether `text` says `secret` as a whole word, whatever the case."""
    return re.search(rf"(?<!\w){re.escape(secret)}(?!\w)", text, re.IGNORECASE) is not None


@cache
def _load(where: Path, lang: str) -> dict[str, Any]:
    with open(where, encoding="utf-8") as f:
        raw = json.load(f)
    if not isinstance(raw, dict) or raw.get("lang") != lang:
        raise ValueError(f"{where}: expected an object for lang {lang!r}")
    cats = raw.get("categories")
    if not isinstance(cats, dict) or not cats or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in cats.items()):
        raise ValueError(f"{where}: categories must map ids to names")
    by_cat: dict[str, list[dict[str, Any]]] = {c: [] for c in cats}
    for row in raw.get("words") or []:
        word, cat, hints = row.get("word"), row.get("category"), row.get("hints")
        if not isinstance(word, str) or not word.strip() or cat not in by_cat:
            raise ValueError(f"{where}: bad word {row!r}")
        if not isinstance(hints, list) or not hints or not all(
                isinstance(h, str) and h.strip() for h in hints):
            raise ValueError(f"{where}: {word!r} needs hint words")
        named = [x for x in (word, cat, cats[cat]) for h in hints if _names(h, x)]
        if named:
            # The hint is all an impostor sees in hint mode: it may not say the word, nor
            # the category the hint mode keeps from them ("fast food" under "food").
            raise ValueError(f"{where}: a hint of {word!r} says {named[0]!r}")
        by_cat[cat].append({"word": word, "hints": list(hints)})
    empty = [c for c, ws in by_cat.items() if len(ws) < 2]
    if empty:
        raise ValueError(f"{where}: categories with fewer than two words: {empty}")
    return {"categories": dict(cats), "words": by_cat}


def _data(lang: str) -> dict[str, Any]:
    return _load(_path(lang), lang)


def categories(lang: str) -> list[str]:
    """Category ids of a language, in file order."""
    return list(_data(lang)["categories"])


def category_names(lang: str) -> dict[str, str]:
    """Category id -> display name in that language."""
    return dict(_data(lang)["categories"])


def category_name(lang: str, category: str) -> str:
    """The display name of a category (a room's own list is `custom`)."""
    if category == CUSTOM:
        return CUSTOM
    return _data(lang)["categories"].get(category, category)


def words_of(lang: str, category: str) -> list[dict[str, Any]]:
    """Every word of a category: [{"word", "hints"}] (a copy)."""
    return [dict(w, hints=list(w["hints"])) for w in _data(lang)["words"][category]]


def draw(rng: random.Random, lang: str, chosen: list[str] | None, count: int,
         custom: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A category and `count` different words of it (fewer if it has fewer).

    The category is drawn with weight by its number of words, so every word of
    the chosen categories is equally likely to be first; the rest are the
    reserve for "Non conosco la parola". A room's own list is one category.
    """
    if custom:
        pool = [dict(w, hints=list(w["hints"])) for w in custom]
        picked = rng.sample(pool, min(count, len(pool)))
        return {"category": CUSTOM, "words": picked}
    data = _data(lang)
    cats = list(data["categories"]) if chosen is None else [c for c in chosen
                                                            if c in data["categories"]]
    if not cats:
        raise GameError("bad_options", "no word category chosen", field="categories")
    weights = [len(data["words"][c]) for c in cats]
    category = rng.choices(cats, weights=weights)[0]
    pool = words_of(lang, category)
    return {"category": category, "words": rng.sample(pool, min(count, len(pool)))}
