#!/usr/bin/env bash
# Set up the environment (Python packages; Debian's chromium for browser tests and
# coturn for the TURN credentials test) and run the whole test suite. Extra arguments
# go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh test
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v turnserver >/dev/null 2>&1 || missing+=(coturn)
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing Debian's ${missing[*]} for the browser and TURN tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null) \
    || echo "warning: ${missing[*]} could not be installed; the tests that need them will fail or skip"
  # The tests start their own turnserver on loopback; the packaged service stays off.
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now coturn >/dev/null 2>&1 || true; fi
fi
.venv/bin/ruff check .
exec .venv/bin/python -m pytest -n 2 --dist loadgroup -q "$@"
