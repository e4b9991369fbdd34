"""Text checks of the word games: folding, clue rules and guess matching.

Rules implemented (RULES.md, rules/000 §3 and §7):

- A clue is 1 to 4 words and at most `MAX_CLUE_CHARS` characters. Words are
  separated by spaces or punctuation; an apostrophe or hyphen inside a word
  keeps it one word ("l'acqua", "arc-en-ciel"). Every emoji grapheme
  (a whole ZWJ family, a flag, a keycap) counts as one word, so a Muto clue
  is 1 to 4 emoji.
- A clue may not contain the player's own word (a clue word equal to it or
  containing it: "gattone", "supergatto" for "gatto"; a secret preceded by
  only a few letters is a spelling accident, "opera" is fine for "pera" and
  "train" for "rain") nor a word of its family (equal
  Snowball stems of 4+ letters, or one stem being the other plus a
  derivational ending: "gattino" for "gatto", "panino" for "pane"), case
  and accents ignored, with the stemmer of the room's language. A secret
  of 3 letters or fewer is matched as a whole word only ("sete" is fine for
  "tè", "teas" is not for "tea"). For a secret of several words
  ("pesce rosso") the whole phrase is checked like a word, and each of its
  content words as a whole word and for its family ("pesce", "pesci").
- Muto: the clue must be emoji only. Pappagallo: the clue must repeat a word
  of the previous clue.
- A guess of a secret word ignores case, accents, a leading article and small
  typos (Levenshtein distance 1 up to 5 letters, 2 above), and counts only
  when the target is strictly closer than the other word of the pair.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

import emoji
import snowballstemmer
from rapidfuzz.distance import Levenshtein

from game.errors import GameError

MAX_CLUE_WORDS = 4
MAX_CLUE_CHARS = 60

# Folded articles stripped from the start of a guess (RULES.md).
ARTICLES: dict[str, tuple[str, ...]] = {
    "it": ("il", "lo", "la", "l'", "i", "gli", "le", "un", "uno", "una", "un'"),
    "fr": ("le", "la", "l'", "les", "un", "une", "des", "du"),
    "en": ("the", "a", "an"),
}

# Function words of a multi-word secret that are not checked on their own
# ("pomme de terre": "de" may be said, "pomme" and "terre" may not).
_STOPWORDS: dict[str, frozenset[str]] = {
    "it": frozenset(
        "il lo la l i gli le un uno una di del dello della dei degli delle d da dal dallo dalla "
        "a al allo alla ai agli alle in nel nello nella con per su sul sulla e o".split()
    ),
    "fr": frozenset("le la l les un une des du de d a au aux en et ou sur pour avec dans".split()),
    "en": frozenset("the a an of and or in on to for with at by".split()),
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

# Shortest first element of a compound that hides the secret at its end:
# English builds compounds from short words ("pancake", "airship"), Italian
# and French rarely do, and "sciarpa" or "fragola" are not "arpa" or "gola".
_COMPOUND_LEAD = {"it": 4, "fr": 4, "en": 3}

_STEMMER_NAMES = {"it": "italian", "fr": "french", "en": "english"}

# Ligatures and letters that NFKD does not split but players type plainly.
_PLAIN = str.maketrans({"œ": "oe", "æ": "ae", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th"})
_APOSTROPHES = str.maketrans({c: "'" for c in "’‘ʼ`´′ʹ"})
_DASHES = str.maketrans({c: "-" for c in "‐‑‒–—―−"})
_WORD = re.compile(r"[\w'\-]+")
_PARTS = re.compile(r"[\w]+")


def fold(text: str) -> str:
    """Fold text for comparison: lower-case, accents removed, spacing tidied.

    Apostrophe and dash variants become ASCII ' and -; other punctuation
    becomes a space; whitespace is collapsed. Letters and digits are kept.
    """
    text = unicodedata.normalize("NFKD", text.translate(_APOSTROPHES).translate(_DASHES))
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.casefold().translate(_PLAIN)
    out = []
    for c in text:
        cat = unicodedata.category(c)
        if c in "'-" or not (cat.startswith("P") or cat.startswith("Z") or cat.startswith("C")):
            out.append(c)
        else:
            out.append(" ")
    return " ".join("".join(out).split())


def _text_words(text: str) -> list[str]:
    """Folded words of a text without emoji; outer apostrophes/dashes trimmed."""
    words = []
    for token in _WORD.findall(fold(text)):
        token = token.strip("'-")
        # "perche'" (an accent typed as an apostrophe) is still one word.
        if any(c.isalnum() for c in token):
            words.append(token)
    return words


def _canonical_emoji(e: str) -> str:
    # The variation selector is optional when typing; "❤" and "❤️" are the same.
    return e.replace("\ufe0f", "")


def clue_words(text: str) -> list[str]:
    """The words of a clue as counted, in order: folded text words and emoji.

    Each emoji grapheme is one word (kept as the emoji, without variation
    selector); text between emoji is folded and split into words.
    """
    words: list[str] = []
    pos = 0
    for match in emoji.emoji_list(text):
        words.extend(_text_words(text[pos : match["match_start"]]))
        words.append(_canonical_emoji(match["emoji"]))
        pos = match["match_end"]
    words.extend(_text_words(text[pos:]))
    return words


def is_emoji_only(text: str) -> bool:
    """True when the text holds at least one emoji and nothing but emoji and whitespace."""
    if not emoji.emoji_list(text):
        return False
    rest = emoji.replace_emoji(text, "")
    # Stray joiners / selectors / skin tones left around emoji are not text.
    return all(
        c.isspace() or c in "\u200d\ufe0f\ufe0e" or unicodedata.category(c) == "Sk" for c in rest
    )


def _clean(text: str) -> str:
    """Drop control and invisible characters, collapse whitespace; keep the player's spelling."""
    out = []
    for c in unicodedata.normalize("NFC", text):
        cat = unicodedata.category(c)
        if cat == "Cc":
            out.append(" ")
        # Format characters are invisible; only those that build emoji stay
        # (zero-width joiner, the tag letters of subdivision flags).
        elif cat != "Cf" or c == "\u200d" or "\U000e0020" <= c <= "\U000e007f":
            out.append(c)
    return " ".join("".join(out).split())


