#!/usr/bin/env bash
# Explores every explorable scenario with each strategy (the library's locks
# and atomics are sync points of the schedule controller: the package trait
# Exploration), then measures the self-check's broken variants. A forbidden
# outcome, a deadlock, a leak or a self-check that missed its single-step bug
# fails the run; every forbidden outcome prints a schedule that
# `Stress --replay` reproduces.
#
# Stress runs from the one build the stress scripts share
# (scripts/stress-build.sh), with no seeded bug selected (SCHEDULERS_MUTANT
# unset): the correct library. ThreadSanitizer's reports are off here
# (report_bugs=0, see stress-build.sh); the real-thread runs of
# scripts/stress-tsan.sh are the ones it judges.
#
# Usage: scripts/stress-explore.sh [Stress options...]
#   Default: --iterations 2000 schedules per scenario and strategy. Extra
#   options are passed to Stress (e.g. --filter serial-disposable --seed 42).
# Environment:
#   STRESS_SCRATCH  build directory (default .build-tsan, separate from .build)
#   STRESS_EXPLORE_STRATEGIES  strategies to run (default "random pct exhaustive")
#   STRESS_EXPLORE_JOBS        strategies run at once (default: the cores)
#   STRESS_EXPLORE_SELF_CHECK  0 skips the self-check (CI: scripts/stress-tsan.sh
#                              ran the same one on the same binary)
set -euo pipefail
cd "$(dirname "$0")/.."

strategies="${STRESS_EXPLORE_STRATEGIES:-random pct exhaustive}"
self_check="${STRESS_EXPLORE_SELF_CHECK:-1}"
parallel="${STRESS_EXPLORE_JOBS:-$(nproc)}"
[[ $parallel =~ ^[1-9][0-9]*$ ]] || { echo "STRESS_EXPLORE_JOBS=$parallel: give a positive number" >&2; exit 2; }

# shellcheck source=scripts/stress-build.sh
source "$(dirname "$0")/stress-build.sh"
stress_build || exit 1
binary=$stress_binary
unset SCHEDULERS_MUTANT
export TSAN_OPTIONS="$stress_tsan_explore${TSAN_OPTIONS:+ $TSAN_OPTIONS}"

# shellcheck source=scripts/stress-limit.sh
source "$(dirname "$0")/stress-limit.sh"
stress_default_limit 2000 "$@"

# The strategies run side by side, STRESS_EXPLORE_JOBS at a time (default:
# the cores): an explored run lets one thread go at a time, so it keeps
# less than one core busy, and its outcomes depend on its schedules alone,
# never on how fast it runs. Each strategy's output is printed whole, in
# order, when it ends.
outputs=$(mktemp -d)
trap 'rm -rf "$outputs"' EXIT
started=$(date +%s)
pids=()
names=()
for strategy in $strategies; do
    while (( $(jobs -rp | wc -l) >= parallel )); do wait -n || true; done
    ( "$binary" --explore "$strategy" "${limit[@]}" "$@" >"$outputs/$strategy.txt" 2>&1 ) &
    pids+=($!)
    names+=("$strategy")
done
failed=()
for i in "${!pids[@]}"; do
    strategy=${names[i]}
    strategy_status=0
    wait "${pids[i]}" || strategy_status=$?
    echo "== Stress --explore $strategy ${limit[*]} $*"
    cat "$outputs/$strategy.txt"
    if [[ $strategy_status != 0 ]]; then
        echo "== FAILED: Stress --explore $strategy exited with $strategy_status (1: forbidden outcome, deadlock or leak; 2: usage)" >&2
        failed+=("$strategy")
    fi
done
[[ ${#failed[@]} == 0 ]] || exit 1
explored=$(date +%s)
if [[ $self_check == 0 ]]; then
    echo "== wall time: exploration $((explored - started)) s (self-check skipped: STRESS_EXPLORE_SELF_CHECK=0)"
    echo "== OK: no forbidden outcome under any strategy"
    exit 0
fi
echo "== Stress --self-check (real threads, then the detection table)"
"$binary" --self-check --iterations 20000 --detection-runs 5 --detection-seconds 2 || {
    echo "== FAILED: the self-check exited with $?" >&2
    exit 1
}
finished=$(date +%s)
echo "== wall time: exploration $((explored - started)) s, self-check $((finished - explored)) s"
echo "== OK: no forbidden outcome under any strategy; exploration found every broken variant it must"
