"""Text checks of the word games: clue rules and guess matching.

Rules implemented (RULES.md, rules/000 §3 and §7):

- Every check reads the clue as shown: `unicode_text.clean` removes
  invisible characters and applies NFKC first, and the cleaned text is what
  is stored and shown, so a clue never shows as the secret word while
  passing the check.
- A clue is 1 to 4 words and at most `MAX_CLUE_CHARS` characters. Words are
  separated by spaces or punctuation; an apostrophe or hyphen inside a word
  keeps it one word ("l'acqua", "arc-en-ciel"). Every emoji grapheme
  (a whole ZWJ family, a flag, a keycap) counts as one word, so a Muto clue
  is 1 to 4 emoji.
- A clue may not contain the player's own word (a clue word equal to it or
  containing it: "gattone", "supergatto" for "gatto"; a secret preceded by
  only a few letters is a spelling accident, "opera" is fine for "pera" and
  "train" for "rain"), nor a word that looks like it (letters of other
  scripts, "0" for "o", "rn" for "m": `unicode_text.skeleton`), nor a word
  of its family (`game.family`: stems, dictionary lemmas and regular
  inflections: "gatti", "gattino", "knives", "chevaux"), case and accents
  ignored, in the room's language. A secret of 3 letters or fewer is
  matched as a whole word only ("sete" is fine for "tè", "teas" is not for
  "tea"). For a secret of several words ("pesce rosso") the whole phrase is
  checked like a word, and each of its content words as a whole word and
  for its family ("pesce", "pesci").
- Muto: the clue must be emoji only. Pappagallo: the clue must repeat a word
  of the previous clue; an article or other function word does not count,
  and he is free when there is no previous clue or when every word of it is
  forbidden to him (his own word or its family).
- A guess of a secret word ignores case, accents, invisible characters, a
  leading article and small typos (distance 1 up to 5 letters, 2 above; two
  neighbouring letters swapped count as one), and counts only when the
  target is strictly closer than the other word of the pair.
"""

from __future__ import annotations

import re
from functools import lru_cache

import emoji

from game import languages, lemmas
from game.distance import typo_distance
from game.errors import GameError
from game.family import check_lang, is_function_word, is_own_word, keep, same_family, stem
from game.unicode_text import clean, emoji_spans, fold, skeleton

MAX_CLUE_WORDS = 4
MAX_CLUE_CHARS = 60

# The language's data (game/langs/<lang>/language.json, "text"): its articles,
# folded, stripped from the start of a guess (RULES.md); the shortest first
# element of a compound that hides the secret at its end (English builds
# compounds from short words, "pancake", "airship"; Italian and French rarely
# do, and "sciarpa" or "fragola" are not "arpa" or "gola"); the letters that
# are letters of their own and keep their marks when folded (Spanish "ñ").

_WORD = re.compile(r"[\w'\-]+")
_PARTS = re.compile(r"[\w]+")

__all__ = [
    "MAX_CLUE_CHARS",
    "MAX_CLUE_WORDS",
    "check_clue",
    "articles",
    "clue_words",
    "fold",
    "guess_matches",
    "hint_uses_word",
    "is_emoji_only",
    "max_typos",
    "repeat_candidates",
    "warm_up",
]


def articles(lang: str) -> tuple[str, ...]:
    """The language's articles, folded, as a guess may begin with them ("l'" elides)."""
    return languages.get(lang).text.articles


def _text_words(text: str, *, accents: bool = False, keep: str = "") -> list[str]:
    """Folded words of a text without emoji; outer apostrophes/dashes trimmed."""
    words = []
    for token in _WORD.findall(fold(text, accents=accents, keep=keep)):
        token = token.strip("'-")
        # "perche'" (an accent typed as an apostrophe) is still one word.
        if any(c.isalnum() for c in token):
            words.append(token)
    return words


def _canonical_emoji(e: str) -> str:
    # The variation selector is optional when typing; "❤" and "❤️" are the same.
    return e.replace("\ufe0f", "")


def clue_words(text: str, lang: str | None = None) -> list[str]:
    """The words of a clue as counted, in order: folded text words and emoji.

    Each emoji grapheme is one word (kept as the emoji, without variation
    selector); text between emoji is folded (as `lang` folds, when given)
    and split into words.
    """
    kept = keep(lang) if lang else ""
    words: list[str] = []
    pos = 0
    for match in emoji_spans(text):
        words.extend(_text_words(text[pos : match["match_start"]], keep=kept))
        words.append(_canonical_emoji(match["emoji"]))
        pos = match["match_end"]
    words.extend(_text_words(text[pos:], keep=kept))
    return words


