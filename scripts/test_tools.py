#!/usr/bin/env python3
"""Fetch the tools only the tests use (never served to players): axe-core.

    python scripts/test_tools.py            # fetch what is missing (once)
    python scripts/test_tools.py --check    # say what is there, change nothing

Writes `test-tools/` (ignored by git). axe-core's `axe.min.js` is taken from the npm
package `axe-core` (registry.npmjs.org) with Python alone, its tarball's sha512
checked against the registry's `dist.integrity` and the value pinned below, as
scripts/offline_assets.py does for Pyodide. The browser tests inject it into the
page under test (tests/browser/screens_check.py) and fail, naming this script,
when it is missing.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tarfile
from pathlib import Path

from offline_assets import npm_tarball  # scripts/ is on the path: run as a script

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(os.environ.get("SUSSURRO_TEST_TOOLS") or ROOT / "test-tools")

# The one place axe-core's version is pinned (with the registry's sha512 of its tarball).
AXE_VERSION = "4.14.1"
AXE_INTEGRITY = (
    "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
)


def axe_path() -> Path:
    return OUT / f"axe-core-{AXE_VERSION}" / "axe.min.js"


def fetch_axe() -> Path:
    """The pinned axe-core's `axe.min.js` in `test-tools/axe-core-<v>/` (fetched once)."""
    dest = axe_path()
    if dest.is_file():
        return dest
    blob = npm_tarball("axe-core", AXE_VERSION, AXE_INTEGRITY, who="test tools")
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        src = tar.extractfile(tar.getmember("package/axe.min.js"))
        assert src is not None
        data = src.read()
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, dest)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report what is there, change nothing")
    args = ap.parse_args(argv)
    if args.check:
        ok = axe_path().is_file()
        print(f"axe-core {AXE_VERSION}: {'present' if ok else 'missing'} ({axe_path()})")
        return 0 if ok else 1
    path = fetch_axe()
    print(f"test tools: axe-core {AXE_VERSION} in {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
