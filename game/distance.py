"""Typo distance between two words, in pure Python (the core also runs under Pyodide)."""

from __future__ import annotations


def typo_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: the fewest insertions, deletions,
    substitutions and swaps of two neighbouring letters turning `a` into `b`
    (each counts one; no letter is edited twice): "tirge" is one typo from
    "tigre", where plain Levenshtein distance counts two.
    """
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    # Three rows of the dynamic-programming table: two back for the swap.
    before: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            best = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, before[j - 2] + 1)
            cur[j] = best
        before, prev = prev, cur
    return prev[len(b)]