def is_emoji_only(text: str) -> bool:
    """True when the text holds at least one emoji and nothing but emoji and whitespace."""
    if not emoji_spans(text):
        return False
    return not emoji.replace_emoji(clean(text), "").strip()


def _parts(word: str) -> list[str]:
    """Pieces of a word split at apostrophes and hyphens ("dell'acqua" -> dell, acqua)."""
    return _PARTS.findall(word)


def _written(text: str, kept: str) -> dict[str, str]:
    """Folded word piece -> the same piece as written (lower case, accents kept).

    Built only where both readings split the text alike, which is always the
    case but for stray combining marks; a piece missing here is looked up
    folded.
    """
    written: dict[str, str] = {}
    folded, accented = _text_words(text, keep=kept), _text_words(text, accents=True)
    if len(folded) != len(accented):
        return written
    for f, k in zip(folded, accented, strict=True):
        fp, kp = _parts(f), _parts(k)
        if len(fp) == len(kp) and all(
            fold(b, keep=kept) == a for a, b in zip(fp, kp, strict=True)
        ):
            written.update(zip(fp, kp, strict=True))
    return written


@lru_cache(maxsize=4096)
def _secret_words(secret: str, lang: str) -> tuple[str, ...]:
    return tuple(p for w in _text_words(secret, keep=keep(lang)) for p in _parts(w))


@lru_cache(maxsize=4096)
def _secret_terms(secret: str, lang: str) -> tuple[str, ...]:
    """Folded words of the secret to check on their own (content words only)."""
    words = _secret_words(secret, lang)
    if len(words) <= 1:
        return words
    return tuple(w for w in words if not is_function_word(w, lang, folded=True)) or words


@lru_cache(maxsize=4096)
def _secret_written(secret: str, lang: str) -> dict[str, str]:
    return _written(secret, keep(lang))


