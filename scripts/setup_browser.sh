#!/usr/bin/env bash
# Set up the browser tests (pytest -m browser): Debian's chromium and chromium-driver where
# they are missing (apt-get, so run as root, as CI does), and selenium into .venv (the
# project's optional "browser" extras). The tests use /usr/bin/chromium and
# /usr/bin/chromedriver, and fail with a message when chromium cannot start.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_env.sh
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver
fi
.venv/bin/python -m pip install -q -e ".[test,browser]"
