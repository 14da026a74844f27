#!/usr/bin/env bash
# Create (or update) a separate virtual environment .venv-NAME with black-maria, its test
# extras, the optional dependency groups named after NAME and any further pip arguments.
# Integrations whose libraries pin versions the main .venv must not take (RLlib pins
# gymnasium, the oldest-versions run pins everything low) each get their own environment.
#   scripts/setup_extra_env.sh NAME [GROUP,...|-] [PIP_ARGS...]
# torch==2.13.0 is installed first when no torch is present (see scripts/setup_env.sh) and
# PIP_ARGS name no torch version of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
    echo "usage: scripts/setup_extra_env.sh NAME [GROUP,...|-] [PIP_ARGS...]" >&2
    exit 2
fi
name=$1
groups=${2:--}
shift $(( $# >= 2 ? 2 : 1 ))
PY=${PYTHON:-python3}
venv=".venv-$name"
if [ ! -x "$venv/bin/python" ]; then
    "$PY" -m venv "$venv"
fi
VPY="$venv/bin/python"
"$VPY" -m pip install -q --upgrade pip
if ! "$VPY" -c "import torch" >/dev/null 2>&1 && ! printf '%s\n' "$@" | grep -qi '^torch[=<>~!]'; then
    "$VPY" -m pip install -q "torch==2.13.0"
fi
extras="test"
if [ "$groups" != "-" ]; then
    extras="test,$groups"
fi
"$VPY" -m pip install -q -e ".[$extras]" "$@"
