#!/usr/bin/env bash
# The test command of the README: set up .venv (scripts/setup_env.sh) and run the tests.
# Skipped tests print their reason (-rs). Extra arguments go to pytest, e.g. `scripts/test.sh -m slow` for the long checks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_env.sh
exec .venv/bin/python -m pytest -n 2 -q -rs "$@"
