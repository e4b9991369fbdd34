#!/usr/bin/env bash
# Set up the environment and run the server on the embedded default (SQLite).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh run
exec .venv/bin/sussurro serve "$@"