@cache
def _stemmer(lang: str):
    name = _STEMMER_NAMES.get(lang)
    if name is None:
        raise GameError("bad_options", f"unknown language {lang!r}", lang=lang)
    return snowballstemmer.stemmer(name)


@lru_cache(maxsize=4096)
def _stem(word: str, lang: str) -> str:
    return _stemmer(lang).stemWord(word)


def _parts(word: str) -> list[str]:
    """Pieces of a word split at apostrophes and hyphens ("dell'acqua" -> dell, acqua)."""
    return _PARTS.findall(word)


def _secret_terms(secret: str, lang: str) -> list[str]:
    """Folded words of the secret to check on their own (content words only)."""
    words = [p for w in _text_words(secret) for p in _parts(w)]
    if len(words) <= 1:
        return words
    stop = _STOPWORDS.get(lang, frozenset())
    return [w for w in words if w not in stop] or words


def _contains(word: str, term: str, lang: str) -> bool:
    """The secret begins a piece of the clue word ("gattone", "pesce-gatto") or ends a
    compound after a whole first element ("supergatto", "pineapple", "cacciavite").

    A secret found after one or two letters is an accident of spelling, not
    the word: "rain" in "train", "chin" in "machine", "pera" in "opera".
    """
    lead = _COMPOUND_LEAD.get(lang, 4)
    for piece in _parts(word):
        at = piece.find(term)
        while at >= 0:
            if at == 0 or at >= lead:
                return True
            at = piece.find(term, at + 1)
    return False


def _uses_secret(word: str, secret: str, lang: str) -> bool:
    """A clue word (folded) equals or contains the secret, or an inflection of a short one."""
    if emoji.is_emoji(word) or not any(c.isalnum() for c in word):
        return False
    secret_words = [p for w in _text_words(secret) for p in _parts(w)]
    # "pescerosso" / "pesce-rosso" for "pesce rosso".
    if len(secret_words) > 1 and "".join(secret_words) in "".join(_parts(word)):
        return True
    for term in _secret_terms(secret, lang):
        if len(term) >= 4:
            # One word of a several-word secret counts when said as a word
            # ("pesce" for "pesce rosso"), not inside another ("parco" for
            # "tiro con l'arco"); a one-word secret counts anywhere ("gattone").
            if (term in _parts(word)) if len(secret_words) > 1 else _contains(word, term, lang):
                return True
            continue
        # A short secret ("tè", "sol") would be found inside unrelated words,
        # so only the word itself or its inflection counts ("teas" for "tea").
        root = _stem(term, lang)
        for part in _parts(word):
            if part == term:
                return True
            # "teas" for "tea", "sciare" for "sci": a longer word of the same
            # stem, when the secret is its own stem or the clue barely longer.
            # A function word never counts ("de" is not "dés").
            if part in _STOPWORDS.get(lang, ()) or len(part) <= len(term):
                continue
            if _stem(part, lang) == root and (root == term or len(part) <= len(term) + 2):
                return True
    return False


def _derived(stem: str, base: str, lang: str) -> bool:
    """`stem` is `base` plus a derivational ending ("gattin" = "gatt" + "in")."""
    if len(base) < 3 or not stem.startswith(base):
        return False
    rest = stem[len(base) :]
    if len(base) >= 4:
        return rest in _DERIVATIONS.get(lang, ())
    if lang == "en" and rest in (base[-1] + "er", base[-1] + "i"):
        return True
    return rest in _SHORT_DERIVATIONS.get(lang, ())


