#!/usr/bin/env bash
# Counts the instructions of the trampoline's chains with callgrind: one
# quick, single-repetition run of `trampoline.recursion` under valgrind,
# collecting only inside each variant's chain function, then instructions
# per level = the chain's inclusive instructions / the levels it ran
# (warm-up chain, timed chain and counting chains of the quick suite).
#
# Instruction counts repeat to a fraction of a percent on a shared machine,
# where times do not: a whole-chain profile beside the gated per-level
# counts of Performance.md's "Instruction counts". Needs valgrind
# (`apt-get install -y valgrind`); takes a few minutes.
#
# Usage: scripts/callgrind-trampoline.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
    echo "callgrind-trampoline: valgrind is not installed; install it with: apt-get install -y valgrind" >&2
    exit 2
fi

swift build -c release --product BenchRunner >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A copy without DWARF: this valgrind cannot read the toolchain's debug
# information (it gives up on the binary); the symbol table stays, which is
# all --toggle-collect needs.
binary="$out/BenchRunner"
objcopy --strip-debug "$(swift build -c release --show-bin-path)/BenchRunner" "$binary"

count() { # variant, function pattern, levels run
    local variant=$1 pattern=$2 levels=$3
    valgrind --tool=callgrind --callgrind-out-file="$out/$variant.cg" --toggle-collect="$pattern" \
        "$binary" --quick --repetitions 1 --allocator system --filter "trampoline.recursion/$variant" \
        --output "$out" >"$out/$variant.stdout" 2>"$out/$variant.log" </dev/null ||
        # Under valgrind the plain-recursion probe cannot start its child
        # process (valgrind holds descriptors the spawn closes); the probe is
        # not what is counted here, and the chains ran before it failed.
        grep -q 'plain recursion probe: cannot start' "$out/$variant.log" || {
        echo "callgrind-trampoline: valgrind failed for $variant:" >&2
        tail -n 20 "$out/$variant.log" >&2
        exit 1
    }
    local total
    total=$(grep -E '^(summary|totals):' "$out/$variant.cg" | head -n 1 | awk '{print $2}')
    awk -v total="$total" -v levels="$levels" -v variant="$variant" \
        'BEGIN { printf "%-28s %15.0f instructions / %d levels = %.1f per level\n", variant, total, levels, total / levels }'
}

# Quick suite: 10,000,000 levels per timed chain; warm-up depth/10 (nested)
# or depth/100 (recursive); counting chains are not run with --allocator system.
count current-thread '*TrampolineBenchmark*runChain*' $((10000000 + 1000000))
count current-thread.recursive '*TrampolineBenchmark*runRecursiveChain*' $((10000000 + 100000))
