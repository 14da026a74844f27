#!/usr/bin/env bash
# The main job of the README: set up .venv (scripts/setup_env.sh) and run bm-demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_env.sh
exec .venv/bin/bm-demo "$@"
