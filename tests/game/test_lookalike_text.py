"""Issue 8, "Text that looks like something else": a clue with an invisible character
inside the secret word, or one look-alike letter of another script, passed the
own-word check and showed on the board as the word itself. Every check now reads
the clue as shown (game/unicode_text.py), and the shown text is the checked one.
"""

from __future__ import annotations

import sys
import unicodedata
from functools import cache

import pytest
from confusable_homoglyphs import confusables

from game import words
from game.errors import GameError
from game.text import check_clue, guess_matches, is_emoji_only
from game.unicode_text import clean, is_default_ignorable, skeleton

# One of each kind of invisible character (the corpus inserts each at every
# position of every secret word; test_clean_removes_every_invisible_character
# covers every such code point on one word).
INVISIBLES = {
    "zero width space": "\u200b",
    "zero width non-joiner": "\u200c",
    "zero width joiner": "\u200d",
    "left-to-right mark": "\u200e",
    "right-to-left override": "\u202e",
    "word joiner": "\u2060",
    "invisible separator": "\u2063",
    "combining grapheme joiner": "\u034f",
    "soft hyphen": "\u00ad",
    "variation selector 16": "\ufe0f",
    "variation selector 17": "\U000e0100",
    "tag letter a": "\U000e0061",
    "cancel tag": "\U000e007f",
    "Hangul filler": "\u3164",
    "Mongolian vowel separator": "\u180e",
    "byte order mark": "\ufeff",
    "interlinear annotation anchor": "\ufff9",
}


def _invisible_code_points() -> list[str]:
    """Every default-ignorable or format code point (about 4,200)."""
    # Default-ignorable code points all lie in these planes' ranges (Unicode
    # DerivedCoreProperties); format characters are looked for everywhere.
    maybe_ignorable = [*range(0x10000), *range(0x1BC00, 0x1D200), *range(0xE0000, 0xE1000)]
    points = {o for o in maybe_ignorable if is_default_ignorable(chr(o))}
    points |= {o for o in range(sys.maxunicode + 1) if unicodedata.category(chr(o)) == "Cf"}
    return [chr(o) for o in sorted(points) if not 0xD800 <= o <= 0xDFFF]


@cache
def homoglyphs(letter: str) -> tuple[str, ...]:
    """Single code points that look like `letter`, read straight from the package's data.

    The data lists, under a prototype, the characters that look like it, and
    under a character, its prototype ("m" -> "rn", under which "m" and its
    look-alikes are listed).
    """
    data = confusables.confusables_data
    near = {e["c"] for e in data.get(letter, [])}
    for proto in list(near):
        near |= {e["c"] for e in data.get(proto, [])}
    # Right-to-left characters are stored wrapped in LEFT-TO-RIGHT MARKs.
    near = {c.replace("\u200e", "") for c in near}
    return tuple(sorted(c for c in near if len(c) == 1 and c != letter))


def refused_code(text: str, secret: str, lang: str) -> str | None:
    try:
        check_clue(text, secret, lang)
    except GameError as err:
        return err.code
    return None


# --- cleaning: what is shown is what is checked ------------------------------


def test_clean_removes_every_invisible_character():
    points = _invisible_code_points()
    assert len(points) > 4000
    kept = [hex(ord(c)) for c in points if clean(f"gat{c}to") != "gatto"]
    assert kept == []


@pytest.mark.parametrize(
    "seq",
    [
        "👨\u200d👩\u200d👧",  # ZWJ family
        "❤\ufe0f",  # variation selector 16
        "1\ufe0f\u20e3",  # keycap
        "👍🏽",  # skin tone
        "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # England
        "🇮🇹",
    ],
)
def test_clean_keeps_what_emoji_are_made_of(seq):
    assert clean(f" {seq} ") == seq
    assert check_clue(f"{seq}\u200b", None, "it", emoji_only=True) == seq
    assert is_emoji_only(seq)


def test_clean_applies_nfkc_and_drops_direction_overrides():
    assert clean("Ｇａｔｔｏ") == "Gatto"
    assert clean("𝐠𝐚𝐭𝐭𝐨") == "gatto"
    # "\u202e" would draw "ottag" as "gatto"; removed, it shows as typed.
    assert clean("\u202eottag") == "ottag"
    assert clean("a\u2800b\u0007c") == "a b c"


def test_the_shown_clue_is_the_checked_one():
    # Accepted clues come back cleaned, and never look like the secret.
    assert check_clue("fe\u200bli\u2060no", "gatto", "it") == "felino"
    assert check_clue("🐱\u200b🐯", "gatto", "it", emoji_only=True) == "🐱🐯"
    for text in ("gat\u200dto", "gаtto", "gatt0", "GАТТО", "g\u034fatto"):
        assert refused_code(text, "gatto", "it") == "clue_uses_secret_word", text


@pytest.mark.parametrize(
    ("text", "secret", "lang"),
    [
        ("Iago", "lago", "it"),  # capital i for small L
        ("rnare", "mare", "it"),  # r + n for m
        ("Ⓜare", "mare", "it"),  # an enclosed letter that is also an emoji
        ("wоlf", "wolf", "en"),  # Cyrillic о
        ("сhat", "chat", "fr"),  # Cyrillic с
        ("lsola", "isola", "it"),  # small L for a capital i
    ],
)
def test_look_alike_spellings_are_the_secret_word(text, secret, lang):
    assert refused_code(text, secret, lang) == "clue_uses_secret_word"


