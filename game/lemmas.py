"""Dictionary lemmas of the game's languages, behind one function (`lemma`).

The lemmatizer is simplemma (pure Python). Its wheel holds dictionaries for
54 languages; a language names the one it uses in its language.json
(`family.lemmas`, game.languages; none: no lemmas). Only the room's
language is ever read, on first use, and kept for the life of the process.

Where simplemma cannot load (the one-phone page: its dictionaries are lzma
files, and Pyodide's npm package has no lzma, so scripts/offline_assets.py
leaves it out) the same dictionaries come re-packed with zlib beside this
module (`lemma_data/<lang>.txt.z`, written by scripts/offline_assets.py with
`pack_dictionary`), and `lemma` looks words up there exactly as simplemma's
dictionary lookup does for these languages. With neither, there are no
lemmas: `lemma` says None and the family check keeps its stems and regular
inflections. This module is the one place to change for that.
"""

from __future__ import annotations

import os
import sys
import zlib
from functools import cache, lru_cache
from pathlib import Path

from game import languages
from game.errors import GameError

# The re-packed dictionaries (only in the one-phone page's core archive).
PACKED_DIR = Path(__file__).with_name("lemma_data")
_APOSTROPHES = ("\u2019", "\u02bc")  # folded to ' as simplemma does (curly, modifier letter)


def langs() -> tuple[str, ...]:
    """The languages with a dictionary, in menu order."""
    return tuple(lang.code for lang in languages.languages() if lang.family.lemmas)


_every_lang = langs  # for `preload`, whose argument bears the name


def __getattr__(name: str) -> object:
    # `lemmas.LANGS`: the same as `langs()`, read when asked.
    if name == "LANGS":
        return langs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _source(lang: str) -> str | None:
    """The simplemma code of a language's dictionary (None: none, or no such language)."""
    try:
        return languages.get(lang).family.lemmas
    except GameError:
        return None


@cache
def _dictionaries():
    # Imported on first use: a server that never checks a clue never pays for it.
    try:
        from simplemma.strategies import DictionaryLookupStrategy
        from simplemma.strategies.dictionaries import StreamDictionaryFactory
    except ImportError:  # no simplemma, or no lzma for it (Pyodide)
        return None

    class RoomLanguages:
        """simplemma's loader, asked only for the room's languages (and recording them)."""

        def __init__(self) -> None:
            # The stream reader keeps a language's dictionary compressed in
            # memory (about 5 MB instead of 45 MB decoded); a lookup costs
            # about 0.1 ms, and `lemma` caches its answers.
            self._inner = StreamDictionaryFactory(cache_max_size=len(languages.codes()))
            self.loaded: list[str] = []

        def get_dictionary(self, lang: str):
            if lang not in {x.family.lemmas for x in languages.languages()}:
                raise ValueError(f"no lemmas for {lang!r}")
            if lang not in self.loaded:
                self.loaded.append(lang)
            return self._inner.get_dictionary(lang)

    factory = RoomLanguages()
    # Dictionary lookup only: simplemma's guessing strategies (affixes, rules)
    # invent lemmas for unknown words, and a wrong lemma would refuse a clue.
    return factory, DictionaryLookupStrategy(factory)


@lru_cache(maxsize=16384)
def lemma(word: str, lang: str) -> str | None:
    """The dictionary lemma of a lower-case word ("gatti" -> "gatto", "chevaux" ->
    "cheval", "knives" -> "knife"), or None when the dictionary of `lang` does
    not know the word. Accents matter: pass the word as typed ("étoiles").
    """
    source = _source(lang) if word else None
    if source is None:
        return None
    found = _dictionaries()
    if found is not None:
        return found[1].get_lemma(word, source)
    packed = _packed(lang, PACKED_DIR)
    return None if packed is None else lookup(packed, word)


# ---------------------------------------------------------------- the zlib path


def dictionary(lang: str) -> dict[str, str]:
    """simplemma's whole dictionary of `lang` ({form: lemma}); for the build script."""
    if _dictionaries() is None:
        raise RuntimeError("simplemma is not available here")
    # The whole dictionary decoded at once (the stream reader would seek per key).
    from simplemma.strategies.dictionaries import DefaultDictionaryFactory

    source = _source(lang)
    if source is None:
        raise ValueError(f"no lemmas for {lang!r}")
    return dict(DefaultDictionaryFactory(cache_max_size=1).get_dictionary(source).items())


def pack_dictionary(mapping: dict[str, str]) -> bytes:
    """A dictionary as zlib-compressed text, one entry a line, sorted: n, suffix, m, rest
    separated by tabs.

    The key is the previous key's first n characters plus `suffix`; the lemma is
    the key without its last m characters plus `rest` (front coding: about 0.3 MB
    a language, where plain lines take 1 MB).
    """
    prev = ""
    lines = []
    for key in sorted(mapping):
        value = mapping[key]
        n = len(os.path.commonprefix([prev, key]))
        m = len(os.path.commonprefix([key, value]))
        for part in (key, value):
            if "\t" in part or "\n" in part:
                raise ValueError(f"cannot pack {part!r}")
        lines.append(f"{n}\t{key[n:]}\t{len(key) - m}\t{value[m:]}")
        prev = key
    return zlib.compress("\n".join(lines).encode("utf-8"), 9)


def unpack_dictionary(data: bytes) -> dict[str, str]:
    """The dictionary `pack_dictionary` packed."""
    out: dict[str, str] = {}
    prev = ""
    text = zlib.decompress(data).decode("utf-8")
    if not text:
        return out
    for line in text.split("\n"):
        n, suffix, m, rest = line.split("\t")
        key = prev[: int(n)] + suffix
        cut = len(key) - int(m)
        out[key] = key[:cut] + rest
        prev = key
    return out


@cache
def _packed(lang: str, folder: Path) -> dict[str, str] | None:
    path = folder / f"{lang}.txt.z"
    if not path.is_file():
        return None
    _PACKED_LOADED.append(lang)
    return unpack_dictionary(path.read_bytes())


_PACKED_LOADED: list[str] = []


def lookup(dictionary: dict[str, str], token: str) -> str | None:
    """simplemma's dictionary lookup for languages it does not canonicalise (it, fr, en, es):
    the token, then with its first letter's case flipped, then its apostrophe forms."""
    if (found := dictionary.get(token)) is not None:
        return found
    cased = token.lower() if token[:1].isupper() else token.capitalize()
    if (found := dictionary.get(cased)) is not None:
        return found
    straight = token
    for glyph in _APOSTROPHES:
        straight = straight.replace(glyph, "'")
    if "'" not in straight:
        return None
    variants = dict.fromkeys((token, straight, *(straight.replace("'", g) for g in _APOSTROPHES)))
    for variant in list(variants)[1:]:
        if (found := dictionary.get(variant)) is not None:
            return found
        cased = variant.lower() if variant[:1].isupper() else variant.capitalize()
        if (found := dictionary.get(cased)) is not None:
            return found
    return None


def preload(langs: tuple[str, ...] | None = None) -> None:
    """Read the dictionaries of `langs` (all by default) now (0.1-0.6 s each): a server
    calls this in a worker thread before a game in that language starts or is replayed,
    so that no room waits for it on its first clue."""
    for lang in _every_lang() if langs is None else langs:
        lemma("a", lang)


def loaded_languages() -> list[str]:
    """The languages whose dictionary this process has read, in loading order (asking
    does not load simplemma)."""
    # Before simplemma is imported nothing was read through it (and asking imports nothing).
    found = _dictionaries() if "simplemma" in sys.modules else None
    return list(found[0].loaded) if found else list(_PACKED_LOADED)
