"""A generator of regular inflections, written from the grammar books, independently
of the core's family check: the oracle the corpus tests hold `check_clue` to.

RULES.md: plural, feminine, diminutive (and verb) forms of the player's word
are the same family and refused. Only regular forms are generated here (the
irregular ones are hand-written cases in test_word_families.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

ACCENTED_END = tuple("àèéìíòóùú")
VOWEL_GROUPS = re.compile(r"[aeiouàèéìíòóù]+")


def _italian(word: str) -> set[str]:
    """gatto: gatti gatta gatte gattino gattina ... gattetto ...; lago: laghi laghetto ..."""
    # Invariable: an accented last vowel (città, tè), a consonant (bar, film),
    # -i (crisi), one syllable (re, sci).
    if word.endswith(ACCENTED_END) or word[-1] not in "aeo" or len(VOWEL_GROUPS.findall(word)) < 2:
        return set()
    out: set[str] = set()
    stem, last = word[:-1], word[-1]
    hard = stem.endswith(("c", "g")) and last in "oa"  # lago, barca: h before i/e
    soft = word.endswith(("cio", "gio", "cia", "gia"))  # bacio, camicia: no i before e
    h = "h" if hard else ""
    if word.endswith("io"):
        # orologio -> orologi, bacio -> baci, zio -> zii; feminine -ia, -ie
        out |= {word[:-1], word[:-2] + "ii", stem + "a", stem + "e"}
    elif last == "o":
        out |= {stem + h + "i", stem + "i", stem + "a", stem + h + "e"}  # plural, feminine
    if last == "a":
        # plural, masculine, and problema -> problemi
        out |= {stem + h + "e", stem + "o", stem + h + "i"}
        if soft:
            out |= {word[:-2] + "e", word[:-1] + "e"}  # arance, camicie
    if last == "e":
        out.add(stem + "i")  # cane -> cani
        if word.endswith("tore"):
            out |= {word[:-4] + "trice", word[:-4] + "trici"}
    base = word[:-2] if soft or (word.endswith("io") and len(word) > 3) else stem
    for suffix in ("ino", "ina", "ini", "ine", "etto", "etta", "etti", "ette"):
        out.add(base + h + suffix)
    out.discard(word)
    return out


def _french(word: str) -> set[str]:
    """cheval: chevaux; bateau: bateaux; chat: chats chate chates; ami: amis amie amies."""
    out: set[str] = set()
    if word.endswith(("s", "x", "z")):
        plural = None
    elif word.endswith(("eau", "au", "eu")):
        plural = word + "x"
    elif word.endswith("al"):
        plural = word[:-2] + "aux"
    elif word.endswith("ail") and len(word) >= 5:
        plural = word[:-3] + "aux"
    else:
        plural = word + "s"
    if plural:
        out.add(plural)
    if word.endswith("ou"):
        out.add(word + "x")  # bijou -> bijoux
    if not word.endswith("e"):
        out |= {word + "e", word + "es"}  # ami -> amie, amies
    out.discard(word)
    return out


def _english(word: str) -> set[str]:
    """knife: knives; wolf: wolves; city: cities; box: boxes; ski: skis."""
    out = {word + "s"}
    if word.endswith(("s", "x", "z", "ch", "sh", "o")):
        out.add(word + "es")
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        out.add(word[:-1] + "ies")
    if word.endswith("fe"):
        out.add(word[:-2] + "ves")
    elif word.endswith("f"):
        out.add(word[:-1] + "ves")
    out.discard(word)
    return out


_ES_VOWELS = "aeiouáéíóúü"
_ES_PLAIN = str.maketrans("áéíóú", "aeiou")


def _es_last_syllable_stressed(word: str) -> bool:
    """A written accent on the last vowel group, or one vowel group only (mes, país)."""
    groups = re.findall(f"[{_ES_VOWELS}]+", word)
    return len(groups) <= 1 or any(c in "áéíóú" for c in groups[-1])


def _spanish(word: str) -> set[str]:
    """gato: gatos gata gatas gatito ...; flor: flores florcita; luz: luces; camión:
    camiones camioncito; barco: barquito; mes: meses; lunes: (none)."""
    out: set[str] = set()
    last = word[-1]
    # An accent on a last syllable ending in a consonant goes in the plural (camión, inglés).
    unaccented = word[:-2] + word[-2:].translate(_ES_PLAIN) if last not in _ES_VOWELS else word
    if last in "aeoáéó":
        out.add(word + "s")
    elif last in "iuíú":
        out |= {word + "s", word + "es"}
    elif last == "z":
        out.add(word[:-1] + "ces")
    elif last in "sx":
        if _es_last_syllable_stressed(word):
            out.add(unaccented + "es")
    else:
        out.add(unaccented + "es")
    # Feminine and masculine (gato, gata; profesor, profesora; león, leona). A written
    # accent before the -o marks no gender pair: "ría" is no feminine of "río".
    if any(c in "áéíóú" for c in word[:-1]) and last in "ao":
        pass
    elif last == "o":
        out |= {word[:-1] + "a", word[:-1] + "as"}
    elif last == "a":
        out |= {word[:-1] + "o", word[:-1] + "os"}
    elif word.endswith(("or", "ón")):
        out |= {unaccented + "a", unaccented + "as"}
    # Diminutives: -ito after a or o (c -> qu, g -> gu, z -> c), -cito after e, n, r.
    if last in "ao" and len(word) > 2 and word[-2] not in _ES_VOWELS:
        base = word[:-1]
        base = {"c": base[:-1] + "qu", "g": base[:-1] + "gu", "z": base[:-1] + "c"}.get(
            base[-1], base)
        out |= {base + end for end in ("ito", "ita", "itos", "itas")}
    elif last in "enr":
        out |= {unaccented + end for end in ("cito", "cita", "citos", "citas")}
    elif last == "l":
        out |= {unaccented + end for end in ("ito", "ita")}
    out.discard(word)
    return out


GENERATORS = {"it": _italian, "fr": _french, "en": _english, "es": _spanish}


def regular_inflections(
    secret: str, lang: str, skip: Callable[[str], bool] = lambda word: False
) -> set[str]:
    """Every regular inflection of each word of the secret (words `skip` says
    are function words left alone)."""
    out: set[str] = set()
    for word in re.split(r"[ '\-]", secret.lower()):
        if len(word) > 1 and not skip(word):
            out |= GENERATORS[lang](word)
    return out
