#!/usr/bin/env bash
# Set up the environment (Python packages; Debian's chromium, firefox-esr, and
# webkit2gtk-driver with xvfb for the browser tests of each engine, coturn
# for the TURN credentials test, redis-server for the cluster tests and espeak-ng for
# speech-like test audio) and run the
# whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh test
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v firefox-esr >/dev/null 2>&1 || missing+=(firefox-esr)
command -v WebKitWebDriver >/dev/null 2>&1 || missing+=(webkit2gtk-driver)
command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
command -v turnserver >/dev/null 2>&1 || missing+=(coturn)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing Debian's ${missing[*]} for the browser, TURN, cluster and speech tests"
  # The tests start their own turnserver and redis-server on loopback: a policy-rc.d
  # answering 101 keeps the packages from starting services of their own.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy"
  fi
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null) \
    || echo "warning: ${missing[*]} could not be installed; the tests that need them will fail or skip"
  [ -z "$policy" ] || rm -f "$policy"
  # The packaged services stay off.
  if command -v systemctl >/dev/null 2>&1; then
    systemctl disable --now coturn redis-server >/dev/null 2>&1 || true
  fi
fi
# PulseAudio for the latency bench's Firefox page (and its null-sink test): scripts/bench_setup.sh.
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  ./scripts/bench_setup.sh || echo "warning: pulseaudio could not be installed; its test will skip"
fi
.venv/bin/ruff check .
# Bytecode caches on: every Python process the suite starts (servers, cluster nodes, bots,
# the workers themselves) would otherwise compile the project's sources again, about 0.4 s
# of a core each (__pycache__/ is ignored by git).
unset PYTHONDONTWRITEBYTECODE
# Two stages: every test but the solo ones on SUSSURRO_TEST_WORKERS workers (2 by default;
# with two, about half of two cores' CPU time idles while tests wait on game timers, servers
# and browsers, but on a machine already loaded a third worker starved the real-time voice
# of the e2e bots: seven failures in one run), then the solo ones (real-time voice in several
# browser pages, see tests/conftest.py) one at a time, alone on the machine. A module goes
# to one worker whole, the longest first (tests/support/schedule.py, tests/durations.json).
# Exit status 5 means a stage selected no test (e.g. `-m "not slow"` or one test file).
set +e
start=$(date +%s)
.venv/bin/python -m pytest -n "${SUSSURRO_TEST_WORKERS:-2}" --dist loadgroup -q --solo=skip "$@"; first=$?
middle=$(date +%s)
.venv/bin/python -m pytest -q --solo=only "$@"; second=$?
end=$(date +%s)
echo "stage times: $((middle - start)) s on ${SUSSURRO_TEST_WORKERS:-2} workers, then $((end - middle)) s solo" \
     "($((end - start)) s in all)"
for rc in "$first" "$second"; do
  if [ "$rc" != 0 ] && [ "$rc" != 5 ]; then exit "$rc"; fi
done
if [ "$first" = 5 ] && [ "$second" = 5 ]; then exit 5; fi
exit 0