@lru_cache(maxsize=4096)
def _secret_looks(secret: str, lang: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each content word of the secret with the skeletons it shows as (see `_looks_like_secret`)."""
    kept = keep(lang)
    return tuple((term, _looks(term, kept)) for term in _secret_terms(secret, lang))


def _looks(word: str, kept: str) -> frozenset[str]:
    # Lower case, upper case and capitalised: a capital I looks like a small l.
    return frozenset(skeleton(v, kept) for v in (word, word.upper(), word.capitalize()))


def _contains(word: str, term: str, lang: str) -> bool:
    """The secret begins a piece of the clue word ("gattone", "pesce-gatto") or ends a
    compound after a whole first element ("supergatto", "pineapple", "cacciavite").

    A secret found after one or two letters is an accident of spelling, not
    the word: "rain" in "train", "chin" in "machine", "pera" in "opera".
    """
    lead = languages.get(lang).text.compound_lead
    for piece in _parts(word):
        at = piece.find(term)
        while at >= 0:
            if at == 0 or at >= lead:
                return True
            at = piece.find(term, at + 1)
    return False


def _uses_secret(word: str, secret: str, lang: str, written: dict[str, str] | None = None) -> bool:
    """A clue word (folded) equals or contains the secret, or an inflection of a short one.

    `written` maps folded pieces to their spelling with accents ("mere" ->
    "mère"): an accented word of its own is not an inflection of a short secret.
    """
    if emoji.is_emoji(word) or not any(c.isalnum() for c in word):
        return False
    secret_words = _secret_words(secret, lang)
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
        root = stem(term, lang)
        for part in _parts(word):
            if part == term:
                return True
            # "teas" for "tea", "sciare" for "sci": a longer word of the same
            # stem, when the secret is its own stem or the clue barely longer.
            # A function word never counts ("de" is not "dés").
            if is_function_word(part, lang, folded=True) or len(part) <= len(term):
                continue
            if (
                stem(part, lang) == root
                and (root == term or len(part) <= len(term) + 2)
                and not is_own_word(part, (written or {}).get(part, part), lang)
            ):
                return True
    return False


def _looks_like_secret(cleaned: str, secret: str, lang: str) -> str | None:
    """The part of the clue (as shown) that looks like the secret, if any.

    Texts are compared by their look-alike skeleton: "gаtto" with a
    Cyrillic "а", "gatt0", "Iago" (capital i) for "lago", "rnare" for "mare".
    The secret is read in lower case, upper case and capitalised, since a
    capital I looks like a small l. Lengths follow the secret as written, so
    the short-secret rule is the same as for plain text.
    """
    secret_words = _secret_words(secret, lang)
    several = len(secret_words) > 1
    terms = _secret_looks(secret, lang)
    kept = keep(lang)
    phrase = _looks("".join(secret_words), kept) if several else frozenset()
    for chunk in cleaned.split():
        pieces = _PARTS.findall(skeleton(chunk, kept))
        joined = "".join(pieces)
        if any(p in joined for p in phrase):
            return chunk
        for term, keys in terms:
            for key in keys:
                for piece in pieces:
                    if piece == key or (
                        len(term) >= 4 and not several and _contains(piece, key, lang)
                    ):
                        return chunk
    return None


def _same_family(word: str, secret: str, lang: str, written: dict[str, str]) -> bool:
    """A piece of the clue word is of the family of a content word of the secret."""
    if emoji.is_emoji(word):
        return False
    secret_written = _secret_written(secret, lang)
    for term in _secret_terms(secret, lang):
        for part in _parts(word):
            if same_family(
                part,
                term,
                lang,
                word_written=written.get(part, part),
                term_written=secret_written.get(term, term),
            ):
                return True
    return False


def _phrase_in_clue(clue: list[str], secret: str, lang: str) -> bool:
    """A multi-word secret said as a phrase ("pesce rosso" inside "un pesce rosso")."""
    secret_words = _secret_words(secret, lang)
    if len(secret_words) < 2:
        return False
    clue_parts = tuple(p for w in clue for p in _parts(w))
    n = len(secret_words)
    return any(clue_parts[i : i + n] == secret_words for i in range(len(clue_parts) - n + 1))


def _forbidden(word: str, secret: str | None, lang: str, written: dict[str, str]) -> bool:
    """May a player with this secret not say this (folded) word?"""
    return bool(secret) and (
        _uses_secret(word, secret, lang, written)
        or _same_family(word, secret, lang, written)
        or _looks_like_secret(word, secret, lang) is not None
    )


def _repeatable(words: list[str], lang: str) -> set[str]:
    """Words that count as a Pappagallo's repeat: each word and each piece of an
    elided/hyphenated one, but no article or other function word."""
    out = set(words)
    for w in words:
        out.update(p for p in _parts(w) if len(p) > 1)
    return {w for w in out if not is_function_word(w, lang, folded=True)}


def _check_secret(cleaned: str, words: list[str], secret: str, lang: str) -> None:
    """Refuse a clue that says, looks like or inflects the secret."""
    if _phrase_in_clue(words, secret, lang):
        raise GameError("clue_uses_secret_word", "the clue says the secret word", word=secret)
    written = _written(cleaned, keep(lang))
    for word in words:
        if _uses_secret(word, secret, lang, written):
            raise GameError("clue_uses_secret_word", "the clue says the secret word", word=word)
    lookalike = _looks_like_secret(cleaned, secret, lang)
    if lookalike is not None:
        raise GameError("clue_uses_secret_word", "the clue says the secret word", word=lookalike)
    for word in words:
        if _same_family(word, secret, lang, written):
            raise GameError(
                "clue_same_family", "the clue uses a word of the secret's family", word=word
            )


def hint_uses_word(hint: str, word: str, lang: str) -> bool:
    """Does a hint of a room's own list give its word away (issue 29, item 13)?

    An impostor is shown the hint as written, so it may not hold the word: the
    phrase or its words run together ("pesce rosso", "pescerosso"), a content
    word of 4+ letters anywhere inside a hint word ("incollare" for "colla":
    the clue rule forgives a secret after a short prefix as a spelling
    accident, a hint shows it), a short one (3 letters or fewer) as a whole
    hint word, or, for a one-word secret, as its beginning ("teas", "teiera"
    for "tè"; "sete" is fine). Words are read as the clue check reads
    them (cleaned, folded, split at apostrophes and hyphens). Text only, no
    stemmer or dictionary: those cost about 0.1 ms a word, and a list of a
    thousand hints is checked on the room's loop (bench/custom_words_bench.py).
    """
    words = clue_words(clean(hint), lang)
    if _phrase_in_clue(words, word, lang):
        return True
    parts = [p for w in words if not emoji.is_emoji(w) for p in _parts(w)]
    secret_words = _secret_words(word, lang)
    if len(secret_words) > 1 and "".join(secret_words) in "".join(parts):
        return True
    for term in _secret_terms(word, lang):
        if len(term) >= 4:
            if any(term in part for part in parts):
                return True
        elif any(
            part == term
            or (len(secret_words) == 1 and part.startswith(term)
                and not is_function_word(part, lang, folded=True))
            for part in parts
        ):
            return True
    return False


def repeat_candidates(previous: str, secret: str | None, lang: str) -> list[str]:
    """The words of the previous clue a Pappagallo with `secret` may repeat, folded
    (emoji as they are), in clue order; empty when he is free.

    Function words do not count, nor his own word and its family.
    """
    before = clean(previous)
    written = _written(before, keep(lang))
    said = clue_words(before, lang)
    allowed = _repeatable(said, lang)
    out = []
    for word in said:
        for w in (word, *_parts(word)):
            if w in allowed and w not in out and not _forbidden(w, secret, lang, written):
                out.append(w)
    return out


def _check_repeat(words: list[str], previous: str, secret: str | None, lang: str) -> None:
    """Pappagallo: repeat a word of the previous clue that he is allowed to say."""
    wanted = set(repeat_candidates(previous, secret, lang))
    if wanted and not (_repeatable(words, lang) & wanted):
        raise GameError(
            "clue_must_repeat",
            "the clue must repeat a word of the previous clue",
            previous=previous,
        )


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
    `must_repeat_from` is the previous clue (None when there is none); the
    Pappagallo is free when it has no word he may repeat: none at all, only
    function words, or only his own word and its family. An emoji of it
    counts as a word to repeat.
    The cleaned clue (`unicode_text.clean`: NFKC, invisible characters
    removed, whitespace collapsed) is what was checked and what is shown;
    its spelling and case are the player's.
    """
    check_lang(lang)  # reject an unknown language even for a Fantasma
    cleaned = clean(text)
    refusal = _refusal(cleaned, secret_word or None, lang, emoji_only, must_repeat_from)
    if refusal is not None:
        code, message, detail = refusal
        raise GameError(code, message, **dict(detail))
    return cleaned


@lru_cache(maxsize=8192)
def _refusal(
    cleaned: str, secret: str | None, lang: str, emoji_only: bool, previous: str | None
) -> tuple[str, str, tuple[tuple[str, object], ...]] | None:
    """Why a cleaned clue is refused, as (code, message, detail items), or None.

    Cached: many texts clean to the same clue (a player retrying, a joiner
    typed twice), and the checks are pure.
    """
    try:
        _check_cleaned(cleaned, secret, lang, emoji_only, previous)
    except GameError as err:
        return err.code, err.message, tuple(err.detail.items())
    return None


def _check_cleaned(
    cleaned: str, secret: str | None, lang: str, emoji_only: bool, previous: str | None
) -> None:
    words = clue_words(cleaned, lang)
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
    if secret:
        _check_secret(cleaned, words, secret, lang)
    if previous is not None:
        _check_repeat(words, previous, secret, lang)


def warm_up(langs: tuple[str, ...] | None = None) -> None:
    """Load what the checks read once per process: the confusables table and the
    lemma dictionaries of `langs` (all by default; 0.1-0.6 s each). Without it the first
    clue of each language pays that time; a server calls this in a worker thread (the
    table at start-up, a language before a game in it starts or is replayed), so that no
    room's loop (and voice) waits on it.
    """
    skeleton("warm-up")
    lemmas.preload(langs)


def _strip_article(folded: str, lang: str) -> str:
    """Drop one leading article ("il gatto", "l'eau", "un'ape")."""
    for article in sorted(articles(lang), key=len, reverse=True):
        if article.endswith("'"):
            if folded.startswith(article) and len(folded) > len(article):
                return folded[len(article) :].strip()
            # "l' acqua": the apostrophe was trimmed off a separate word.
            article = article[:-1]
        if folded.startswith(article + " ") and len(folded) > len(article) + 1:
            return folded[len(article) + 1 :]
    return folded


def _guess_form(text: str, lang: str) -> str:
    return _strip_article(" ".join(_text_words(text, keep=keep(lang))), lang)


def max_typos(word: str) -> int:
    """Typos tolerated for a guess: 1 up to 5 letters, 2 above."""
    letters = sum(1 for c in word if c.isalnum())
    return 1 if letters <= 5 else 2


def guess_matches(guess: str, target: str, other: str | None, lang: str) -> bool:
    """Does a guess name `target`? Case, accents, invisible characters, look-alike
    letters of other scripts, a leading article and small typos are ignored
    (`typo_distance`: a swap of two neighbouring letters is one typo); the
    guess counts only if `target` is strictly closer than `other`.
    """
    check_lang(lang)
    g, t = _guess_form(guess, lang), _guess_form(target, lang)
    if not g or not t:
        return False
    dist = typo_distance(g, t)
    if dist > max_typos(t):
        return False
    if other:
        o = _guess_form(other, lang)
        if o and typo_distance(g, o) <= dist:
            return False
    return True
