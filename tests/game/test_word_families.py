"""RULES.md, "Shared by every game": a clue may not use a word of the family of the
player's own word (plural, feminine, diminutive and verb forms), while unrelated
words that merely share letters are fine. Issue 8: plurals used to pass.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from game import languages, words
from game.errors import GameError
from game.family import is_function_word
from game.text import check_clue, fold
from tests.game.inflections import regular_inflections


def refused(text, secret, lang, **kw) -> GameError:
    with pytest.raises(GameError) as info:
        check_clue(text, secret, lang, **kw)
    return info.value


# --- issue 8: the plural of one's own word passed --------------------------


@pytest.mark.parametrize(
    ("text", "secret", "lang"),
    [
        ("gelati", "gelato", "it"),
        ("concerti", "concerto", "it"),
        ("cani", "cane", "it"),
        ("mani", "mano", "it"),
        ("lune", "luna", "it"),
        ("laghi", "lago", "it"),
        ("knives", "knife", "en"),
        ("wolves", "wolf", "en"),
        ("skis", "ski", "en"),
        ("skis", "ski", "fr"),
    ],
)
def test_the_plural_of_ones_own_word_is_refused(text, secret, lang):
    assert refused(text, secret, lang).code in ("clue_same_family", "clue_uses_secret_word")


@pytest.mark.parametrize(
    ("text", "secret", "lang"),
    [
        # irregular plurals, from the dictionary's lemmas
        ("uova", "uovo", "it"),
        ("uomini", "uomo", "it"),
        ("yeux", "œil", "fr"),
        ("travaux", "travail", "fr"),
        ("mice", "mouse", "en"),
        ("children", "child", "en"),
        ("tooth", "teeth", "en"),
        # verb forms
        ("nuotavo", "nuoto", "it"),
        ("swam", "swim", "en"),
        # feminine, masculine, diminutive
        ("gatta", "gatto", "it"),
        ("gattina", "gatto", "it"),
        ("laghetto", "lago", "it"),
        ("amie", "ami", "fr"),
        # the secret is a plural, the clue its singular
        ("scacco", "scacchi", "it"),
        ("dé", "dés", "fr"),
        ("lip", "lips", "en"),
    ],
)
def test_irregular_feminine_diminutive_and_verb_forms_are_refused(text, secret, lang):
    assert refused(text, secret, lang).code in ("clue_same_family", "clue_uses_secret_word")


# Unrelated words that merely share letters with the secret (RULES.md).
UNRELATED = {
    "it": [
        ("opera", "pera"),
        ("sciarpa", "arpa"),
        ("pastore", "pasta"),
        ("melone", "mela"),
        ("sete", "tè"),
        ("teatro", "tè"),
        ("ti", "tè"),
        ("cassa", "casa"),
        ("panna", "pane"),
        ("manico", "mano"),
        ("lunedì", "luna"),
        ("leggere", "letto"),
        ("ridere", "riso"),
        ("agli", "aglio"),
        ("parco", "tiro con l'arco"),
    ],
    "fr": [
        ("merci", "mer"),
        ("mère", "mer"),
        ("salle de bain", "dés"),
        ("chapeau", "chat"),
        ("aux", "ail"),
        ("pointe", "pont"),
    ],
    "en": [
        ("train", "rain"),
        ("brain", "rain"),
        ("steam", "tea"),
        ("barber", "bar"),
        ("carpet", "car"),
        ("scar", "car"),
        ("island", "land"),
        ("cares", "car"),
        ("season", "sea"),
    ],
}


@pytest.mark.parametrize(
    ("text", "secret", "lang"),
    [(text, secret, lang) for lang, pairs in UNRELATED.items() for text, secret in pairs],
)
def test_unrelated_words_that_share_letters_are_accepted(text, secret, lang):
    assert check_clue(text, secret, lang) == text


# --- every secret word against its regular inflections ---------------------


@pytest.mark.parametrize("lang", words.LANGS)
def test_every_secret_word_refuses_its_regular_inflections(lang, capsys):
    """Every secret word the core can deal, against every regular inflection of
    each of its words (tests/game/inflections.py: it o->i, a->e, e->i, co/go ->
    chi/ghi or ci/gi, ca/ga -> che/ghe, -io, feminine/masculine, -ino/-etto;
    fr s, x, aux, eaux, feminine e; en s, es, ies, ves). Function words are
    no word of a family: a form that is one ("agli" of "aglio") is left out,
    and so is a function word of a title ("là" in "Là-haut").
    """
    def function_word(word: str) -> bool:
        return is_function_word(fold(word), lang, folded=True)

    tried, passed = 0, []
    secrets = words.secret_words(lang)
    for secret in secrets:
        for form in sorted(regular_inflections(secret, lang, skip=function_word)):
            if function_word(form):
                continue
            tried += 1
            try:
                check_clue(form, secret, lang)
                passed.append((form, secret))
            except GameError as err:
                assert err.code in ("clue_same_family", "clue_uses_secret_word")
    with capsys.disabled():
        print(f"\n[{lang}] regular inflections refused {tried - len(passed)}/{tried}")
    assert tried > len(secrets)
    assert passed == []


def test_secret_words_lists_every_word_the_core_can_deal_once():
    for lang in words.LANGS:
        listed = words.secret_words(lang)
        assert len(listed) == len(set(listed))
        assert {w for p in words.load_pairs(lang) for w in (p.a, p.b)} <= set(listed)
        impostore = languages.get(lang).file("impostore")
        if impostore.exists():
            data = json.loads(impostore.read_text(encoding="utf-8"))
            assert {row["word"] for row in data["words"]} <= set(listed)
    with pytest.raises(GameError):
        words.secret_words("de")


def test_warm_up_loads_the_dictionaries_asked_for():
    code = (
        "from game.lemmas import loaded_languages\n"
        "from game.text import warm_up\n"
        "warm_up(('it', 'en'))\n"
        "print(loaded_languages())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['it', 'en']"


def test_without_simplemma_the_family_check_keeps_stems_and_regular_forms():
    # The one-phone page has no lzma for simplemma's dictionaries (game/lemmas.py).
    code = (
        "import sys\n"
        "sys.modules['simplemma'] = None  # an import of it fails\n"
        "from game.errors import GameError\n"
        "from game.lemmas import lemma, loaded_languages\n"
        "from game.text import check_clue\n"
        "assert lemma('gatti', 'it') is None and loaded_languages() == []\n"
        "out = []\n"
        "for clue, secret in (('gatti', 'gatto'), ('cani', 'cane'), ('knives', 'knife'),\n"
        "                     ('felino', 'gatto')):\n"
        "    lang = 'en' if secret == 'knife' else 'it'\n"
        "    try:\n"
        "        check_clue(clue, secret, lang)\n"
        "        out.append('ok')\n"
        "    except GameError as err:\n"
        "        out.append(err.code)\n"
        "print(' '.join(out))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["clue_same_family"] * 3 + ["ok"]


def test_only_the_rooms_language_is_lemmatised():
    # A fresh process: the lemma of a French word reads the French dictionary only.
    code = (
        "from game.lemmas import lemma, loaded_languages\n"
        "assert lemma('chevaux', 'fr') == 'cheval'\n"
        "assert lemma('zzkq', 'fr') is None\n"
        "print(loaded_languages())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['fr']"
