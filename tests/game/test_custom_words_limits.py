"""Issue 29, items 5, 10 and 13: a room's own word list (game/custom_words.py).

- 5: the check is linear in the input: a word has at most MAX_HINTS hints and a
  line at most MAX_LINE_BYTES bytes, each refused with its own code; the work is
  counted (calls of the per-word steps), not timed.
- 10: words and hints pass the cleaning and visibility rule of names and clues
  (`unicode_text.clean`, `has_letter_or_digit`): a word of invisible characters
  only is refused (`words_invisible`).
- 13: a hint that holds its word ("incollare" for "colla") is refused
  (`words_hint_uses_word`).
"""

from __future__ import annotations

import pytest

from game import custom_words
from game.custom_words import (
    MAX_BYTES,
    MAX_HINTS,
    MAX_LINE_BYTES,
    parse_pairs,
    parse_words,
)
from game.errors import GameError


def _refusal(parse, text: str, *args) -> GameError:
    with pytest.raises(GameError) as info:
        parse(text, *args)
    assert info.value.detail["field"] == "custom_words"
    return info.value


def _distinct_hints(n: int) -> list[str]:
    """n three-character hints, different even folded (case and accents ignored)."""
    chars = "abcdefghijklmnopqrstuvwxyz0123456789"
    out = [a + b + c for a in chars for b in chars for c in chars]
    assert len(out) >= n
    return out[:n]


def _one_line_list(max_bytes: int = MAX_BYTES) -> str:
    """The issue's list: nearly all its bytes as hints of one word, on one line."""
    head, tail = "zz: ", "\ncane\nleone"
    hints: list[str] = []
    size = len((head + tail).encode())
    for hint in _distinct_hints(3000):
        extra = len(hint.encode()) + 1
        if size + extra > max_bytes:
            break
        hints.append(hint)
        size += extra
    return head + ",".join(hints) + tail


# ---------------------------------------------------------------- item 5: bounded work


def test_issue29_5_a_word_with_more_hints_than_the_limit_is_refused():
    """Before: the hints past the fifth were parsed, compared and then dropped silently."""
    hints = ", ".join(f"indizio{c}" for c in "abcdefghij"[: MAX_HINTS + 1])
    err = _refusal(parse_words, f"gatto: {hints}\ncane\nleone")
    assert err.code == "words_too_many_hints"
    assert err.detail["line"] == 1 and err.detail["max"] == MAX_HINTS
    ok = ", ".join(f"indizio{c}" for c in "abcdefghij"[:MAX_HINTS])
    assert len(parse_words(f"gatto: {ok}\ncane\nleone")[0]["hints"]) == MAX_HINTS


def test_issue29_5_a_line_over_the_byte_limit_is_refused():
    long_line = "gatto: " + ", ".join(["a" * 28] * 3) + " " * MAX_LINE_BYTES
    err = _refusal(parse_words, f"cane\n{long_line}\nleone")
    assert err.code == "words_line_too_long"
    assert err.detail["line"] == 2 and err.detail["max"] == MAX_LINE_BYTES
    err = _refusal(parse_pairs, "mare, lago\n" + "gatto" + " " * MAX_LINE_BYTES + ", tigre")
    assert err.code == "words_line_too_long" and err.detail["line"] == 2


def _counted(monkeypatch) -> dict[str, int]:
    """Count the per-item steps of the parser: folding a word and checking a hint."""
    calls = {"fold": 0, "hint": 0}
    fold, hint_uses_word = custom_words.fold, custom_words.hint_uses_word

    def counting_fold(*args, **kwargs):
        calls["fold"] += 1
        return fold(*args, **kwargs)

    def counting_hint(*args, **kwargs):
        calls["hint"] += 1
        return hint_uses_word(*args, **kwargs)

    monkeypatch.setattr(custom_words, "fold", counting_fold)
    monkeypatch.setattr(custom_words, "hint_uses_word", counting_hint)
    return calls


def test_issue29_5_the_issues_one_line_list_costs_a_bounded_number_of_steps(monkeypatch):
    """The issue's 7.9 kB list, ~2000 hints on one line: before, each hint was folded
    and compared with every earlier one (about two million folds); now the line is
    refused for its hints before any of them is checked."""
    text = _one_line_list()
    n_hints = text.splitlines()[0].count(",") + 1
    assert len(text.encode()) <= MAX_BYTES and n_hints > 1900
    calls = _counted(monkeypatch)
    with pytest.raises(GameError):
        parse_words(text)
    assert calls["fold"] + calls["hint"] <= 4 * (MAX_HINTS + 1), calls


