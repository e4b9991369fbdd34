"""A room's own word list, pasted or uploaded by the host (every engine).

Two shapes, one line each (blank lines and lines starting with `#` are skipped):

- secret words (Impostore): `word` or `word: hint, hint` (the hints are what
  an impostor may be shown in "hint" mode);
- word pairs (Intruso, Infiltré, Sosia): `word, word` (or `word / word`).

The host sends the text as the `custom_words` option; `validate_options`
parses it here into plain data (a list of `{"word", "hints"}` or of `[a, b]`)
and the room stores that with its settings, so every game of the room, and a
replay, deals from the same list. A list is refused with a stable code and
`detail: {field: "custom_words", line, word?}` (docs/rules.md has the limits):

`words_too_few`, `words_too_many`, `words_too_big`, `words_line_too_long`,
`words_too_many_hints`, `words_too_short`, `words_too_long`, `words_invisible`,
`words_bad_characters`, `words_duplicate`, `words_hint_uses_word`, `words_bad_pair`.

The work is linear in the text (issue 29, item 5): a settings message holding
the list is checked on the room's event loop, so nothing is compared with
every earlier item (duplicates are found through sets of folded keys), a line
is refused past MAX_LINE_BYTES and a word past MAX_HINTS hints before any of
them is checked, and a hint is checked against its own word only.

Words and hints are cleaned and must be visible as names and clues are
(`unicode_text.clean`, `has_letter_or_digit`): invisible characters inside a
word are dropped, and a word of nothing else is refused (item 10).

The list is a secret of the host's making: `public_options` replaces it by
its size before options are shown to the table.
"""

from __future__ import annotations

from typing import Any

from .errors import GameError
from .family import fold_word
from .languages import FALLBACK
from .text import fold, hint_uses_word
from .unicode_text import clean, has_letter_or_digit

FIELD = "custom_words"
MAX_BYTES = 8000  # the text as pasted, in UTF-8: a settings message stays under its frame limit
MAX_ENTRIES = 200
MIN_WORDS = 3  # a secret-word list: a word and a choice for "Non conosco la parola"
MIN_PAIRS = 1
MAX_HINTS = 5
# A full line, a word and MAX_HINTS hints of MAX_LENGTH characters with their
# separators, is about 190 characters: 512 bytes leave room for 2-byte letters.
MAX_LINE_BYTES = 512
MIN_LETTERS = 2
MAX_LENGTH = 30
_SEPARATORS = " '’-."


def _refuse(code: str, message: str, **detail: Any) -> GameError:
    return GameError(code, message, field=FIELD, **detail)


def _word(raw: str, line: int) -> str:
    """One word or short phrase, cleaned as names and clues are (`unicode_text.clean`);
    refused when invisible, too short, too long or odd."""
    word = clean(raw)
    if not word and raw.strip():
        # Only characters that show as nothing (a Hangul filler, a zero-width space):
        # the card would show an empty word no guess can match.
        raise _refuse("words_invisible", f"line {line}: a word shows as nothing", line=line,
                      word="")
    if not has_letter_or_digit(word) or sum(c.isalnum() for c in word) < MIN_LETTERS:
        raise _refuse("words_too_short", f"line {line}: a word needs at least {MIN_LETTERS} letters",
                      line=line, word=word[:MAX_LENGTH])
    if len(word) > MAX_LENGTH:
        raise _refuse("words_too_long", f"line {line}: at most {MAX_LENGTH} characters",
                      line=line, word=word[:MAX_LENGTH] + "…", max=MAX_LENGTH)
    if not word[0].isalnum() or any(not (c.isalnum() or c in _SEPARATORS) for c in word):
        raise _refuse("words_bad_characters",
                      f"line {line}: letters, digits, spaces, ' - . only", line=line, word=word)
    return word


def _lines(text: str) -> list[tuple[int, str]]:
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise _refuse("words_too_big", f"at most {MAX_BYTES} bytes of text", max=MAX_BYTES)
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if len(line.encode("utf-8")) > MAX_LINE_BYTES:
            raise _refuse("words_line_too_long", f"line {n}: at most {MAX_LINE_BYTES} bytes",
                          line=n, max=MAX_LINE_BYTES)
        line = line.strip()
        if line and not line.startswith("#"):
            out.append((n, line))
    if len(out) > MAX_ENTRIES:
        raise _refuse("words_too_many", f"at most {MAX_ENTRIES} lines", max=MAX_ENTRIES)
    return out