def _same_family(word: str, secret: str, lang: str) -> bool:
    """Equal stems of 4+ letters, or one stem is the other plus a derivational ending."""
    if emoji.is_emoji(word):
        return False
    for term in _secret_terms(secret, lang):
        root = _stem(term, lang)
        for part in _parts(word):
            stem = _stem(part, lang)
            if (
                (len(root) >= 4 and stem == root)
                or _derived(stem, root, lang)
                or _derived(root, stem, lang)
            ):
                return True
    return False


def _phrase_in_clue(clue: list[str], secret: str) -> bool:
    """A multi-word secret said as a phrase ("pesce rosso" inside "un pesce rosso")."""
    secret_words = [p for w in _text_words(secret) for p in _parts(w)]
    if len(secret_words) < 2:
        return False
    clue_parts = [p for w in clue for p in _parts(w)]
    n = len(secret_words)
    return any(clue_parts[i : i + n] == secret_words for i in range(len(clue_parts) - n + 1))


def _repeatable(words: list[str]) -> set[str]:
    """Words a Pappagallo may repeat: each word, and each piece of an elided/hyphenated one."""
    out = set(words)
    for w in words:
        out.update(p for p in _parts(w) if len(p) > 1)
    return out


def check_clue(
    text: str,
    secret_word: str | None,
    lang: str,
    *,
    emoji_only: bool = False,
    must_repeat_from: str | None = None,
) -> str:
    """Check a clue against the clue rules; return it cleaned or raise GameError.

    Codes: clue_empty, clue_too_long, clue_not_emoji (Muto),
    clue_uses_secret_word, clue_same_family, clue_must_repeat (Pappagallo).
    With `secret_word` None (the Fantasma) only the shape checks apply.
    `must_repeat_from` is the previous clue (None when there is none: the
    Pappagallo is then free); an emoji of it counts as a word to repeat,
    and a previous clue with no word at all leaves the Pappagallo free.
    The cleaned clue has control and invisible characters removed and
    whitespace collapsed; its spelling and case are the player's.
    """
    _stemmer(lang)  # reject an unknown language even for a Fantasma
    cleaned = _clean(text)
    words = clue_words(cleaned)
    if not words:
        raise GameError("clue_empty", "the clue is empty")
    if len(cleaned) > MAX_CLUE_CHARS:
        raise GameError(
            "clue_too_long", "the clue is too long", chars=len(cleaned), max_chars=MAX_CLUE_CHARS
        )
    if emoji_only and not is_emoji_only(cleaned):
        offending = next((w for w in words if not emoji.is_emoji(w)), cleaned)
        raise GameError("clue_not_emoji", "the clue must be emoji only", word=offending)
    if len(words) > MAX_CLUE_WORDS:
        raise GameError(
            "clue_too_long", "a clue is 1 to 4 words", words=len(words), max_words=MAX_CLUE_WORDS
        )
    if secret_word:
        if _phrase_in_clue(words, secret_word):
            raise GameError(
                "clue_uses_secret_word", "the clue says the secret word", word=secret_word
            )
        for word in words:
            if _uses_secret(word, secret_word, lang):
                raise GameError("clue_uses_secret_word", "the clue says the secret word", word=word)
        for word in words:
            if _same_family(word, secret_word, lang):
                raise GameError(
                    "clue_same_family", "the clue uses a word of the secret's family", word=word
                )
    if must_repeat_from is not None:
        before = _repeatable(clue_words(must_repeat_from))
        if before and not (_repeatable(words) & before):
            raise GameError(
                "clue_must_repeat",
                "the clue must repeat a word of the previous clue",
                previous=must_repeat_from,
            )
    return cleaned


def _strip_article(folded: str, lang: str) -> str:
    """Drop one leading article ("il gatto", "l'eau", "un'ape")."""
    for article in sorted(ARTICLES.get(lang, ()), key=len, reverse=True):
        if article.endswith("'"):
            if folded.startswith(article) and len(folded) > len(article):
                return folded[len(article) :].strip()
            # "l' acqua": the apostrophe was trimmed off a separate word.
            article = article[:-1]
        if folded.startswith(article + " ") and len(folded) > len(article) + 1:
            return folded[len(article) + 1 :]
    return folded


def _guess_form(text: str, lang: str) -> str:
    return _strip_article(" ".join(_text_words(text)), lang)


def max_typos(word: str) -> int:
    """Edit distance tolerated for a guess: 1 up to 5 letters, 2 above."""
    letters = sum(1 for c in word if c.isalnum())
    return 1 if letters <= 5 else 2


def guess_matches(guess: str, target: str, other: str | None, lang: str) -> bool:
    """Does a guess name `target`? Case, accents, a leading article and small typos
    are ignored; the guess counts only if `target` is strictly closer than `other`.
    """
    _stemmer(lang)
    g, t = _guess_form(guess, lang), _guess_form(target, lang)
    if not g or not t:
        return False
    dist = Levenshtein.distance(g, t)
    if dist > max_typos(t):
        return False
    if other:
        o = _guess_form(other, lang)
        if o and Levenshtein.distance(g, o) <= dist:
            return False
    return True
