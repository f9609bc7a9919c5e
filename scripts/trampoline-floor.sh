#!/usr/bin/env bash
# The floor under a trampolined `schedule` that keeps the contract of
# `CurrentThreadScheduler.schedule`, without the Schedulers library:
# scripts/trampoline-floor/main.swift, built with swiftc -O beside
# BenchRunner's chain state, runs the chain of BenchRunner's
# `trampoline.recursion` (each level queues the next) on a bare
# closure queue (`closure-queue`), on the least queue that keeps the
# contract for one state type (`contract`: the action returns a disposable,
# queuing returns one that can skip the action from any thread, an entry no
# disposable refers to any more is reused), and on the same for entries of
# any state type in one queue (`contract.any-state`, which a thread's shared
# trampoline must hold), with its queue inlined into `schedule` or reached
# through a call (`contract.any-state.queue-out-of-line`, as a library's
# inlined `schedule` reaches a queue whose fields stay behind non-inlined
# methods). None of them looks its queue up per thread.
#
# What it tells: how far above a closure queue the least trampoline we know
# that keeps the contract stays; BenchRunner's `current-thread` held against
# `reference.closure-queue` is read against it. Prints
# instructions per level (callgrind, one chain of --levels levels per
# variant), then ns per level over rounds that interleave the variants,
# each over the closure queue of its round. Needs valgrind (`apt-get install
# -y valgrind`); takes about a minute.
#
# Usage: scripts/trampoline-floor.sh [--levels N] [--time-levels N] [--rounds N] [--output FILE]
#   --levels N       levels of each counted chain (default 1000000)
#   --time-levels N  levels of each timed chain (default 10000000)
#   --rounds N       timed rounds of every variant after one warm-up (default 9)
#   --output FILE    also write everything printed to FILE
set -euo pipefail
cd "$(dirname "$0")/.."

levels=1000000
time_levels=10000000
rounds=9
output=""
while [ $# -gt 0 ]; do
    case "$1" in
        --levels) levels="${2:?--levels needs a number}"; shift 2 ;;
        --time-levels) time_levels="${2:?--time-levels needs a number}"; shift 2 ;;
        --rounds) rounds="${2:?--rounds needs a number}"; shift 2 ;;
        --output) output="${2:?--output needs a file}"; shift 2 ;;
        -h|--help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
        *) echo "trampoline-floor: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for value in "$levels" "$time_levels" "$rounds"; do
    case "$value" in
        ''|*[!0-9]*|0) echo "trampoline-floor: --levels, --time-levels and --rounds take a whole number above 0, not '$value'" >&2; exit 2 ;;
    esac
done
if ! command -v valgrind >/dev/null; then
    echo "trampoline-floor: valgrind is not installed; install it with: apt-get install -y valgrind" >&2
    exit 2
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
report="$out/report.txt"
# BenchRunner's chain state, the lines between its two marks, as a file of
# this program's.
chain_source=Sources/BenchKit/Benchmarks/TrampolineBenchmark.swift
{
    echo "extension TrampolineBenchmark {"
    sed -n '/\/\/ trampoline-floor: begin/,/\/\/ trampoline-floor: end/p' "$chain_source"
    echo "}"
} >"$out/Chain.swift"
grep -q 'final class Chain' "$out/Chain.swift" || {
    echo "trampoline-floor: $chain_source has no chain between its trampoline-floor marks" >&2
    exit 1
}
swiftc -O -wmo -swift-version 6 scripts/trampoline-floor/main.swift "$out/Chain.swift" -o "$out/trampoline-floor"

echo "instructions per level (callgrind, inside one chain of $levels levels):" | tee -a "$report"
floor=""
# The program lists its variants, the closure queue first: each count is
# divided by the first.
for variant in $("$out/trampoline-floor" list); do
    valgrind --tool=callgrind --callgrind-out-file="$out/$variant.cg" --toggle-collect='*runChain*' \
        "$out/trampoline-floor" count "$variant" "$levels" >"$out/$variant.stdout" 2>"$out/$variant.log" </dev/null || {
        echo "trampoline-floor: valgrind failed for $variant:" >&2
        tail -n 20 "$out/$variant.log" >&2
        exit 1
    }
    total=$(grep -E '^(summary|totals):' "$out/$variant.cg" | head -n 1 | awk '{print $2}')
    per_level=$(awk -v total="$total" -v levels="$levels" 'BEGIN { printf "%.1f", total / levels }')
    [ -n "$floor" ] || floor=$per_level
    awk -v variant="$variant" -v per="$per_level" -v floor="$floor" \
        'BEGIN { printf "  %-38s %7.1f   %5.3f× closure-queue\n", variant, per, per / floor }' | tee -a "$report"
done
echo "" | tee -a "$report"
"$out/trampoline-floor" time "$time_levels" "$rounds" | tee -a "$report"

if [ -n "$output" ]; then
    # shellcheck source=scripts/report-file.sh
    source scripts/report-file.sh  # the working directory is the repository root
    write_report trampoline-floor "$(nproc) cores, $(swift --version 2>&1 | head -1)" "$report" "$output"
fi
