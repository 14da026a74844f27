#!/usr/bin/env bash
# The main job of the README: set up .venv (scripts/setup_env.sh) and train a Black Maria agent
# with configs/train_quick.yaml (under 10 minutes on 2 cores), ending with its evaluation table
# against random and heuristic_v1 players and the TensorBoard path. Extra arguments go to bm-train,
# e.g. `scripts/train.sh --config configs/black_maria_3p.yaml` for the shipped agent's run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup_env.sh
has_config=0
for arg in "$@"; do
    case "$arg" in --config|--config=*|--resume|--resume=*) has_config=1 ;; esac
done
if [ "$has_config" -eq 0 ]; then
    set -- --config configs/train_quick.yaml "$@"
fi
exec .venv/bin/bm-train "$@"
