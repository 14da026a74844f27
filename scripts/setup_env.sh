#!/usr/bin/env bash
# Create .venv if there is none and install black-maria with its test and export extras into it.
# torch==2.13.0 is installed first when no torch is present: a bare `pip install torch`
# (or a range admitting newer releases) would pull a multi-GB CUDA build, while 2.13.0
# is a CPU build on the machines this project is developed and tested on.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
VPY=.venv/bin/python
"$VPY" -m pip install -q --upgrade pip
if ! "$VPY" -c "import torch" >/dev/null 2>&1; then
    "$VPY" -m pip install -q "torch==2.13.0"
fi
"$VPY" -m pip install -q -e ".[test,export]"
