#!/usr/bin/env bash
# Set up the environment (Python packages, Debian's chromium for browser tests)
# and run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh test
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing Debian's chromium for the browser tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "warning: chromium could not be installed; browser tests will fail"
fi
.venv/bin/ruff check .
exec .venv/bin/python -m pytest -n 2 --dist loadgroup -q "$@"
