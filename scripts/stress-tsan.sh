#!/usr/bin/env bash
# Runs every Stress scenario on real threads under ThreadSanitizer, then the
# harness's self-check. Any ThreadSanitizer report stops the run
# (halt_on_error=1) and fails it, as does a forbidden outcome, a leak, or a
# self-check that caught nothing.
#
# This repository's Stress runs from the one build the stress scripts share
# (scripts/stress-build.sh: ThreadSanitizer, the trait Exploration and the
# seeded bugs, none of them selected here: SCHEDULERS_MUTANT is unset, so the
# library is the correct one); so does the example package's (its root). A
# user's package (STRESS_PACKAGE_PATH) is built with ThreadSanitizer alone.
#
# Usage: scripts/stress-tsan.sh [Stress options...]
#   Default: --iterations 100000 per scenario. Extra options are passed to
#   Stress (e.g. --filter dispose-bag --seed 42 --csv /tmp/stress.csv).
# Environment:
#   STRESS_SCRATCH       build directory of this repository's Stress (default .build-tsan)
#   STRESS_TSAN_SCRATCH  build directory of a user's package (default <package>/.build-tsan)
#   STRESS_SELF_CHECK_ITERATIONS  iterations of the self-check (default 100000; 0 skips
#                        it, for a second run of the same harness)
#   STRESS_PACKAGE_PATH  the package whose executable runs (default: this
#                        repository); a user's package that registers its own
#                        schedulers through StressMain, e.g. Examples/MyEventLoop
#   STRESS_PRODUCT       that executable (default Stress), e.g. MyEventLoopStress
#   STRESS_SUBCOMMAND    the subcommand that runs Stress in that executable, if
#                        it holds both tools (SchedulerToolsMain), e.g. stress
set -euo pipefail
cd "$(dirname "$0")/.."

package_path="${STRESS_PACKAGE_PATH:-.}"
product="${STRESS_PRODUCT:-Stress}"
subcommand=()
[[ -n ${STRESS_SUBCOMMAND:-} ]] && subcommand=("$STRESS_SUBCOMMAND")
self_check_iterations="${STRESS_SELF_CHECK_ITERATIONS:-100000}"

# shellcheck source=scripts/stress-build.sh
source "$(dirname "$0")/stress-build.sh"
if [[ $package_path == . && $product == Stress ]]; then
    stress_build || exit 1
    binary=$stress_binary
    unset SCHEDULERS_MUTANT
elif [[ $package_path -ef $stress_root && -z ${STRESS_TSAN_SCRATCH:-} ]]; then
    # The example: its executables are in the shared stress build.
    stress_build "$product" || exit 1
    binary=$stress_binary
    unset SCHEDULERS_MUTANT
else
    scratch="${STRESS_TSAN_SCRATCH:-$package_path/.build-tsan}"
    echo "== building $product ($package_path) with --sanitize=thread in $scratch"
    swift build -c release --sanitize=thread --package-path "$package_path" --scratch-path "$scratch" --product "$product"
    binary="$(swift build -c release --sanitize=thread --package-path "$package_path" --scratch-path "$scratch" --show-bin-path)/$product"
fi
export TSAN_OPTIONS="$stress_tsan_real${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
echo "== TSAN_OPTIONS=$TSAN_OPTIONS"

# shellcheck source=scripts/stress-limit.sh
source "$(dirname "$0")/stress-limit.sh"
stress_default_limit 100000 "$@"

started=$(date +%s)
status=0
echo "== $product ${subcommand[*]} ${limit[*]} $*"
"$binary" "${subcommand[@]}" "${limit[@]}" "$@" || status=$?
scenarios_done=$(date +%s)
self_check_status=0
if [[ $self_check_iterations != 0 ]]; then
    echo "== $product ${subcommand[*]} --self-check --iterations $self_check_iterations"
    "$binary" "${subcommand[@]}" --self-check --iterations "$self_check_iterations" || self_check_status=$?
fi
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
if [[ $self_check_iterations == 0 ]]; then
    echo "== OK: no forbidden outcome, no leak, no ThreadSanitizer report (self-check skipped: STRESS_SELF_CHECK_ITERATIONS=0)"
else
    echo "== OK: no forbidden outcome, no leak, no ThreadSanitizer report; the self-check caught the broken disposable"
fi
