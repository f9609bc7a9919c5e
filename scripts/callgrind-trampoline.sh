#!/usr/bin/env bash
# Counts the instructions of the trampoline's chains with callgrind: one
# quick, single-repetition run of `trampoline.recursion` under valgrind per
# variant, collecting only inside each variant's chain function, then
# instructions per level = the chain's inclusive instructions / the levels
# it ran (warm-up chain and timed chain of the quick suite).
#
# Instruction counts repeat to a fraction of a percent on a shared machine,
# where times do not: a whole-chain profile beside the gated per-level
# counts of Performance.md's "Instruction counts". Then, for the nested
# `schedule` chain and the closure queue it is held against, where a level's
# instructions go: each function's own (self) instructions per level, the
# runtime's reference counting and existential destruction included, so the
# two can be read side by side. Needs valgrind (`apt-get install -y
# valgrind`); takes a few minutes.
#
# Usage: scripts/callgrind-trampoline.sh [--output FILE]
#   --output FILE  also write everything printed to FILE
set -euo pipefail
cd "$(dirname "$0")/.."

output=""
while [ $# -gt 0 ]; do
    case "$1" in
        --output) output="${2:?--output needs a file}"; shift 2 ;;
        -h|--help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
        *) echo "callgrind-trampoline: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

if ! command -v valgrind >/dev/null; then
    echo "callgrind-trampoline: valgrind is not installed; install it with: apt-get install -y valgrind" >&2
    exit 2
fi

swift build -c release --product BenchRunner >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
report="$out/report.txt"
# A copy without DWARF: this valgrind cannot read the toolchain's debug
# information (it gives up on the binary); the symbol table stays, which is
# all --toggle-collect needs.
binary="$out/BenchRunner"
objcopy --strip-debug "$(swift build -c release --show-bin-path)/BenchRunner" "$binary"

declare -A levels_run # variant -> the levels its chains ran, for breakdown
count() { # variant, function pattern, levels run
    local variant=$1 pattern=$2 levels=$3
    levels_run[$variant]=$levels
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
        'BEGIN { printf "%-28s %15.0f instructions / %d levels = %.1f per level\n", variant, total, levels, total / levels }' |
        tee -a "$report"
}

breakdown() { # variant counted above: each function's self instructions per level, largest first
    local variant=$1 levels=${levels_run[$1]}
    echo "" | tee -a "$report"
    echo "$variant: self instructions per level, by function (1 or more per level)" | tee -a "$report"
    callgrind_annotate --threshold=100 "$out/$variant.cg" 2>/dev/null |
        awk '$1 ~ /^[0-9,]+$/ && !/PROGRAM TOTALS/ { print }' |
        while read -r count _ place; do
            local name=${place#*:} shown
            name=${name% \[*}
            name=${name%\'[0-9]*} # callgrind's mark of a recursive call
            case "$name" in
                '$s'* | '_$s'*)
                    shown=$(swift demangle --simplified --compact "$name")
                    # A merged function: one body shared by specialisations
                    # that compiled to the same code; it is named after one.
                    case "$name" in *Tm) shown="$shown (merged)" ;; esac ;;
                *) shown=${name%%(*} ;; # the runtime's C and C++ functions, without parameters
            esac
            printf '%s\t%s\n' "${count//,/}" "$shown"
        done |
        # One line per name: a recursive function's levels are one function.
        awk -F '\t' '{ total[$2] += $1 } END { for (name in total) printf "%s\t%s\n", total[name], name }' |
        sort -t "$(printf '\t')" -k1,1 -g -r |
        awk -F '\t' -v levels="$levels" '$1 / levels >= 1 { printf "%8.1f  %s\n", $1 / levels, substr($2, 1, 150) }' |
        tee -a "$report"
}

# Quick suite: 10,000,000 levels per timed chain; warm-up depth/10 (nested)
# or depth/100 (recursive); counting chains are not run with --allocator system.
count current-thread '*TrampolineBenchmark*runChain*' $((10000000 + 1000000))
count current-thread.recursive '*TrampolineBenchmark*runRecursiveChain*' $((10000000 + 100000))
# The reference: one plan at the quick suite's depth, warm-up depth/100.
count reference.closure-queue '*ClosureQueueReference*runChain*' $((10000000 + 100000))

breakdown current-thread
breakdown reference.closure-queue

if [ -n "$output" ]; then
    # shellcheck source=scripts/report-file.sh
    source scripts/report-file.sh  # the working directory is the repository root
    write_report callgrind-trampoline "quick suite, one repetition per variant, system allocator" "$report" "$output"
fi
