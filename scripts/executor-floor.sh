#!/usr/bin/env bash
# The floor under an actor executor that runs its jobs through Dispatch,
# without the Schedulers library: scripts/executor-floor/main.swift, built
# with swiftc -O, sends each element as a task isolated to an actor (the
# hop of BenchRunner's `actor-executor` and `peer.actor`) on the runtime's
# default executor and on the least batching executor there is
# (BenchRunner's `peer.dispatch-executor`, whose file it builds in), whose
# batch block runs on a serial queue of its own, on a serial queue
# targeting the global concurrent queue, or on the global concurrent queue
# itself. Rounds interleave the variants, and each executor is divided by
# the default actor of its round.
#
# What it tells: how much of the gap between `actor-executor` and
# `peer.actor` in BenchRunner's summary any executor that must run its jobs
# on a serial dispatch queue pays, whatever its own code. Takes a minute or
# two.
#
# Usage: scripts/executor-floor.sh [--elements N] [--rounds N] [--output FILE]
#   --elements N   tasks per flood (default 200000)
#   --rounds N     rounds of every variant after one warm-up (default 15)
#   --output FILE  also write everything printed to FILE
set -euo pipefail
cd "$(dirname "$0")/.."

elements=200000
rounds=15
output=""
while [ $# -gt 0 ]; do
    case "$1" in
        --elements) elements="${2:?--elements needs a number}"; shift 2 ;;
        --rounds) rounds="${2:?--rounds needs a number}"; shift 2 ;;
        --output) output="${2:?--output needs a file}"; shift 2 ;;
        -h|--help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
        *) echo "executor-floor: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for value in "$elements" "$rounds"; do
    case "$value" in
        ''|*[!0-9]*|0) echo "executor-floor: --elements and --rounds take a whole number above 0, not '$value'" >&2; exit 2 ;;
    esac
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swiftc -O -wmo -swift-version 6 scripts/executor-floor/main.swift \
    Sources/BenchKit/Benchmarks/Concurrency/LeastDispatchExecutor.swift -o "$out/executor-floor"
"$out/executor-floor" "$elements" "$rounds" | tee "$out/report.txt"

if [ -n "$output" ]; then
    # shellcheck source=scripts/report-file.sh
    source scripts/report-file.sh  # the working directory is the repository root
    write_report executor-floor "$rounds rounds of $elements tasks per variant, $(nproc) cores, $(swift --version 2>&1 | head -1)" \
        "$out/report.txt" "$output"
fi