def test_a_look_alike_of_another_script_is_folded_for_the_family_check_too():
    assert refused_code("gаtti", "gatto", "it") == "clue_same_family"  # Cyrillic а


# --- the corpus: every secret word, disguised --------------------------------


def plain_refusal(secret: str, lang: str) -> str:
    """How the secret said plainly is refused: as the secret word, or for its
    shape when it cannot be a clue at all (a title of five words or more)."""
    code = refused_code(secret, secret, lang)
    assert code in ("clue_uses_secret_word", "clue_too_long"), (secret, code)
    return code


@pytest.mark.parametrize("lang", words.LANGS)
def test_every_secret_word_with_an_invisible_character_is_refused(lang, capsys):
    """Each invisible character of INVISIBLES at each position of every secret word:
    refused exactly as the word said plainly."""
    tried, passed = 0, []
    for secret in words.secret_words(lang):
        expected = plain_refusal(secret, lang)
        for i in range(len(secret) + 1):
            for char in INVISIBLES.values():
                text = secret[:i] + char + secret[i:]
                tried += 1
                if refused_code(text, secret, lang) != expected:
                    passed.append(text)
    with capsys.disabled():
        print(f"\n[{lang}] invisible characters refused {tried - len(passed)}/{tried}")
    assert passed == []


def _substitutions(secret: str, counter: dict[str, int]):
    """The secret with one letter replaced by a look-alike, at every letter position.

    Each position takes the next look-alike of its letter in turn, so across
    the corpus every look-alike of every letter is used (the full product,
    every look-alike at every position, is about 60 times larger).
    """
    for i, letter in enumerate(secret):
        options = homoglyphs(letter)
        if not options:
            continue
        n = counter.get(letter, 0)
        counter[letter] = n + 1
        yield letter, options[n % len(options)], secret[:i] + options[n % len(options)] + secret[i + 1 :]


@pytest.mark.parametrize("lang", words.LANGS)
def test_every_secret_word_with_a_look_alike_letter_is_refused(lang, capsys):
    """Every letter of every secret word (as written, and the word in capitals)
    replaced by a look-alike of the Unicode confusables table: refused as the
    word said plainly, or for its length when a look-alike that is a symbol
    ("|", "ℹ") splits a word of a four-word title into two."""
    tried, passed = 0, []
    used: dict[str, set[str]] = {}
    counter: dict[str, int] = {}
    for secret in words.secret_words(lang):
        expected = plain_refusal(secret, lang)
        for shown in (secret, secret.upper()):
            for letter, look, text in _substitutions(shown, counter):
                used.setdefault(letter, set()).add(look)
                tried += 1
                if refused_code(text, secret, lang) not in (expected, "clue_too_long"):
                    passed.append(text)
    with capsys.disabled():
        print(f"\n[{lang}] look-alike letters refused {tried - len(passed)}/{tried}")
    assert passed == []
    # Every look-alike of the common letters was tried at least once.
    for letter in "aeiou":
        assert used[letter] == set(homoglyphs(letter)), letter


def test_every_look_alike_of_every_letter_is_refused_in_one_word(capsys):
    """The complement of the corpus: each look-alike of each letter a-z and A-Z."""
    tried, passed = 0, []
    for letter in "abcdefghijklmnopqrstuvwxyz":
        secret = f"zz{letter}zz"  # never a real word: only the look matters
        for shown in (secret, secret.upper()):
            for look in homoglyphs(shown[2]):
                tried += 1
                if refused_code(shown[:2] + look + shown[3:], secret, "en") is None:
                    passed.append(f"{letter}: {look} U+{ord(look):04X}")
    with capsys.disabled():
        print(f"\n[a-z, A-Z] look-alikes refused {tried - len(passed)}/{tried}")
    assert tried > 1000
    assert passed == []


def test_the_skeleton_of_a_refused_look_alike_is_the_secrets():
    assert skeleton("gаtto") == skeleton("gatto") == "gatto"
    assert skeleton("ＧＡＴＴＯ") == "gatto"


# --- guesses and other compared text -----------------------------------------


@pytest.mark.parametrize(
    "guess",
    ["gat\u200bto", "gаtto", "ｇａｔｔｏ", "il\u2060 gatto", "GAT\u00adTO"],
)
def test_a_guess_reads_through_invisible_and_look_alike_characters(guess):
    assert guess_matches(guess, "gatto", "tigre", "it")


def test_a_guess_with_two_neighbouring_letters_swapped_is_one_typo():
    # Issue 8: a swap counted as two typos, over the limit of 1 up to 5 letters.
    assert guess_matches("tirge", "tigre", "gatto", "it")
    assert guess_matches("gtato", "gatto", "tigre", "it")
    assert guess_matches("spaiggia", "spiaggia", "piscina", "it")
    # Still one typo only: a swap plus another edit is two.
    assert not guess_matches("tirga", "tigre", "gatto", "it")