def _no_duplicates(words: list[tuple[int, str]], lang: str) -> None:
    seen: dict[str, int] = {}
    for line, word in words:
        key = fold_word(word, lang)
        if key in seen:
            raise _refuse("words_duplicate", f"line {line}: {word!r} is already on line {seen[key]}",
                          line=line, word=word, first=seen[key])
        seen[key] = line


def parse_words(value: Any, lang: str = FALLBACK) -> list[dict[str, Any]] | None:
    """A secret-word list: pasted text, or the stored list itself, checked again.

    `lang` is the room's language: a hint may not hold its word (`hint_uses_word`).
    Returns `[{"word": str, "hints": [str, ...]}]` (None: no list).
    """
    if value is None:
        return None
    if isinstance(value, list):
        if not all(isinstance(e, dict) and isinstance(e.get("word"), str)
                   and isinstance(e.get("hints", []), list) for e in value):
            raise GameError("bad_options", "custom_words: a text or a list of words", field=FIELD)
        value = "\n".join(
            e["word"] + (": " + ", ".join(map(str, e["hints"])) if e.get("hints") else "")
            for e in value)
    if not isinstance(value, str):
        raise GameError("bad_options", "custom_words: a text or a list of words", field=FIELD)
    entries: list[dict[str, Any]] = []
    seen: list[tuple[int, str]] = []
    for line, text in _lines(value):
        head, _, tail = text.partition(":")
        word = _word(head, line)
        raws = [h for h in tail.split(",") if h.strip()]
        if len(raws) > MAX_HINTS:
            raise _refuse("words_too_many_hints", f"line {line}: at most {MAX_HINTS} hints a word",
                          line=line, word=word, max=MAX_HINTS)
        hints: list[str] = []
        keys = {fold_word(word, lang)}
        for raw in raws:
            hint = _word(raw, line)
            key = fold_word(hint, lang)
            if key in keys:
                raise _refuse("words_duplicate", f"line {line}: a hint repeats {hint!r}",
                              line=line, word=hint, first=line)
            if hint_uses_word(hint, word, lang):
                raise _refuse("words_hint_uses_word", f"line {line}: the hint {hint!r} holds the word",
                              line=line, word=hint)
            keys.add(key)
            hints.append(hint)
        entries.append({"word": word, "hints": hints})
        seen.append((line, word))
    _no_duplicates(seen, lang)
    if len(entries) < MIN_WORDS:
        raise _refuse("words_too_few", f"at least {MIN_WORDS} words", min=MIN_WORDS)
    return entries


def parse_pairs(value: Any) -> list[list[str]] | None:
    """A word-pair list: pasted text (`a, b` or `a / b` per line), or the stored list.

    Returns `[[a, b], ...]` (None: no list).
    """
    if value is None:
        return None
    if isinstance(value, list):
        if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(w, str) for w in p)
                   for p in value):
            raise GameError("bad_options", "custom_words: a text or a list of pairs", field=FIELD)
        value = "\n".join(f"{a}, {b}" for a, b in value)
    if not isinstance(value, str):
        raise GameError("bad_options", "custom_words: a text or a list of pairs", field=FIELD)
    pairs: list[list[str]] = []
    seen: list[tuple[int, str]] = []
    for line, text in _lines(value):
        sep = "/" if "/" in text else ","
        parts = [p for p in text.split(sep)]
        if len(parts) != 2 or not all(p.strip() for p in parts):
            raise _refuse("words_bad_pair", f"line {line}: two words separated by a comma",
                          line=line, word=text[:MAX_LENGTH])
        a, b = (_word(p, line) for p in parts)
        if fold(a) == fold(b):
            raise _refuse("words_duplicate", f"line {line}: the same word twice",
                          line=line, word=b, first=line)
        pairs.append([a, b])
        seen += [(line, a), (line, b)]
    # A word may belong to two pairs ("gatto, tigre" and "gatto, leone"), not one pair twice.
    keys: dict[frozenset[str], int] = {}
    for (line, _), pair in zip(seen[::2], pairs, strict=True):
        key = frozenset(fold(w) for w in pair)
        if key in keys:
            raise _refuse("words_duplicate", f"line {line}: this pair is already on line {keys[key]}",
                          line=line, word=", ".join(pair), first=keys[key])
        keys[key] = line
    if len(pairs) < MIN_PAIRS:
        raise _refuse("words_too_few", f"at least {MIN_PAIRS} pair", min=MIN_PAIRS)
    return pairs


def public_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options as the table may see them: a custom list shows only its size."""
    out = dict(options)
    if out.get(FIELD) is not None:
        out[FIELD] = {"count": len(out[FIELD])}
    return out
