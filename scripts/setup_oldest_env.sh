#!/usr/bin/env bash
# Create (or update) .venv-oldest: black-maria with every core and test dependency at the
# floor pyproject.toml declares (scripts/floor_pins.py), on the oldest Python it declares
# (3.10), so the fast tests run there show whether the floors really work.
# Python 3.10 is python3.10 on PATH, else pyenv's newest 3.10; PYTHON=/path/to/python overrides.
# scripts/floor_pins.py reads pyproject.toml with tomllib, so python3 must be 3.11 or newer.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PYTHON:-}" ]; then
    if python3.10 -V >/dev/null 2>&1; then
        PYTHON=python3.10
    elif command -v pyenv >/dev/null 2>&1 && v=$(pyenv versions --bare | grep -E '^3\.10\.[0-9]+$' | tail -1) && [ -n "$v" ]; then
        PYTHON="$(pyenv root)/versions/$v/bin/python3.10"
    else
        echo "setup_oldest_env.sh: no Python 3.10 (python3.10 on PATH or a pyenv 3.10); set PYTHON=/path/to/python3.10" >&2
        exit 1
    fi
fi
pins=$(python3 scripts/floor_pins.py)
# shellcheck disable=SC2086  # one pin a word
PYTHON="$PYTHON" exec scripts/setup_extra_env.sh oldest - $pins
