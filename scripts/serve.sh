#!/usr/bin/env bash
# Set up the environment and run the server on the embedded default (SQLite): the
# evening's server, reachable from phones on the same network over HTTPS (the join
# address and its QR printed); `--local` for plain http on 127.0.0.1 only (development).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh run
exec .venv/bin/sussurro serve "$@"
