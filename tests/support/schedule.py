"""How the suite's tests are handed out to pytest-xdist's workers (scripts/test.sh).

`--dist loadgroup` hands out one *unit* at a time: the tests of one xdist_group, or else a
single test. Two things cost time there:

- a module's tests split over two workers set its module-scoped fixtures up twice (a
  server, a browser, a one-phone page loading Pyodide: 20 s and more). So every test
  without a group of its own is grouped with its module: a module is one unit.
- the longest unit handed out last keeps one worker busy while the other idles. So the
  units go out longest first (tests/durations.json: each module's seconds in a whole
  run, written by `pytest --record-durations`), and the workers end on short ones.

xdist sorts units by their number of tests unless told not to (`--no-loadscope-reorder`,
set by tests/conftest.py), which would put a module of a hundred quick unit tests before
a whole browser game.
"""

from __future__ import annotations

import json
from pathlib import Path

TIMES = Path(__file__).resolve().parents[1] / "durations.json"

# A module missing from the table (new since it was written): a guess from its marks.
GUESS_SLOW = 6.0    # seconds a test marked slow takes (a real game, a browser)
GUESS_QUICK = 0.3   # and any other test


def module_of(nodeid: str) -> str:
    """`tests/x/test_y.py` for any test id of that module (an xdist group suffix aside)."""
    return nodeid.split("::", 1)[0]


def group_of(item) -> str | None:
    """The item's explicit xdist_group name, as xdist writes it (several: joined)."""
    names = set()
    for mark in item.iter_markers("xdist_group"):
        names.add(str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")))
    return "_".join(sorted(names)) or None


def load_times(path: Path = TIMES) -> dict[str, float]:
    try:
        return {k: float(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
    except (OSError, ValueError):
        return {}


def estimate(items: list, times: dict[str, float]) -> dict[str, float]:
    """Seconds each module's collected tests are expected to take."""
    per_module: dict[str, list] = {}
    for item in items:
        per_module.setdefault(module_of(item.nodeid), []).append(item)
    out = {}
    for module, its in per_module.items():
        if module in times:
            out[module] = times[module]
        else:
            out[module] = sum(GUESS_SLOW if i.get_closest_marker("slow") else GUESS_QUICK for i in its)
    return out


def longest_first(items: list, times: dict[str, float]) -> list:
    """The items by unit (their xdist group, else their module), the longest unit first;
    each unit's items together and in their own order. A unit's time is the sum of its
    modules' (a group may span modules)."""
    module_time = estimate(items, times)
    units: dict[str, list] = {}
    for item in items:
        units.setdefault(group_of(item) or module_of(item.nodeid), []).append(item)

    def seconds(unit: list) -> float:
        return sum(module_time[m] for m in {module_of(i.nodeid) for i in unit})

    ordered = sorted(units.values(), key=seconds, reverse=True)  # stable: ties keep their order
    return [item for unit in ordered for item in unit]


class Recorder:
    """Each module's seconds in this run (setup, call and teardown of each test), merged
    into tests/durations.json at the end: `pytest --record-durations` after a whole run."""

    def __init__(self, path: Path = TIMES) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report) -> None:
        module = module_of(report.nodeid)
        self.seconds[module] = self.seconds.get(module, 0.0) + report.duration

    def pytest_sessionfinish(self, session) -> None:
        if not self.seconds:
            return
        times = load_times(self.path)
        times.update({m: round(s, 1) for m, s in self.seconds.items()})
        self.path.write_text(json.dumps(dict(sorted(times.items())), indent=1) + "\n", encoding="utf-8")
