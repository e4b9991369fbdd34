#!/usr/bin/env bash
# Debian packages the benches need beyond the test suite's (scripts/test.sh): PulseAudio's
# daemon, for bench/browser_latency.py's Firefox page. Firefox runs its audio graph on its
# output stream; on a machine with no sound card the bench starts its own PulseAudio with a
# null sink (a private runtime dir, loopback of nothing), whose clock is the system's, so
# the page's audio graph runs in real time. Run once as root (or with the packages there).
set -euo pipefail
missing=()
command -v pulseaudio >/dev/null 2>&1 || missing+=(pulseaudio)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
  echo "bench_setup: install Debian's ${missing[*]} (apt-get, as root)" >&2
  exit 1
fi
echo "installing Debian's ${missing[*]} for bench/browser_latency.py's Firefox page"
# The daemon is started by the bench, never as a service: no recommends (no desktop session
# bits), and a policy-rc.d answering 101 keeps the package from starting anything.
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  policy=/usr/sbin/policy-rc.d
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy"
fi
trap '[ -z "$policy" ] || rm -f "$policy"' EXIT
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
