"""Text that looks like something else: invisible characters and look-alike letters.

Players type clues, guesses and names; the screen shows them to others. A
string can hide an invisible character inside a word ("gat", a zero-width joiner, "to") or swap
one letter for a look-alike from another script (Cyrillic "а" for "a"), so
that it shows as one word while comparing as another. Every comparison of
player text goes through this module first:

- `clean(text)`: the form that is stored and shown: NFKC (full-width and
  mathematical letters become plain ones), invisible characters removed
  (default-ignorable code points, format and unassigned characters),
  control characters and blank-looking ones turned into spaces, spaces
  collapsed. Emoji are kept whole, with the joiners, variation selectors
  and tag characters that build them, because a Muto's clue is emoji only.
- `skeleton(text)`: the form two texts that look alike share, after the
  Unicode confusables table (UTS #39, as shipped by the pure-Python
  `confusable_homoglyphs` package): accents and case ignored as well.
- `fold(text)`: the form words are compared in (lower case, no accents,
  invisible characters removed, letters of other scripts read as the Latin
  letters they look like: `fold_letter`).

Pure: the table is package data read once; no other I/O.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache, lru_cache
from importlib import resources

import confusable_homoglyphs
import emoji

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt): code
# points that render as nothing. Python's unicodedata does not expose the
# property, and the list is small and stable.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x200B, 0x200F),  # zero width space / non-joiner / joiner, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero width no-break space (BOM)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical format controls
    (0xE0000, 0xE0FFF),  # tags, variation selectors supplement
)

# Visible-width blanks that are not Unicode spaces (a classic "empty" name).
_BLANKS = frozenset("\u2800")


def is_default_ignorable(c: str) -> bool:
    """True for a code point that renders as nothing (Default_Ignorable_Code_Point)."""
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in _DEFAULT_IGNORABLE)


# Per-character caches are bounded: a client may send any code point.
@lru_cache(maxsize=4096)
def _plain_char(c: str) -> str:
    """What `_clean_plain` keeps of one (NFKC) character: itself, a space or nothing."""
    if unicodedata.category(c) == "Cc" or c in _BLANKS:
        return " "
    # Format (Cf), surrogate, private-use and unassigned code points have no
    # reliable glyph either: a browser may draw nothing for them.
    if is_default_ignorable(c) or unicodedata.category(c) in ("Cf", "Cs", "Co", "Cn"):
        return ""
    return c


@lru_cache(maxsize=4096)
def _compatible_char(c: str) -> str:
    """NFKC of one character, unless that changes what it looks like.

    "ｇ" and "𝐠" become "g", but "ϲ" (Greek lunate sigma, drawn like "c")
    stays: NFKC would make it "ς", and the clue would be checked as
    something other than what it showed.
    """
    nfkc = unicodedata.normalize("NFKC", c)
    if nfkc == c or c not in _prototypes():
        return nfkc
    return nfkc if _look(nfkc) == _look(c) else c


def _look(text: str) -> str:
    return _strip_marks("".join(prototype(x) for x in _strip_marks(text))).casefold()


def _clean_plain(text: str) -> str:
    """NFKC where it keeps the look, invisible characters dropped, controls and
    blanks turned into spaces."""
    if text.isascii() and text.isprintable():
        return text  # the common case: nothing to do
    text = "".join(_plain_char(c) for c in text)
    text = "".join(_compatible_char(c) for c in text)
    # Composed again: removing a joiner may bring a base letter next to its mark.
    return unicodedata.normalize("NFC", text)


@cache
def _emoji_starts() -> frozenset[str]:
    return frozenset(e[0] for e in emoji.EMOJI_DATA)


def emoji_spans(text: str) -> list[dict]:
    """`emoji.emoji_list(text)`, skipped when no character of the text can begin
    an emoji (most text: the emoji scan is the costliest step of a check)."""
    if _emoji_starts().isdisjoint(text):
        return []
    return emoji.emoji_list(text)


def clean(text: str) -> str:
    """The form of player text that is stored, shown and checked.

    NFKC (except for the few characters it would change the look of, see
    `_compatible_char`); default-ignorable, format and unassigned code
    points removed;
    control characters and blank-looking ones become spaces; whitespace
    collapsed. Emoji sequences are kept as typed (their joiners, variation
    selectors, skin tones and tags are part of the emoji); a joiner or
    selector anywhere else is removed.
    """
    parts = []
    pos = 0
    for match in emoji_spans(text):
        parts.append(_clean_plain(text[pos : match["match_start"]]))
        parts.append(match["emoji"])
        pos = match["match_end"]
    parts.append(_clean_plain(text[pos:]))
    return " ".join("".join(parts).split())


def has_letter_or_digit(text: str) -> bool:
    """True when the text holds a visible letter or digit (after `clean`)."""
    return any(unicodedata.category(c)[0] in "LN" for c in clean(text))


@cache
def _prototypes() -> dict[str, str]:
    """Confusable code point -> its prototype (UTS #39 confusables.txt, case-sensitive).

    `confusable_homoglyphs` stores the table in both directions: each line
    "source -> prototype" adds the prototype under the source and the source
    under the prototype, in file order. A source has one entry (its
    prototype), and is never itself a prototype (the mapping is idempotent);
    when two characters list only each other, the one met first in the file
    is the source.
    """
    raw = json.loads(
        resources.files(confusable_homoglyphs).joinpath("confusables.json").read_text("utf-8")
    )
    # Right-to-left characters are stored wrapped in LEFT-TO-RIGHT MARKs.
    data = {
        k.replace("\u200e", ""): [e["c"].replace("\u200e", "") for e in v] for k, v in raw.items()
    }
    order = {k: i for i, k in enumerate(data)}
    table: dict[str, str] = {}
    for char, targets in data.items():
        if len(char) != 1 or len(targets) != 1:
            continue
        target = targets[0]
        if data.get(target) == [char] and order[target] < order[char]:
            continue  # `char` is the prototype of this pair
        table[char] = target
    return table


def prototype(c: str) -> str:
    """The prototype a character looks like (itself when it has none)."""
    return _prototypes().get(c, c)


def _strip_marks(text: str) -> str:
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


@lru_cache(maxsize=4096)
def fold_letter(c: str) -> str:
    """A letter of another script as the lower-case Latin text it looks like.

    Only such letters change ("а" Cyrillic -> "a", "ı" -> "i", "ν" Greek ->
    "v"); ASCII, accented Latin letters, digits and punctuation are left as
    they are, so folded words stay words.
    """
    if c.isascii() or not unicodedata.category(c).startswith("L") or _strip_marks(c).isascii():
        return c
    folded = c
    for _ in range(2):  # a capital's prototype may be a capital ("І" -> "l", "і" -> "i")
        folded = _strip_marks("".join(prototype(x) for x in folded.casefold())).casefold()
    return folded


# Ligatures and letters that NFKD does not split but players type plainly.
_PLAIN = str.maketrans(
    {"œ": "oe", "æ": "ae", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th"}
)
_APOSTROPHES = str.maketrans({c: "'" for c in "’‘ʼ`´′ʹ"})
_DASHES = str.maketrans({c: "-" for c in "‐‑‒–—―−"})


@lru_cache(maxsize=16384)
def fold(text: str, *, accents: bool = False, keep: str = "") -> str:
    """Fold text for comparison: lower case, accents removed, spacing tidied.

    Invisible characters are removed (a word with a joiner inside stays one
    word); letters of other scripts that look like Latin ones become those
    (`fold_letter`); apostrophe and dash variants become ASCII ' and -; other
    punctuation and symbols become a space; whitespace is collapsed. With
    `accents`, accents and ligatures are kept ("étoiles", "œufs"): the form
    a dictionary looks up. `keep` lists lower-case letters that are letters
    of their own in the room's language and keep their marks ("ñ": "año" is
    not "ano"; a language's `text.fold_keep`).
    """
    text = _clean_plain(text.translate(_APOSTROPHES).translate(_DASHES)).casefold()
    if accents:
        text = unicodedata.normalize("NFC", text)
    elif keep:
        text = "".join(
            c if c in keep else _strip_marks(unicodedata.normalize("NFKD", c))
            for c in unicodedata.normalize("NFC", text)
        ).translate(_PLAIN)
    else:
        text = _strip_marks(unicodedata.normalize("NFKD", text)).translate(_PLAIN)
    return " ".join("".join(_fold_char(c) for c in text).split())


@lru_cache(maxsize=4096)
def _fold_char(c: str) -> str:
    """One lower-case character as `fold` leaves it: a look-alike folded, a
    separator turned into a space."""
    return "".join(
        x if x in "'-" or unicodedata.category(x)[0] in "LNM" else " " for x in fold_letter(c)
    )


@lru_cache(maxsize=16384)
def skeleton(text: str, keep: str = "") -> str:
    """What a text looks like: texts with the same skeleton are confusable.

    UTS #39 skeleton over the cleaned text (NFKC applied to emoji too, so
    "Ⓜ" reads as "M"), then accents and case removed: "Ａｄａ", "Аda"
    (Cyrillic А), "Ada" + a Hangul filler and "ADA" all give "ada"; "0"
    reads as "o", "1" and "I" as "l", "rn" and "m" alike. Case is folded
    after the table, so a capital "I" reads as "l", not as "i". `keep` lists
    lower-case letters of the room's language that are letters of their own,
    not accented ones ("ñ": "año" does not look like "ano"; see `fold`).
    """
    text = _clean_plain(text)
    if keep:
        # Each kept letter (either case) stays itself between skeletons of the rest.
        pieces = [""]
        for c in unicodedata.normalize("NFC", text):
            if c.casefold() in keep:
                pieces += [c.casefold(), ""]
            else:
                pieces[-1] += c
        text = "".join(p if i % 2 else _skeleton_piece(p) for i, p in enumerate(pieces))
    else:
        text = _skeleton_piece(text)
    return " ".join(text.split())


def _skeleton_piece(text: str) -> str:
    for _ in range(2):  # the prototype of a capital may fold to another source
        text = unicodedata.normalize("NFKC", _look(text))
    return text
