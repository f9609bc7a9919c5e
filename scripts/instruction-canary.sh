#!/usr/bin/env bash
# Shows that the instruction gate catches a small slowdown: builds BenchRunner
# a second time with -DBENCHKIT_INSTRUCTION_CANARY (a few more
# instructions per level of the nested trampoline chain, in the benchmark's
# level function, and per job of the actor executor's counted enqueues, in
# the benchmark's loop; never in a normal build) in its own scratch folder,
# counts both under callgrind with both builds, and compares: the canary
# must make compare exit 1 naming trampoline.recursion/current-thread and
# observeOn.throughput/actor-executor, and the normal build against itself
# must exit 0 with every series `same`.
#
#   scripts/instruction-canary.sh [output-dir]
#
# Slow the first time (a second release build of everything); not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=${1:-$(mktemp -d)}
mkdir -p "$out/normal-a" "$out/normal-b" "$out/canary"

swift build -c release --product BenchRunner >/dev/null
swift build -c release --product BenchRunner --scratch-path .build-canary -Xswiftc -DBENCHKIT_INSTRUCTION_CANARY >/dev/null
normal="$(swift build -c release --show-bin-path)/BenchRunner"
canary="$(swift build -c release --scratch-path .build-canary --show-bin-path)/BenchRunner"

"$normal" --instructions only --filter trampoline.recursion,observeOn.throughput --output "$out/normal-a" >/dev/null
"$normal" --instructions only --filter trampoline.recursion,observeOn.throughput --output "$out/normal-b" >/dev/null
"$canary" --instructions only --filter trampoline.recursion,observeOn.throughput --output "$out/canary" >/dev/null
a=$(ls "$out"/normal-a/*.csv) b=$(ls "$out"/normal-b/*.csv) c=$(ls "$out"/canary/*.csv)

echo "== A/A: the normal build against itself (must exit 0, every series same)"
set +e
"$normal" compare --gate exact "$a" "$b"; aa=$?
echo "exit $aa"
echo
echo "== the canary build against the normal one (must exit 1 naming trampoline.recursion/current-thread and observeOn.throughput/actor-executor)"
"$normal" compare --gate exact "$a" "$c" | tee "$out/canary.txt"; injected=${PIPESTATUS[0]}
echo "exit $injected"
set -e
named=0
for series in "trampoline.recursion/current-thread" "observeOn.throughput/actor-executor"; do
    if ! grep -q "^Regression: $series .*instructions_per_" "$out/canary.txt"; then
        echo "instruction-canary: compare did not call $series worse" >&2
        named=1
    fi
done
if [ "$aa" -ne 0 ] || [ "$injected" -ne 1 ] || [ "$named" -ne 0 ]; then
    echo "instruction-canary: FAILED (A/A exit $aa, canary exit $injected)" >&2
    exit 1
fi
echo "instruction-canary: the gate passes A/A and catches the injected instructions"
