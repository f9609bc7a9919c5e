#!/usr/bin/env bash
# Builds the unit tests with AddressSanitizer and runs them all: any
# AddressSanitizer report (use after free, overflow, use after return...), any
# leak LeakSanitizer finds when a test process exits (scripts/lsan-suppressions.txt
# lists the toolchain's own leaks it ignores, each with its cause), any
# undefined behaviour in C code, or any failing test fails the run.
#
# UndefinedBehaviorSanitizer: Swift 6.3's compiler rejects -sanitize=undefined
# on Linux ("unsupported option '-sanitize=undefined' for target
# 'x86_64-unknown-linux-gnu'", alone or with address), so `swift build
# --sanitize=undefined` cannot build this package; Swift code gets its own
# overflow, bounds and exclusivity traps in every debug build instead. The C
# code (the package's C targets and its dependencies') is built with
# -fsanitize=undefined in the same build as AddressSanitizer, whose runtime
# carries UndefinedBehaviorSanitizer's handlers; one build, not two.
#
# Tests that cannot run meaningfully under a sanitizer skip themselves and say
# why: exact allocation counts (AddressSanitizer owns malloc, so the test
# process's counting wrappers are left out; CAllocationCounter).
#
# Usage: scripts/test-sanitizers.sh [swift test options...]
#   e.g. --filter CurrentThreadSchedulerTests
# Environment:
#   SANITIZERS_SCRATCH  build directory (default .build-asan, separate from .build)
set -euo pipefail
cd "$(dirname "$0")/.."

scratch="${SANITIZERS_SCRATCH:-.build-asan}"
flags=(
    --sanitize=address
    --scratch-path "$scratch"
    -Xcc -fsanitize=undefined
    -Xcc -fno-sanitize-recover=undefined
)

# Defaults spelled out, so a change of defaults cannot drop a check silently.
# A suppression is allowed only for an upstream cause, named beside it in the file.
export ASAN_OPTIONS="detect_leaks=1 detect_stack_use_after_return=1 halt_on_error=1${ASAN_OPTIONS:+ $ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt print_suppressions=0${LSAN_OPTIONS:+ $LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1${UBSAN_OPTIONS:+ $UBSAN_OPTIONS}"
echo "== ASAN_OPTIONS=$ASAN_OPTIONS"
echo "== LSAN_OPTIONS=$LSAN_OPTIONS"
echo "== UBSAN_OPTIONS=$UBSAN_OPTIONS"

# SANITIZERS_PHASE=build builds and stops; =test runs the tests of a build
# made before (CI builds beside other work, then tests); default: both.
phase="${SANITIZERS_PHASE:-all}"
[[ $phase == all || $phase == build || $phase == test ]] || {
    echo "SANITIZERS_PHASE=$phase: give build, test or all" >&2
    exit 2
}
started=$(date +%s)
if [[ $phase != test ]]; then
    echo "== swift build --build-tests ${flags[*]}"
    swift build --build-tests "${flags[@]}"
fi
built=$(date +%s)
if [[ $phase == build ]]; then
    echo "== wall time: build $((built - started)) s"
    exit 0
fi

status=0
echo "== swift test --skip-build ${flags[*]} $*"
swift test --skip-build "${flags[@]}" "$@" || status=$?
finished=$(date +%s)

echo "== wall time: build $((built - started)) s, tests $((finished - built)) s, total $((finished - started)) s"
if [[ $status != 0 ]]; then
    echo "== FAILED: swift test exited with $status under AddressSanitizer (a failing test, or a sanitizer report above: search for 'ERROR: AddressSanitizer', 'ERROR: LeakSanitizer' or 'runtime error')" >&2
    exit 1
fi
echo "== OK: every unit test passed under AddressSanitizer and LeakSanitizer, C code under UndefinedBehaviorSanitizer"
