"""Dictionary lemmas of it, fr and en, behind one function (`lemma`).

The lemmatizer is simplemma (pure Python). Its wheel holds dictionaries for
54 languages; only the room's language is ever read, on first use, and kept
for the life of the process. Where simplemma cannot load (the one-phone page:
its dictionaries are lzma files, and Pyodide's npm package has no lzma, so
scripts/offline_assets.py leaves it out) there are no lemmas: `lemma` says
None and the family check keeps its stems and regular inflections. This
module is the one place to change for that.
"""

from __future__ import annotations

from functools import cache, lru_cache

LANGS = ("it", "fr", "en")


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
            self._inner = StreamDictionaryFactory(cache_max_size=len(LANGS))
            self.loaded: list[str] = []

        def get_dictionary(self, lang: str):
            if lang not in LANGS:
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
    found = _dictionaries()
    if not word or lang not in LANGS or found is None:
        return None
    return found[1].get_lemma(word, lang)


def preload(langs: tuple[str, ...] = LANGS) -> None:
    """Read the dictionaries now (about a second each): a server may call this at
    start-up, in a worker thread, so that no room waits for it on its first clue."""
    for lang in langs:
        lemma("a", lang)


def loaded_languages() -> list[str]:
    """The languages whose dictionary this process has read, in loading order."""
    found = _dictionaries()
    return list(found[0].loaded) if found else []
