#!/usr/bin/env bash
# Build the reference: the Markdown pages of docs/ (MyST) and the API reference from the docstrings
# (Sphinx autodoc), into build/docs/. Warnings are errors: a broken cross-reference, a page outside
# every toctree or a public name without a docstring fails the build. Extra arguments go to sphinx-build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_env.sh
.venv/bin/python -m pip install -q -e ".[docs]"
exec .venv/bin/python -m sphinx -b html -W --keep-going -q -c docs "$@" . build/docs
