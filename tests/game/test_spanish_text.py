"""Issue 38 item 3: the clue and guess checks know Spanish, from its data alone
(game/langs/es/language.json): articles and the contractions al/del hide no word,
accents are forgiven but ñ is a letter of its own, ¿ and ¡ are ignored, and the
same-family check uses Snowball's "spanish" and simplemma's "es", deciding
look-alikes as the Italian rules do."""

from __future__ import annotations

import pytest

from game import languages
from game.errors import GameError
from game.family import fold_word, is_function_word, same_family
from game.lemmas import lemma
from game.text import check_clue, clue_words, guess_matches


def refused(text: str, secret: str, **kw) -> str:
    with pytest.raises(GameError) as info:
        check_clue(text, secret, "es", **kw)
    return info.value.code


def test_spanish_reads_its_rules_from_its_data():
    es = languages.get("es")
    assert (es.name, es.speech, es.order) == ("Español", "es-ES", 4)
    assert es.family.stemmer == "spanish" and es.family.lemmas == "es"
    assert languages.codes()[:4] == ("it", "fr", "en", "es")


# ---------------------------------------------------------------- articles, al, del

ARTICLES = ("el", "la", "los", "las", "lo", "un", "una", "unos", "unas")


@pytest.mark.parametrize("article", ARTICLES)
def test_an_article_before_the_word_does_not_hide_it(article):
    assert refused(f"{article} mesa", "mesa") == "clue_uses_secret_word"
    # A guess may begin with one: "la mesa" names "mesa", and not the other word.
    assert guess_matches(f"{article} mesa", "mesa", "silla", "es")
    assert not guess_matches(f"{article} mesa", "silla", "mesa", "es")


@pytest.mark.parametrize("contraction", ("al", "del"))
def test_al_and_del_do_not_hide_a_word(contraction):
    assert refused(f"{contraction} mar", "mar") == "clue_uses_secret_word"
    assert refused(f"agua {contraction} mares", "mar") in ("clue_same_family",
                                                           "clue_uses_secret_word")
    # A function word: never a word of a family, never a Pappagallo's repeat.
    assert is_function_word(contraction, "es")
    assert refused(f"{contraction} cielo", "perro", must_repeat_from=f"{contraction} sol") == (
        "clue_must_repeat")
    assert check_clue("sol caliente", "perro", "es", must_repeat_from=f"{contraction} sol")


# ---------------------------------------------------------------- accents, ñ, ¿ ¡


@pytest.mark.parametrize(("typed", "word"), [
    ("cafe", "café"), ("arbol", "árbol"), ("raton", "ratón"), ("pinguino", "pingüino"),
    ("musica", "música"), ("baul", "baúl"), ("MÚSICA", "música"),
])
def test_accents_are_forgiven_when_typing(typed, word):
    assert guess_matches(typed, word, None, "es")
    assert refused(typed, word) == "clue_uses_secret_word"


def test_enye_is_a_letter_of_its_own():
    assert fold_word("Año", "es") == "año" and fold_word("NIÑO", "es") == "niño"
    # año is not ano: against the other word "ana", "ano" is no closer to "año".
    assert not guess_matches("ano", "año", "ana", "es")
    assert guess_matches("año", "año", "ana", "es") and guess_matches("AÑO", "año", "ana", "es")
    # A clue word holding "ano" does not hold "año" ("anomalía" begins with "ano").
    assert check_clue("anomalía", "año", "es") == "anomalía"
    assert check_clue("ano", "año", "es") == "ano"
    assert refused("años", "año") in ("clue_same_family", "clue_uses_secret_word")
    assert refused("AÑOS", "año") in ("clue_same_family", "clue_uses_secret_word")
    assert refused("añito", "año") == "clue_same_family"
    # Elsewhere ñ stays an n with an accent, as before: Italian folds it away.
    assert fold_word("año", "it") == "ano"


def test_inverted_question_and_exclamation_marks_are_ignored():
    assert clue_words("¿Qué es? ¡Sí!", "es") == ["que", "es", "si"]
    assert check_clue("¿Qué es? ¡Sí!", "perro", "es") == "¿Qué es? ¡Sí!"
    assert refused("¿gato?", "gato") == "clue_uses_secret_word"
    assert refused("¡¡gatos!!", "gato") in ("clue_same_family", "clue_uses_secret_word")
    assert guess_matches("¡el gato!", "gato", "perro", "es")
    assert guess_matches("¿gato?", "gato", "perro", "es")


# ---------------------------------------------------------------- the same family


@pytest.mark.parametrize(("clue", "secret"), [
    ("panadero", "pan"), ("panadería", "pan"), ("panecillo", "pan"), ("panes", "pan"),
    ("gatito", "gato"), ("gata", "gato"), ("gatos", "gato"), ("perritos", "perro"),
    ("flores", "flor"), ("florista", "flor"), ("zapatero", "zapato"), ("barquito", "barco"),
    ("luces", "luz"), ("peces", "pez"), ("camiones", "camión"), ("niños", "niño"),
    ("profesora", "profesor"), ("libros", "libro"),
])
def test_words_of_one_family_are_refused(clue, secret):
    assert refused(clue, secret) in ("clue_same_family", "clue_uses_secret_word")


@pytest.mark.parametrize(("clue", "secret"), [
    ("cosa", "casa"), ("soldado", "sol"), ("pantalón", "pan"), ("misa", "mesa"),
    ("perro", "pera"), ("luna", "lunes"), ("salsa", "sal"),
    ("pino", "pan"), ("gatillo", "pato"), ("ratón", "rata"),
])
def test_unrelated_words_that_share_letters_are_accepted(clue, secret):
    assert check_clue(clue, secret, "es") == clue


def test_the_family_check_uses_snowball_and_simplemma_spanish():
    assert lemma("años", "es") == "año" and lemma("luces", "es") == "luz"
    assert same_family("panadero", "pan", "es")  # a stem plus a derivation (pan+ader)
    assert same_family("luces", "luz", "es")  # the dictionary's lemma


def test_casa_and_caso_are_decided_as_the_italian_rules_decide_them():
    """RULES.md: feminine and masculine forms are one family; Italian takes "casa" and
    "caso" (a vowel swap of one stem) as such, and so does Spanish, while two words
    that differ elsewhere ("cosa", "casa"; Italian "cassa", "casa") are not."""
    for lang in ("it", "es"):
        assert same_family("casa", "caso", lang) and same_family("caso", "casa", lang)
    assert refused("casa", "caso") == "clue_same_family"
    assert not same_family("cosa", "casa", "es") and not same_family("cassa", "casa", "it")
