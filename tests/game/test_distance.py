"""RULES.md: a guess tolerates small typos, "two neighbouring letters swapped count as
one typo" (issue 8: a swap counted two). game/distance.py replaces rapidfuzz, so the
core stays pure Python for Pyodide.
"""

from __future__ import annotations

from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from game.distance import typo_distance


def osa_by_definition(a: str, b: str) -> int:
    """The optimal string alignment distance by its recursive definition."""

    @cache
    def d(i: int, j: int) -> int:
        if i == 0 or j == 0:
            return i + j
        best = min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] != b[j - 1]))
        if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
            best = min(best, d(i - 2, j - 2) + 1)
        return best

    return d(len(a), len(b))


def test_a_swap_of_neighbouring_letters_is_one_typo():
    assert typo_distance("tigre", "tirge") == 1
    assert typo_distance("gatto", "gtato") == 1
    assert typo_distance("ab", "ba") == 1


def test_insertions_deletions_and_substitutions_count_one_each():
    assert typo_distance("gatto", "gatto") == 0
    assert typo_distance("gato", "gatto") == 1
    assert typo_distance("gatto", "gatti") == 1
    assert typo_distance("", "abc") == 3
    assert typo_distance("kitten", "sitting") == 3
    # No letter is edited twice: "ca" -> "abc" is three edits, not two.
    assert typo_distance("ca", "abc") == 3


@given(st.text("abcd", max_size=7), st.text("abcd", max_size=7))
def test_typo_distance_is_the_optimal_string_alignment(a, b):
    assert typo_distance(a, b) == osa_by_definition(a, b) == typo_distance(b, a)
