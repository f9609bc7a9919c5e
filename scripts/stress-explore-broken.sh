#!/usr/bin/env bash
# Shows that exploration reports a broken library, not only that it finds
# nothing wrong with a correct one. Runs the one build the stress scripts
# share (scripts/stress-build.sh) with the seeded bug `broken-cell` selected
# (SCHEDULERS_MUTANT=broken-cell; Sources/Schedulers/Internal/Mutant.swift):
# it splits the exchange in ScheduledActionPhase.dispose() into a load and a
# store, so a runner's finish() landing between the two is overwritten and
# the action's result is never disposed. Then, for every scheduler that hands
# its actions to a queue, and under each strategy:
#   - `Stress --explore` must fail that scenario with a FORBIDDEN row and
#     print a schedule;
#   - `Stress --replay <schedule> --iterations 100` must reproduce the same
#     forbidden outcome 100 times out of 100;
#   - replayed on the correct library (the same binary, SCHEDULERS_MUTANT
#     unset), the same schedule must be refused (exit 2): it records the
#     build it ran on (exploration+broken-cell), whose split exchange passes
#     one more sync point, so on the correct library it would not follow the
#     recorded steps and its outcome would be no verdict.
# Any other result fails the script.
#
# Usage: scripts/stress-explore-broken.sh
# Environment:
#   STRESS_SCRATCH  build directory (default .build-tsan, separate from .build)
set -euo pipefail
cd "$(dirname "$0")/.."

scenarios=(
    dispose-vs-action.serial-dispatch
    dispose-vs-action.concurrent-dispatch
    dispose-vs-action.operation-queue
    dispose-vs-action.main
    dispose-vs-action.concurrent-main
)
outcome=result-never-disposed

# shellcheck source=scripts/stress-build.sh
source "$(dirname "$0")/stress-build.sh"
stress_build || exit 1
export TSAN_OPTIONS="$stress_tsan_explore${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
broken() { SCHEDULERS_MUTANT=broken-cell "$stress_binary" "$@"; }
correct() { SCHEDULERS_MUTANT= "$stress_binary" "$@"; }

fail() {
    echo "== FAILED: $*" >&2
    exit 1
}

started=$(date +%s)
filter=$(IFS=,; echo "${scenarios[*]}")
for strategy in random pct exhaustive; do
    echo "== Stress --explore $strategy --iterations 2000 --seed 1 --filter $filter (broken library)"
    status=0
    output=$(broken --explore "$strategy" --iterations 2000 --seed 1 --filter "$filter") || status=$?
    [[ $status == 1 ]] || fail "Stress --explore $strategy exited with $status, not 1 (a forbidden outcome)"
    for scenario in "${scenarios[@]}"; do
        block=$(awk -v name="[FAILED] $scenario " 'index($0, name) == 1 { on = 1; print; next } /^\[/ { on = 0 } on' <<<"$output")
        [[ -n "$block" ]] || fail "$scenario was not reported FAILED under $strategy"
        row=$(grep -E "^ +$outcome +FORBIDDEN +[1-9]" <<<"$block") || fail "$scenario: no $outcome row with a count under $strategy"
        schedule=$(grep -oE "Stress --replay '[^']+'" <<<"$block" | head -n 1 | sed -E "s/^Stress --replay '(.*)'$/\1/")
        [[ -n "$schedule" ]] || fail "$scenario: no schedule printed under $strategy"
        echo "   $scenario: $(sed -E 's/ +/ /g' <<<"$row" | cut -d' ' -f2-4); schedule $schedule"

        status=0
        replay=$(broken --replay "$schedule" --iterations 100) || status=$?
        [[ $status == 1 ]] && grep -qE "^ +100 x $outcome \[FORBIDDEN\]" <<<"$replay" \
            || fail "replaying $schedule on the broken library (exit $status): $replay"
        echo "     replayed 100 times on the broken library: 100 x $outcome [FORBIDDEN]"
        status=0
        replay=$(correct --replay "$schedule" --iterations 100) || status=$?
        [[ $status == 2 ]] && grep -q "recorded on a build with exploration+broken-cell" <<<"$replay" \
            || fail "the broken build's schedule on the correct library was not refused (exit $status): $replay"
        echo "     refused on the correct library: recorded on another build"
    done
done
echo "== wall time: $(( $(date +%s) - started )) s after the build"
echo "== OK: exploration reported the broken cell on every hand-off scheduler under every strategy, every schedule replays on its build and is refused on the correct one"
