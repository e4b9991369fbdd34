#!/usr/bin/env bash
# Create .venv (if needed) and install the project; with "test", the test extras too.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.sussurro-installed-$1
# pip builds server/media/_fastrtp.c too (setup.py), where a C compiler is: again when it changes
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ] \
    || [ server/media/_fastrtp.c -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  if [ "${1:-}" = "test" ]; then
    .venv/bin/python -m pip install -q -e '.[test]'
  else
    .venv/bin/python -m pip install -q -e .
  fi
  touch "$stamp"
fi
# The one-phone page's offline files (Pyodide from the npm registry, fetched once; the
# core archive, repacked when game/ changes): offline-build/, served under /offline/.
.venv/bin/python scripts/offline_assets.py \
  || echo "warning: the offline files could not be built; the one-phone page will say so"
# The tests' own tools (axe-core, the accessibility checker of the browser tests):
# test-tools/, fetched once, never served.
if [ "${1:-}" = "test" ]; then
  .venv/bin/python scripts/test_tools.py \
    || echo "warning: axe-core could not be fetched; the screen checks will say so"
fi
