#!/usr/bin/env bash
# Install black-maria as a user does and use it: build the sdist and the wheel from it, install the
# wheel (not editable) into a fresh virtual environment, and from a folder outside the repository run
# the README's Python examples, one watched deal of bm-play (which must name the shipped agent), a
# 4-board bm-eval of the shipped agent by name, a one-update bm-train of a shipped config by name, and
# PettingZoo's own api_test. Every check runs even when one before it fails; the script fails if any did.
# The build uses .venv's python (the test extras hold `build`; PYTHON=/path/to/python overrides);
# torch==2.13.0 goes in first (a bare `pip install torch` may pull a multi-GB CUDA build) and pip's
# cache is reused. KEEP=1 keeps the temporary folder and prints where it is.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
PY=${PYTHON:-$REPO/.venv/bin/python}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bm-wheel.XXXXXX")
if [ -z "${KEEP:-}" ]; then
    trap 'rm -rf "$TMP"' EXIT
else
    echo "check_wheel.sh: working in $TMP"
fi

"$PY" -m build --outdir "$TMP/dist" "$REPO" >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log"; exit 1; }
wheel=$(ls "$TMP"/dist/black_maria-*.whl)
echo "built $(basename "$wheel")"
"$PY" -m venv "$TMP/venv"
V="$TMP/venv/bin"
"$V/python" -m pip install -q --upgrade pip
"$V/python" -m pip install -q "torch==2.13.0"
"$V/python" -m pip install -q "$wheel" || exit 1

mkdir "$TMP/work"
cd "$TMP/work"  # outside the repository: only the installed package is there to import
failed=()
check() {  # check NAME COMMAND...: run it, report it, remember a failure
    local name=$1
    shift
    echo "--- $name"
    if "$@"; then
        echo "--- ok: $name"
    else
        echo "--- FAILED: $name"
        failed+=("$name")
    fi
}

imports_the_installed_package() {
    "$V/python" -c "import bm_env, sys; sys.exit(0 if bm_env.__file__.startswith('$TMP/venv/') else 'bm_env imported from ' + bm_env.__file__)"
}

readme_examples() {
    # The README's ```python blocks, as tests/test_readme.py reads them, each run as its own script.
    awk -v dir="$TMP/work" '/^```python$/ {n++; f=1; next} /^```$/ {f=0} f {print > (dir "/readme_" n ".py")}' \
        "$REPO/README.md"
    local example status=0
    for example in readme_*.py; do
        echo "$example"
        "$V/python" "$example" >"$example.out" 2>&1 || { cat "$example.out"; status=1; }
    done
    [ -e readme_1.py ] || { echo "no Python example found in README.md"; status=1; }
    return $status
}

watch_names_the_shipped_agent() {
    "$V/bm-play" --watch --delay 0 --seed 1 </dev/null >watch.out 2>&1 || { cat watch.out; return 1; }
    grep -F "Watching policy:black_maria_3p (the shipped agent for these rules) in every seat." watch.out
}

eval_of_the_shipped_agent() {
    "$V/bm-eval" --agents policy:black_maria_3p heuristic heuristic --boards 4 --workers 1 --no-progress --out eval \
        || return 1
    grep -q '"spec": "heuristic_v2"' eval/evaluation.json || { echo "evaluation.json does not record heuristic_v2"; return 1; }
}

train_one_update() {
    "$V/bm-train" --config train_quick --set total_decisions=1 --set final_eval_boards=2 --run-dir run --quiet \
        >train.out 2>&1 || { cat train.out; return 1; }
    tail -n 3 train.out
    grep -q "^done: 1 updates" train.out
}

pettingzoo_api_test() {
    "$V/python" -c "from pettingzoo.test import api_test; from bm_env import black_maria_v0; api_test(black_maria_v0.env(), num_cycles=100)"
}

check "bm_env imports from the installed wheel" imports_the_installed_package
check "README examples" readme_examples
check "bm-play --watch names the shipped agent" watch_names_the_shipped_agent
check "bm-eval --agents policy:black_maria_3p heuristic heuristic --boards 4" eval_of_the_shipped_agent
check "bm-train --config train_quick, one update" train_one_update
check "pettingzoo.test.api_test(black_maria_v0.env())" pettingzoo_api_test

if [ ${#failed[@]} -ne 0 ]; then
    printf 'check_wheel.sh: failed: %s\n' "${failed[@]}" >&2
    exit 1
fi
echo "check_wheel.sh: every check passed"
