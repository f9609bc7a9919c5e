#!/usr/bin/env bash
# Builds Stress with ThreadSanitizer and runs every scenario, then the
# self-check. Any ThreadSanitizer report stops the run (halt_on_error=1) and
# fails it, as does a forbidden outcome, a leak, or a self-check that caught
# nothing.
#
# Usage: scripts/stress-tsan.sh [Stress options...]
#   Default: --iterations 100000 per scenario. Extra options are passed to
#   Stress (e.g. --filter dispose-bag --seed 42 --csv /tmp/stress.csv).
# Environment:
#   STRESS_TSAN_SCRATCH  build directory (default .build-tsan, separate from .build)
#   STRESS_SELF_CHECK_ITERATIONS  iterations of the self-check (default 100000)
#   STRESS_PACKAGE_PATH  the package whose executable runs (default: this
#                        repository); a user's package that registers its own
#                        schedulers through StressMain, e.g. Examples/MyEventLoop
#   STRESS_PRODUCT       that executable (default Stress), e.g. MyEventLoop
#   STRESS_SUBCOMMAND    the subcommand that runs Stress in that executable, if
#                        it holds both tools (SchedulerToolsMain), e.g. stress
set -euo pipefail
cd "$(dirname "$0")/.."

package_path="${STRESS_PACKAGE_PATH:-.}"
product="${STRESS_PRODUCT:-Stress}"
subcommand=()
[[ -n ${STRESS_SUBCOMMAND:-} ]] && subcommand=("$STRESS_SUBCOMMAND")
scratch="${STRESS_TSAN_SCRATCH:-$package_path/.build-tsan}"
self_check_iterations="${STRESS_SELF_CHECK_ITERATIONS:-100000}"

echo "== building $product ($package_path) with --sanitize=thread in $scratch"
swift build -c release --sanitize=thread --package-path "$package_path" --scratch-path "$scratch" --product "$product"
binary="$(swift build -c release --sanitize=thread --package-path "$package_path" --scratch-path "$scratch" --show-bin-path)/$product"

# atexit_sleep_ms=0: ThreadSanitizer otherwise sleeps a second at every exit,
# and each scenario runs in a process of its own.
tsan_options="halt_on_error=1 exitcode=66 second_deadlock_stack=1 history_size=4 atexit_sleep_ms=0"
# A suppression is allowed only for an upstream cause, named beside it in the file.
if [[ -s scripts/tsan-suppressions.txt ]] && grep -qv '^\s*\(#\|$\)' scripts/tsan-suppressions.txt; then
    tsan_options="$tsan_options suppressions=$PWD/scripts/tsan-suppressions.txt"
fi
export TSAN_OPTIONS="$tsan_options${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
echo "== TSAN_OPTIONS=$TSAN_OPTIONS"

# shellcheck source=scripts/stress-limit.sh
source "$(dirname "$0")/stress-limit.sh"
stress_default_limit 100000 "$@"

started=$(date +%s)
status=0
echo "== $product ${subcommand[*]} ${limit[*]} $*"
"$binary" "${subcommand[@]}" "${limit[@]}" "$@" || status=$?
scenarios_done=$(date +%s)
echo "== $product ${subcommand[*]} --self-check --iterations $self_check_iterations"
self_check_status=0
"$binary" "${subcommand[@]}" --self-check --iterations "$self_check_iterations" || self_check_status=$?
finished=$(date +%s)

echo "== wall time: scenarios $((scenarios_done - started)) s, self-check $((finished - scenarios_done)) s, total $((finished - started)) s"
if [[ $status != 0 ]]; then
    echo "== FAILED: Stress exited with $status (1: forbidden outcome or leak; 66: ThreadSanitizer report)" >&2
    exit 1
fi
if [[ $self_check_status != 0 ]]; then
    echo "== FAILED: the self-check exited with $self_check_status" >&2
    exit 1
fi
echo "== OK: no forbidden outcome, no leak, no ThreadSanitizer report; the self-check caught the broken disposable"
