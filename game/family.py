"""Word families: is a clue word a form of the secret (RULES.md, "Shared by every game")?

A word is of the secret's family when any of these holds (words folded:
lower case, no accents):

- stems: equal Snowball stems of 4+ letters, or one stem is the other plus a
  derivational ending ("gattino" gatt+in for "gatto", "panino" for "pane");
- lemmas: the two words share a dictionary lemma (simplemma): irregular and
  verb forms ("uova" for "uovo", "yeux" for "œil", "mice" for "mouse",
  "nuotavo" for "nuoto");
- regular inflections: one word is a regular plural, feminine or diminutive
  of the other by the language's rules ("cani" for "cane", "laghi"
  for "lago", "knives" for "knife", "chevaux" for "cheval"), which catch
  short stems and forms no dictionary lists.

Function words (articles, prepositions, ...) are never of a family: "des"
is not the plural of "dé", while "dés" is.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

import snowballstemmer

from game import languages
from game.languages import FamilyRules
from game.lemmas import lemma
from game.unicode_text import fold

# Every rule below is the language's data (game/langs/<lang>/language.json,
# read by game.languages): its Snowball stemmer and simplemma dictionary, and
#
# - `text.function_words`: accents as written, never a word of a family,
#   never enough for a Pappagallo's repeat, not checked on their own in a
#   several-word secret ("pomme de terre": "de" may be said, "pomme" and
#   "terre" may not);
# - `family.derivations`: endings left by the stemmer on derived words
#   (diminutives, augmentatives, trades, places): "gattino" -> gatt+in,
#   "fiorista" -> fior+ist, "plagiste" -> plag+ist, "painter" -> paint+er.
#   Only these count, so "pastore" is not taken for a word of the family of
#   "pasta". `short_derivations`: the same after a 3-letter stem, short
#   enough to begin unrelated words ("mel" in "melone"), so only unmistakable
#   endings: "panino" (pan+in), "barista" (bar+ist), "potier" (pot+i);
#   `doubled_consonant_derivations`: a doubled last consonant plus one of
#   these ("sunny" sun+ni, "runner" run+ner);
# - `family.inflections`, `additions`, `diminutives`: regular forms (plural,
#   feminine, diminutive). Every inflection row whose ending fits applies
#   ("lago": go -> laghi, lagi, ...; o -> ...);
# - `min_vowel_groups`: a word with fewer vowel groups does not change
#   (Italian "re", "sci"); `invariable_after`: nor one whose written form ends
#   with one of these letters (Italian "tè", "città");
# - `infinitives`: a secret noun whose dictionary lemma is a verb is a
#   homograph ("letto", bed, is also "leggere"'s participle; "riso", rice, is
#   "ridere"'s): that lemma is not the noun's.
_VOWELS = re.compile(r"[aeiouy]+")


def _rules(lang: str) -> FamilyRules:
    return languages.get(lang).family


@cache
def _stemmer(lang: str):
    name = _rules(lang).stemmer
    return None if name is None else snowballstemmer.stemmer(name)


def check_lang(lang: str) -> None:
    """Raise GameError("bad_options") for a language without word checks."""
    languages.get(lang)


def keep(lang: str) -> str:
    """The letters `fold` keeps in this language (its `text.fold_keep`: "ñ")."""
    return languages.get(lang).text.fold_keep


def fold_word(text: str, lang: str) -> str:
    """`fold` as the room's language reads it (its own letters kept: "año")."""
    return fold(text, keep=keep(lang))


@lru_cache(maxsize=16384)
def stem(word: str, lang: str) -> str:
    """Snowball stem of a folded word in the room's language."""
    stemmer = _stemmer(lang)
    return word if stemmer is None else stemmer.stemWord(word)


@cache
def _folded_function_words(lang: str) -> frozenset[str]:
    return frozenset(fold_word(w, lang) for w in languages.get(lang).text.function_words)


