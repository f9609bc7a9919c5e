#!/usr/bin/env bash
# Counts, with callgrind, what `scale.liveSubscriptions/fast-path` does at
# each N: the instructions of its timed flood per delivered element, and the
# instructions of freeing its N sources, per source and spread over the
# flood's deliveries (what the timed window held until the sources were
# kept alive through it; docs/Scale.md, "Live subscriptions").
#
# One single-repetition run per N under valgrind, whole program collected;
# `callgrind_annotate --inclusive=yes` then reads two functions:
# - `LiveSubscriptionScaleBenchmark.timeFlood` for the `Emitter` sources
#   (never inlined): the sending thread's flood, from the first send to the
#   last delivery, waiting included; the drains run on the scheduler's
#   thread and are not in it. Called twice: the warm-up (100 elements at
#   N = 100) and the point (20,000 elements).
# - `Emitter`'s deallocating deinit, with the frees under it: 100 + N
#   sources (the warm-up's and the point's).
#
# Instruction counts repeat on a shared machine where times do not; they
# say nothing of cache misses. Needs valgrind; takes about 20 s at N = 10^5.
#
# Usage: scripts/callgrind-live-subscriptions.sh [N ...]   (default: 1000 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "callgrind-live-subscriptions: valgrind is not installed; install it with: apt-get install -y valgrind" >&2
    exit 2
fi
points=("$@")
if [ ${#points[@]} -eq 0 ]; then points=(1000 10000 100000); fi

swift build -c release --product BenchRunner >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Without DWARF, which this valgrind cannot read; the symbol table stays.
binary="$out/BenchRunner"
objcopy --strip-debug "$(swift build -c release --show-bin-path)/BenchRunner" "$binary"

warmUpDeliveries=100
deliveries=20000
warmUpSources=100
printf '%-8s %22s %24s %26s\n' N "flood instr/delivery" "freeing instr/source" "freeing instr/delivery"
for n in "${points[@]}"; do
    valgrind --tool=callgrind --callgrind-out-file="$out/$n.cg" \
        "$binary" --repetitions 1 --min-repetition-ms 0 --allocator system \
        --filter scale.liveSubscriptions/fast-path --scale-n "$n" --output "$out" \
        >"$out/$n.stdout" 2>"$out/$n.log" </dev/null || {
        echo "callgrind-live-subscriptions: valgrind failed at N=$n:" >&2
        tail -n 20 "$out/$n.log" >&2
        exit 1
    }
    callgrind_annotate --inclusive=yes --threshold=100 "$out/$n.cg" >"$out/$n.txt" 2>/dev/null
    inclusive() { # the first function matching the pattern: its inclusive instructions
        grep -E "$1" "$out/$n.txt" | head -n 1 | awk '{gsub(",", "", $1); print $1}'
    }
    flood=$(inclusive 'timeFlood.*EmitterC')
    freeing=$(inclusive 'EmitterCfD')
    if [ -z "$flood" ] || [ -z "$freeing" ]; then
        echo "callgrind-live-subscriptions: no timeFlood or Emitter deinit in the profile at N=$n" >&2
        exit 1
    fi
    awk -v n="$n" -v flood="$flood" -v freeing="$freeing" -v d=$((deliveries + warmUpDeliveries)) \
        -v s=$((n + warmUpSources)) -v timed="$deliveries" \
        'BEGIN { printf "%-8d %22.1f %24.1f %26.1f\n", n, flood / d, freeing / s, freeing * n / s / timed }'
done
