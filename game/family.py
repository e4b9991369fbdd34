"""Word families: is a clue word a form of the secret (RULES.md, "Shared by every game")?

A word is of the secret's family when any of these holds (words folded:
lower case, no accents):

- stems: equal Snowball stems of 4+ letters, or one stem is the other plus a
  derivational ending ("gattino" gatt+in for "gatto", "panino" for "pane");
- lemmas: the two words share a dictionary lemma (simplemma): irregular and
  verb forms ("uova" for "uovo", "yeux" for "œil", "mice" for "mouse",
  "nuotavo" for "nuoto");
- regular inflections: one word is a regular plural, feminine or diminutive
  of the other by the endings of `_ENDINGS` ("cani" for "cane", "laghi"
  for "lago", "knives" for "knife", "chevaux" for "cheval"), which catch
  short stems and forms no dictionary lists.

Function words (articles, prepositions, ...) are never of a family: "des"
is not the plural of "dé", while "dés" is.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

import snowballstemmer

from game.errors import GameError
from game.lemmas import lemma
from game.unicode_text import fold

_STEMMER_NAMES = {"it": "italian", "fr": "french", "en": "english"}

# Function words, accents as written: never a word of a family, never enough
# for a Pappagallo's repeat, not checked on their own in a several-word
# secret ("pomme de terre": "de" may be said, "pomme" and "terre" may not).
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "it": frozenset(
        "il lo la l i gli le un uno una di del dello della dei degli delle d da dal dallo dalla "
        "dai dagli dalle a al allo alla ai agli alle in nel nello nella nei negli nelle con col "
        "per su sul sullo sulla sui sugli sulle tra fra e ed o od ma se che chi non ne ci vi si "
        "mi ti è".split()
    ),
    "fr": frozenset(
        "le la l les un une des du de d à a au aux en et ou où sur pour avec dans par ne pas "
        "que qu qui se s ce c il elle est".split()
    ),
    "en": frozenset(
        "the a an of and or in on to for with at by from is are it its not no".split()
    ),
}

# Endings left by the Snowball stemmer on derived words (diminutives,
# augmentatives, trades, places): "gattino" -> gatt+in, "fiorista" ->
# fior+ist, "plagiste" -> plag+ist, "painter" -> paint+er. Only these count,
# so "pastore" is not taken for a word of the family of "pasta".
_DERIVATIONS: dict[str, frozenset[str]] = {
    "it": frozenset(
        "in on acc ucc ett ell icell olin ott ai ier ist ator itor er iol ism icin uzz".split()
    ),
    "fr": frozenset("on et ett ell i ier ist eur our ag er eri net ot in el".split()),
    "en": frozenset("er ist let i ie ing y s".split()),
}
# A 3-letter stem is short enough to begin unrelated words ("mel" in
# "melone"), so only unmistakable endings count there: "panino" (pan+in),
# "barista" (bar+ist), "potier" (pot+i); in English a doubled consonant
# ("sunny" sun+ni, "runner" run+ner).
_SHORT_DERIVATIONS: dict[str, frozenset[str]] = {
    "it": frozenset("in ett ell icin olin ai ier ist ator".split()),
    "fr": frozenset("i ier ist et ett".split()),
    "en": frozenset("ist let".split()),
}

# Regular inflections: (ending of the base word, endings of its forms).
# Every row whose ending fits applies ("lago": go -> laghi, lagi, ...; o -> ...).
_ENDINGS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "it": (
        ("tore", ("trice", "trici", "tori")),
        ("cia", ("ce", "cie")),
        ("gia", ("ge", "gie")),
        ("io", ("i", "ii", "ia", "ie")),
        ("co", ("chi", "ci", "ca", "che")),
        ("go", ("ghi", "gi", "ga", "ghe")),
        ("ca", ("che", "chi", "co", "ci")),
        ("ga", ("ghe", "ghi", "go", "gi")),
        ("o", ("i", "a", "e")),
        ("a", ("e", "i", "o")),
        ("e", ("i",)),
    ),
    "fr": (
        ("eau", ("eaux",)),
        ("au", ("aux",)),
        ("eu", ("eux",)),
        ("ou", ("oux",)),
        ("al", ("aux", "ale", "ales")),
        ("ail", ("aux",)),
        ("ier", ("iere", "ieres")),
        ("er", ("ere", "eres")),
        ("eur", ("euse", "euses")),
        ("ien", ("ienne", "iennes")),
        ("on", ("onne", "onnes")),
        ("el", ("elle", "elles")),
        ("et", ("ette", "ettes")),
        ("f", ("ve", "ves")),
        ("x", ("se", "ses")),
        ("", ("e", "es")),
    ),
    "en": (
        ("fe", ("ves",)),
        ("f", ("ves",)),
        ("y", ("ies",)),
        ("s", ("ses",)),
        ("x", ("xes",)),
        ("z", ("zes",)),
        ("ch", ("ches",)),
        ("sh", ("shes",)),
        ("o", ("oes",)),
    ),
}
# Italian diminutives, on the word without its last vowel ("gatt" + "ino").
_DIMINUTIVES = ("ino", "ina", "ini", "ine", "etto", "etta", "etti", "ette")
_VOWELS = re.compile(r"[aeiouy]+")


@cache
def _stemmer(lang: str):
    name = _STEMMER_NAMES.get(lang)
    if name is None:
        raise GameError("bad_options", f"unknown language {lang!r}", lang=lang)
    return snowballstemmer.stemmer(name)


def check_lang(lang: str) -> None:
    """Raise GameError("bad_options") for a language without word checks."""
    _stemmer(lang)


@lru_cache(maxsize=16384)
def stem(word: str, lang: str) -> str:
    """Snowball stem of a folded word in the room's language."""
    return _stemmer(lang).stemWord(word)