def is_function_word(word: str, lang: str, *, folded: bool = False) -> bool:
    """An article, preposition, conjunction, ... of the language.

    `word` is lower case with its accents ("des" is one, "dés" is not), or
    folded when `folded` ("a" for both "a" and "à").
    """
    if folded:
        return word in _folded_function_words(lang)
    return word in languages.get(lang).text.function_words


def _diminutives(word: str, rules: FamilyRules) -> set[str]:
    for rule in rules.diminutives:
        if word.endswith(rule.after):
            base = word[: len(word) - rule.cut]
            bases = {base} | {base[: len(base) - len(end)] + other
                              for end, other in rule.base_variants if base.endswith(end)}
            return {b + d for b in bases for d in rule.suffixes}
    return set()


@lru_cache(maxsize=16384)
def regular_forms(word: str, lang: str) -> frozenset[str]:
    """Regular plural, feminine and diminutive forms of a folded word.

    The language's rules say which (module comment): Italian words ending in
    a consonant or an accented vowel, and one-syllable ones, do not change
    ("bar", "tè", "sci", "re"); the caller passes `word` folded and decides
    about accents (see `same_family`). French words ending in s, x or z do
    not take a plural s.
    """
    rules = _rules(lang)
    forms: set[str] = set()
    if len(_VOWELS.findall(word)) < rules.min_vowel_groups:
        return frozenset()
    for ending, replacements in rules.inflections:
        if word.endswith(ending) and len(word) > len(ending):
            base = word[: len(word) - len(ending)]
            forms.update(base + r for r in replacements)
    for rule in rules.additions:
        if (not rule.after or word.endswith(rule.after)) and not (
            rule.not_after and word.endswith(rule.not_after)
        ):
            forms.add(word + rule.add)
    forms.update(_diminutives(word, rules))
    forms.discard(word)
    return frozenset(forms)


def _derived(stem_: str, base: str, lang: str) -> bool:
    """`stem_` is `base` plus a derivational ending ("gattin" = "gatt" + "in")."""
    if len(base) < 3 or not stem_.startswith(base):
        return False
    rules = _rules(lang)
    rest = stem_[len(base) :]
    if len(base) >= 4:
        return rest in rules.derivations
    if rest in (base[-1] + end for end in rules.doubled_consonant_derivations):
        return True
    return rest in rules.short_derivations


def _inflects(word: str, written: str, lang: str) -> bool:
    """Can `word` (folded; `written` with its accents) take regular inflections?

    One whose written form ends with a letter of the language's
    `invariable_after` never does (Italian "tè" has no plural "ti").
    """
    return not (written and written[-1] in _rules(lang).invariable_after)


@lru_cache(maxsize=4096)
def _secret_lemmas(term: str, term_written: str, lang: str) -> frozenset[str]:
    """The secret word (folded) and its dictionary lemma, when that lemma is its own.

    The secret is a noun of the word list: its lemma counts when it is near
    (same 4+ letter stem, or a regular form either way: "scarpe" -> "scarpa",
    "dés" -> "dé") or is no verb ("teeth" -> "tooth", "labbra" -> "labbro").
    """
    lem = fold_word(lemma(term_written, lang) or term, lang)
    if lem == term:
        return frozenset((term,))
    near = (
        (len(stem(lem, lang)) >= 4 and stem(lem, lang) == stem(term, lang))
        or lem in regular_forms(term, lang)
        or term in regular_forms(lem, lang)
    )
    if near or not lem.endswith(_rules(lang).infinitives):
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
    return found is not None and fold_word(found, lang) == word


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
    if {word, fold_word(word_lemma or word, lang)} & _secret_lemmas(term, term_written, lang):
        return True
    if is_own_word(word, word_written, lang):
        return False
    return (_inflects(term, term_written, lang) and word in regular_forms(term, lang)) or (
        _inflects(word, word_written, lang) and term in regular_forms(word, lang)
    )