def test_issue29_5_a_full_list_costs_steps_in_proportion_to_its_words(monkeypatch):
    """200 lines of a word and five hints: each word and hint is folded and checked
    a fixed number of times, never against every earlier one."""
    hints = _distinct_hints(5 * 200 + 200)
    lines = [
        f"{hints[i]}: " + ",".join(hints[200 + 5 * i : 205 + 5 * i]) for i in range(200)
    ]
    text = "\n".join(lines)
    assert len(text.encode()) <= MAX_BYTES
    calls = _counted(monkeypatch)
    entries = parse_words(text)
    assert len(entries) == 200 and all(len(e["hints"]) == 5 for e in entries)
    items = 200 * 6
    assert calls["fold"] <= 2 * items and calls["hint"] <= 200 * 5, calls


# ---------------------------------------------------------------- item 10: invisible words

INVISIBLE = {
    "hangul filler U+3164": "\u3164",
    "halfwidth hangul filler U+FFA0": "\uffa0",
    "hangul jungseong filler U+1160": "\u1160",
    "hangul choseong filler U+115F": "\u115f",
    "zero width space U+200B": "\u200b",
    "zero width joiner U+200D": "\u200d",
    "word joiner U+2060": "\u2060",
    "zero width no-break space U+FEFF": "\ufeff",
    "braille blank U+2800": "\u2800",
}


@pytest.mark.parametrize("char", INVISIBLE.values(), ids=list(INVISIBLE))
def test_issue29_10_a_word_of_invisible_characters_only_is_refused(char):
    """Before: U+3164, U+FFA0 and U+1160 count as letters (str.isalnum), so "ㅤㅤ"
    was a word; the card showed an empty word no guess can match."""
    blank = char * 3
    err = _refusal(parse_words, f"gatto\n{blank}\ncane\nleone")
    assert err.code == "words_invisible" and err.detail["line"] == 2
    err = _refusal(parse_words, f"gatto: fusa, {blank}\ncane\nleone")
    assert err.code == "words_invisible" and err.detail["line"] == 1
    err = _refusal(parse_pairs, f"mare, lago\ngatto, {blank}")
    assert err.code == "words_invisible" and err.detail["line"] == 2
    # Inside a visible word it is cleaned away (a blank-looking one becomes a space),
    # as in a name or a clue.
    entries = parse_words(f"gat{char}to: fu{char}sa\ncane\nleone")
    gap = " " if char == "\u2800" else ""
    assert entries[0] == {"word": f"gat{gap}to", "hints": [f"fu{gap}sa"]}


def test_issue29_10_a_word_with_one_visible_letter_among_invisible_ones_is_too_short():
    err = _refusal(parse_words, "gatto\n\u3164a\u3164\ncane\nleone")
    assert err.code == "words_too_short" and err.detail["word"] == "a"


def test_issue29_10_an_invisible_character_does_not_hide_a_duplicate():
    err = _refusal(parse_words, "gatto\ncane\ngat\u3164to")
    assert err.code == "words_duplicate" and err.detail["first"] == 1


# ---------------------------------------------------------------- item 13: hints that hold the word


@pytest.mark.parametrize("text,lang,hint", [
    ("colla: stick, incollare\ncane\nleone", "it", "incollare"),
    ("gatto: fusa, gattone\ncane\nleone", "it", "gattone"),
    ("gatto: supergatto\ncane\nleone", "it", "supergatto"),
    ("pesce rosso: acquario, pesce\ncane\nleone", "it", "pesce"),
    ("chat: chaton\nchien\nlion", "fr", "chaton"),
    ("tea: teas\ndog\nlion", "en", "teas"),
    ("rain: brain\ndog\nlion", "en", "brain"),
])
def test_issue29_13_a_hint_holding_its_word_is_refused(text, lang, hint):
    """002 is silent; the hint is shown to the impostor as written, so a hint that
    holds the word gives it away (before: "incollare" for "colla" was accepted)."""
    err = _refusal(parse_words, text, lang)
    assert err.code == "words_hint_uses_word"
    assert err.detail["line"] == 1 and err.detail["word"] == hint


def test_issue29_13_hints_close_to_the_word_but_not_holding_it_pass():
    entries = parse_words("colla: stick, attaccare\ntè: sete, tazza\npesce rosso: acquario", "it")
    assert [e["hints"] for e in entries] == [["stick", "attaccare"], ["sete", "tazza"], ["acquario"]]