@cache
def _folded_function_words(lang: str) -> frozenset[str]:
    return frozenset(fold(w) for w in FUNCTION_WORDS.get(lang, ()))


def is_function_word(word: str, lang: str, *, folded: bool = False) -> bool:
    """An article, preposition, conjunction, ... of the language.

    `word` is lower case with its accents ("des" is one, "dés" is not), or
    folded when `folded` ("a" for both "a" and "à").
    """
    return word in (_folded_function_words(lang) if folded else FUNCTION_WORDS.get(lang, ()))


@lru_cache(maxsize=16384)
def regular_forms(word: str, lang: str) -> frozenset[str]:
    """Regular plural, feminine and diminutive forms of a folded word.

    Italian words ending in a consonant or an accented vowel, and
    one-syllable ones, do not change ("bar", "tè", "sci", "re"); the caller
    passes `word` folded and decides about accents (see `same_family`).
    French words ending in s, x or z do not take a plural s.
    """
    forms: set[str] = set()
    if lang == "it" and len(_VOWELS.findall(word)) < 2:
        return frozenset()
    for ending, replacements in _ENDINGS.get(lang, ()):
        if word.endswith(ending) and len(word) > len(ending):
            base = word[: len(word) - len(ending)]
            forms.update(base + r for r in replacements)
    if lang == "fr" and word[-1] not in "sxz":
        forms.add(word + ("x" if word.endswith(("eau", "au", "eu")) else "s"))
    if lang == "en":
        forms.add(word + "s")
    if lang == "it" and word[-1] in "aeio":
        base = word[:-2] if word.endswith(("io", "cia", "gia")) else word[:-1]
        bases = {base, base + "h"} if base.endswith(("c", "g")) else {base}
        forms.update(b + d for b in bases for d in _DIMINUTIVES)
    forms.discard(word)
    return frozenset(forms)


def _derived(stem_: str, base: str, lang: str) -> bool:
    """`stem_` is `base` plus a derivational ending ("gattin" = "gatt" + "in")."""
    if len(base) < 3 or not stem_.startswith(base):
        return False
    rest = stem_[len(base) :]
    if len(base) >= 4:
        return rest in _DERIVATIONS.get(lang, ())
    if lang == "en" and rest in (base[-1] + "er", base[-1] + "i"):
        return True
    return rest in _SHORT_DERIVATIONS.get(lang, ())


def _inflects(word: str, written: str, lang: str) -> bool:
    """Can `word` (folded; `written` with its accents) take regular inflections?

    An Italian word ending in an accented vowel never does ("tè" has no
    plural "ti").
    """
    return not (lang == "it" and written and written[-1] in "àèéìíòóù")


# Infinitive endings: a secret noun whose dictionary lemma is a verb is a
# homograph ("letto", bed, is also "leggere"'s participle; "riso", rice, is
# "ridere"'s): that lemma is not the noun's.
_INFINITIVES = {"it": ("are", "ere", "ire", "rre"), "fr": ("er", "ir", "re"), "en": ()}


@lru_cache(maxsize=4096)
def _secret_lemmas(term: str, term_written: str, lang: str) -> frozenset[str]:
    """The secret word (folded) and its dictionary lemma, when that lemma is its own.

    The secret is a noun of the word list: its lemma counts when it is near
    (same 4+ letter stem, or a regular form either way: "scarpe" -> "scarpa",
    "dés" -> "dé") or is no verb ("teeth" -> "tooth", "labbra" -> "labbro").
    """
    lem = fold(lemma(term_written, lang) or term)
    if lem == term:
        return frozenset((term,))
    near = (
        (len(stem(lem, lang)) >= 4 and stem(lem, lang) == stem(term, lang))
        or lem in regular_forms(term, lang)
        or term in regular_forms(lem, lang)
    )
    if near or not lem.endswith(_INFINITIVES.get(lang, ())):
        return frozenset((term, lem))
    return frozenset((term,))


def is_own_word(word: str, word_written: str, lang: str) -> bool:
    """Typed with accents that make it a dictionary word of its own ("mère" is not
    "mer" + e): then it is that word, not an accent-less inflection of another.
    Without accents ("mere") it may be either, and counts as the inflection.
    """
    if not word_written or word_written == word:
        return False
    found = lemma(word_written, lang)
    return found is not None and fold(found) == word


def same_family(
    word: str, term: str, lang: str, *, word_written: str = "", term_written: str = ""
) -> bool:
    """Is the folded clue word `word` of the family of the folded secret word `term`?

    `word_written` / `term_written` are the same words lower-cased with their
    accents, when known: the lemma dictionaries and the function-word lists
    need them ("dés" is the plural of "dé", "des" an article).
    """
    word_written = word_written or word
    term_written = term_written or term
    if is_function_word(word_written, lang) or is_function_word(term_written, lang):
        return False
    root, other = stem(term, lang), stem(word, lang)
    if len(root) >= 4 and other == root:
        return True
    if _derived(other, root, lang) or _derived(root, other, lang):
        return True
    word_lemma = lemma(word_written, lang)
    if {word, fold(word_lemma or word)} & _secret_lemmas(term, term_written, lang):
        return True
    if is_own_word(word, word_written, lang):
        return False
    return (_inflects(term, term_written, lang) and word in regular_forms(term, lang)) or (
        _inflects(word, word_written, lang) and term in regular_forms(word, lang)
    )


