"""Issue 11, lemmas in the browser: where simplemma cannot load (Pyodide has no lzma) the
core reads the same dictionaries re-packed with zlib (game/lemmas.py, written into the
one-phone page's archive by scripts/offline_assets.py). Under CPython the packed path
must give exactly simplemma's lemmas: the whole dictionary survives the packing, and the
lookup gives the same answer for every word of the word data (with its hints, in upper
case and with every apostrophe glyph)."""

from __future__ import annotations

import pytest

from game import lemmas, words
from game.impostor import wordbank

SAMPLES = {
    "it": ["gatti", "l'amico", "l’amico", "dell'acqua", "Gatti", "andarono", "zzzz"],
    "fr": ["chevaux", "l'homme", "l’homme", "aujourd'hui", "aujourd’hui", "Étoiles", "yeux"],
    "en": ["knives", "don't", "don’t", "children's", "Mice", "went", "qqqq"],
    "es": ["niños", "Años", "panaderos", "luces", "fui", "Casas", "qqqq"],
}


def _word_data(lang: str, full: dict[str, str]) -> list[str]:
    """The language's word data; a language that has none yet (its pairs and Impostore
    words not written) is checked on every 500th form of its dictionary instead."""
    out = list(words.secret_words(lang)) if lang in words.langs() else []
    if lang in wordbank.langs():
        for cat in wordbank.categories(lang):
            for w in wordbank.words_of(lang, cat):
                out += [w["word"], *w["hints"]]
    return list(dict.fromkeys(out or sorted(full)[::500]))


@pytest.fixture(scope="module", params=lemmas.LANGS)
def packed(request, tmp_path_factory):
    lang = request.param
    full = lemmas.dictionary(lang)
    data = lemmas.pack_dictionary(full)
    folder = tmp_path_factory.mktemp("lemma_data")
    (folder / f"{lang}.txt.z").write_bytes(data)
    return lang, full, data, folder


# Packed size per language: simplemma's Spanish dictionary is the biggest
# (824,000 forms, 737 KB packed; it, fr and en under 320 KB each).
PACKED_BUDGET = {"es": 800_000}


def test_the_whole_dictionary_survives_the_packing_and_stays_small(packed):
    lang, full, data, _ = packed
    assert lemmas.unpack_dictionary(data) == full
    assert len(full) > 100_000 and len(data) < PACKED_BUDGET.get(lang, 400_000), (lang, len(data))


def test_every_word_of_the_word_data_gets_simplemmas_lemma(packed):
    lang, full, _, folder = packed
    table = lemmas._packed(lang, folder)
    checked = 0
    for word in _word_data(lang, full):
        for form in {word, word.lower(), word.upper(), word.capitalize(), *SAMPLES[lang]}:
            assert lemmas.lookup(table, form) == lemmas.lemma(form, lang), (lang, form)
            checked += 1
    assert checked > 1000
    # The samples do reach the case and apostrophe paths (not only misses).
    assert sum(lemmas.lemma(w, lang) is not None for w in SAMPLES[lang]) >= 3


def test_without_simplemma_lemma_reads_the_packed_dictionary(packed, monkeypatch):
    lang, _, _, folder = packed
    expected = {w: lemmas.lemma(w, lang) for w in SAMPLES[lang]}
    monkeypatch.setattr(lemmas, "_dictionaries", lambda: None)
    monkeypatch.setattr(lemmas, "PACKED_DIR", folder)
    lemmas.lemma.cache_clear()
    try:
        assert {w: lemmas.lemma(w, lang) for w in SAMPLES[lang]} == expected
        assert lang in lemmas.loaded_languages()
        monkeypatch.setattr(lemmas, "PACKED_DIR", folder / "absent")
        lemmas.lemma.cache_clear()
        assert lemmas.lemma(SAMPLES[lang][0], lang) is None  # neither: no lemmas
    finally:
        lemmas.lemma.cache_clear()
