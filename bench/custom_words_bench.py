"""The worst a room's own word list costs to check (issue 29, item 5).

    .venv/bin/python bench/custom_words_bench.py [--reps 5] [--before 21b0f62]

A host's `settings` message carries the list (at most `MAX_BYTES` of text) and
the room checks it on its event loop, so the check's worst case is a stall of
every room of the process. This builds the costliest lists that fit the limits,
one shape each (the issue's one line of ~2000 hints, the most words and hints,
short words with long hints, which the inflection check stems, long words,
letters of other scripts, pairs, a stored list), each with fresh random words
per repetition (a hostile host sends a new list each time, so no word-level
cache helps), and times `parse_words` / `parse_pairs` on each: the code of
this tree ("after") and, with `--before REF`, game/custom_words.py as it was
at that commit ("before", loaded from git beside the current game package).

Prints one JSON object: per shape, its size and the outcome (accepted, or the
refusal code) and the median and worst time in milliseconds; the worst shape.
Nothing is asserted (tests/game/test_custom_words_limits.py counts the steps).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from game import custom_words  # noqa: E402
from game.errors import GameError  # noqa: E402
from game.text import warm_up  # noqa: E402

MAX_BYTES = custom_words.MAX_BYTES
LATIN = "abcdefghilmnopqrstuvz"
CYRILLIC = "бвгджзиклмнпрстфхцчшщ"


def _word(rng: random.Random, n: int, letters: str = LATIN) -> str:
    return "".join(rng.choice(letters) for _ in range(n))


def _fill(lines_of, limit: int = MAX_BYTES) -> str:
    """As many lines from the generator as fit in `limit` bytes (and MAX_ENTRIES lines)."""
    out: list[str] = []
    size = 0
    for line in lines_of:
        extra = len(line.encode()) + (1 if out else 0)
        if size + extra > limit or len(out) >= custom_words.MAX_ENTRIES:
            break
        out.append(line)
        size += extra
    return "\n".join(out)


def _endless(make):
    while True:
        yield make()


def shapes(rng: random.Random) -> dict[str, tuple[str, object]]:
    """name -> (kind, value): the lists to time, built with `rng`."""
    used: set[str] = set()

    def w(n: int, letters: str = LATIN, avoid: str = "") -> str:
        """A word not used before in these lists (a duplicate would be refused early),
        nor holding `avoid` (a hint holding its word would be refused)."""
        while (word := _word(rng, n, letters)) in used or (avoid and avoid in word):
            pass
        used.add(word)
        return word

    def line(word: str, hint) -> str:
        return f"{word}: " + ", ".join(hint(word) for _ in range(5))

    one_line_hints = []
    size = len("zz: \ncane\nleone")
    while size + 4 <= MAX_BYTES:
        one_line_hints.append(w(3))
        size += 4
    most = _fill(_endless(lambda: f"{w(3)}: " + ",".join(w(3) for _ in range(5))))
    return {
        # The list: one word and ~2000 hints on one line.
        "one_line_hints": ("words", "zz: " + ",".join(one_line_hints) + "\ncane\nleone"),
        # The most words and hints the limits allow (200 lines of a word and 5 hints).
        "most_items": ("words", most),
        # A short word makes the inflection check stem each longer hint word.
        "short_word_long_hints": ("words", _fill(_endless(
            lambda: line(w(2), lambda word: w(30, avoid=word))))),
        "short_word_phrase_hints": ("words", _fill(_endless(
            lambda: line(w(2), lambda word: " ".join(w(5, avoid=word) for _ in range(5)))))),
        "long_items": ("words", _fill(_endless(
            lambda: f"{w(30)}: " + ", ".join(w(30) for _ in range(5))))),
        # Letters of other scripts take the slow path of cleaning and folding.
        "other_script": ("words", _fill(_endless(
            lambda: f"{w(3, CYRILLIC)}: " + ",".join(w(3, CYRILLIC) for _ in range(5))))),
        "pairs_most": ("pairs", _fill(_endless(lambda: f"{w(3)}, {w(3)}"))),
        "pairs_long": ("pairs", _fill(_endless(lambda: f"{w(30)}, {w(30)}"))),
        # The stored list, checked again at every settings change and game start.
        "stored_list": ("words", custom_words.parse_words(most)),
    }


def _load_before(ref: str):
    """game/custom_words.py at `ref`, as a module of the current game package."""
    try:
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:game/custom_words.py"],
                                check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    spec = importlib.util.spec_from_loader("game._custom_words_before", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "game"
    exec(compile(source, f"{ref}:game/custom_words.py", "exec"), module.__dict__)
    return module


def _run(module, kind: str, value: object) -> tuple[float, str]:
    parse = module.parse_words if kind == "words" else module.parse_pairs
    start = time.perf_counter()
    try:
        parse(value)
        outcome = "accepted"
    except GameError as err:
        outcome = err.code
    return time.perf_counter() - start, outcome


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--before", default="21b0f62",
                    help="the commit whose custom_words.py is timed as 'before' ('' for none)")
    args = ap.parse_args()
    warm_up(("it",))  # as a server does at start-up: dictionaries and tables loaded
    modules = {"after": custom_words}
    before = _load_before(args.before) if args.before else None
    if before is not None:
        modules["before"] = before
    names = list(shapes(random.Random(0)))
    report: dict[str, dict] = {}
    for name in names:
        entry: dict[str, object] = {}
        for label, module in modules.items():
            times, outcome, size = [], "", 0
            for rep in range(args.reps):
                kind, value = shapes(random.Random(rep + 1))[name]
                size = len(value.encode()) if isinstance(value, str) else len(json.dumps(value))
                seconds, outcome = _run(module, kind, value)
                times.append(seconds * 1000)
            entry["bytes"] = size
            entry[label] = {"outcome": outcome, "median_ms": round(statistics.median(times), 2),
                            "max_ms": round(max(times), 2)}
        report[name] = entry
    worst = {label: max(names, key=lambda n: report[n][label]["max_ms"]) for label in modules}
    print(json.dumps({
        "max_bytes": MAX_BYTES, "max_line_bytes": custom_words.MAX_LINE_BYTES,
        "max_hints": custom_words.MAX_HINTS, "reps": args.reps, "before": args.before or None,
        "shapes": report,
        "worst": {label: {"shape": n, "max_ms": report[n][label]["max_ms"]}
                  for label, n in worst.items()},
    }, indent=1))


if __name__ == "__main__":
    main()
