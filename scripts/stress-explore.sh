#!/usr/bin/env bash
# Builds Stress with the package trait Exploration (the library's locks and
# atomics become sync points of the schedule controller) and explores every
# explorable scenario with each strategy, then measures the self-check's
# broken variants. A forbidden outcome, a deadlock, a leak or a self-check
# that missed its single-step bug fails the run; every forbidden outcome
# prints a schedule that `Stress --replay` reproduces.
#
# Usage: scripts/stress-explore.sh [Stress options...]
#   Default: --iterations 2000 schedules per scenario and strategy. Extra
#   options are passed to Stress (e.g. --filter serial-disposable --seed 42).
# Environment:
#   STRESS_EXPLORE_SCRATCH  build directory (default .build-explore, separate from .build)
#   STRESS_EXPLORE_STRATEGIES  strategies to run (default "random pct exhaustive")
set -euo pipefail
cd "$(dirname "$0")/.."

scratch="${STRESS_EXPLORE_SCRATCH:-.build-explore}"
strategies="${STRESS_EXPLORE_STRATEGIES:-random pct exhaustive}"

echo "== building Stress with --traits Exploration in $scratch"
swift build -c release --traits Exploration --scratch-path "$scratch" --product Stress
binary="$(swift build -c release --traits Exploration --scratch-path "$scratch" --show-bin-path)/Stress"

# shellcheck source=scripts/stress-limit.sh
source "$(dirname "$0")/stress-limit.sh"
stress_default_limit 2000 "$@"

started=$(date +%s)
status=0
for strategy in $strategies; do
    echo "== Stress --explore $strategy ${limit[*]} $*"
    "$binary" --explore "$strategy" "${limit[@]}" "$@" || status=$?
    if [[ $status != 0 ]]; then
        echo "== FAILED: Stress --explore $strategy exited with $status (1: forbidden outcome, deadlock or leak; 2: usage)" >&2
        exit 1
    fi
done
explored=$(date +%s)
echo "== Stress --self-check (real threads, then the detection table)"
"$binary" --self-check --iterations 20000 --detection-runs 5 --detection-seconds 2 || {
    echo "== FAILED: the self-check exited with $?" >&2
    exit 1
}
finished=$(date +%s)
echo "== wall time: exploration $((explored - started)) s, self-check $((finished - explored)) s"
echo "== OK: no forbidden outcome under any strategy; exploration found every broken variant it must"
