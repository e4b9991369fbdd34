"""The order pytest-xdist's workers get the tests in (tests/support/schedule.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import schedule

ROOT = Path(__file__).resolve().parents[1]


class Item:
    """What the schedule reads of a pytest item: its id and its marks."""

    def __init__(self, nodeid: str, slow: bool = False, group: str | None = None) -> None:
        self.nodeid = nodeid
        self.marks = {"slow": [pytest.mark.slow.mark] if slow else [],
                      "xdist_group": [pytest.mark.xdist_group(group).mark] if group else []}

    def get_closest_marker(self, name):
        return (self.marks.get(name) or [None])[0]

    def iter_markers(self, name):
        return iter(self.marks.get(name, []))

    def __repr__(self) -> str:
        return self.nodeid


def ids(items) -> list[str]:
    return [i.nodeid for i in items]


def test_the_longest_unit_goes_first_and_a_module_stays_in_one_piece():
    items = [Item("tests/a.py::t1"), Item("tests/b.py::t1"), Item("tests/a.py::t2"),
             Item("tests/c.py::t1"), Item("tests/c.py::t2")]
    times = {"tests/a.py": 1.0, "tests/b.py": 30.0, "tests/c.py": 5.0}
    assert ids(schedule.longest_first(items, times)) == [
        "tests/b.py::t1", "tests/c.py::t1", "tests/c.py::t2", "tests/a.py::t1", "tests/a.py::t2"]


def test_a_group_spanning_modules_is_one_unit_with_their_summed_time():
    items = [Item("tests/x.py::t", group="cluster"), Item("tests/big.py::t"),
             Item("tests/y.py::t", group="cluster")]
    times = {"tests/x.py": 20.0, "tests/y.py": 20.0, "tests/big.py": 30.0}
    # 40 s of cluster tests together before the 30 s module.
    assert ids(schedule.longest_first(items, times)) == ["tests/x.py::t", "tests/y.py::t", "tests/big.py::t"]


def test_a_module_missing_from_the_table_is_guessed_from_its_marks():
    items = [Item("tests/quick.py::t1"), Item("tests/new.py::t1", slow=True), Item("tests/known.py::t")]
    times = {"tests/known.py": schedule.GUESS_SLOW / 2}
    est = schedule.estimate(items, times)
    assert est == {"tests/quick.py": schedule.GUESS_QUICK, "tests/new.py": schedule.GUESS_SLOW,
                   "tests/known.py": schedule.GUESS_SLOW / 2}
    assert ids(schedule.longest_first(items, times))[0] == "tests/new.py::t1"


def test_the_table_names_only_modules_that_exist():
    times = schedule.load_times()
    assert times, "tests/durations.json is missing or empty"
    missing = [m for m in times if not (ROOT / m).is_file()]
    assert not missing, f"tests/durations.json names modules that are gone: {missing}"


def test_recording_merges_this_runs_modules_into_the_table(tmp_path):
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({"tests/old.py": 3.0, "tests/a.py": 99.0}))
    rec = schedule.Recorder(path)

    class Report:
        def __init__(self, nodeid, duration):
            self.nodeid, self.duration = nodeid, duration

    for nodeid, d in [("tests/a.py::t1@tests/a.py", 1.25), ("tests/a.py::t1@tests/a.py", 2.0),
                      ("tests/b.py::t[x]", 0.5)]:
        rec.pytest_runtest_logreport(Report(nodeid, d))
    rec.pytest_sessionfinish(None)
    assert json.loads(path.read_text()) == {"tests/a.py": 3.2, "tests/b.py": 0.5, "tests/old.py": 3.0}


def test_xdist_keeps_each_module_on_one_worker(tmp_path):
    """Through pytest-xdist itself (two workers, --dist loadgroup, this suite's conftest):
    each test's id carries its module as its group, and a module's tests all run on the
    worker that set its module-scoped fixtures up (one test per unit would send a
    module's second test to the other worker)."""
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    for name in ("test_one.py", "test_two.py"):
        (tmp_path / name).write_text("def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
         "-v", "-o", "addopts=", "--rootdir", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stdout + out.stderr
    workers: dict[str, set[str]] = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\[(gw\d)\] \[\s*\d+%\] PASSED (\S+)", line)
        if m:
            workers.setdefault(m.group(2).split("::")[0], set()).add(m.group(1))
            assert m.group(2).endswith("@" + m.group(2).split("::")[0]), line
    assert set(workers) == {"test_one.py", "test_two.py"}, out.stdout
    assert all(len(w) == 1 for w in workers.values()), workers
