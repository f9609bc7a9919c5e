#!/usr/bin/env bash
# Shows that the instruction gate catches a small slowdown: builds BenchRunner
# a second time with -DBENCHKIT_INSTRUCTION_CANARY (a few more
# instructions per level of the nested trampoline chain, in the benchmark's
# level function; never in a normal build) in its own scratch folder, counts
# the trampoline under callgrind with both builds, and compares: the canary
# must make compare exit 1 naming trampoline.recursion/current-thread, and
# the normal build against itself must exit 0 with every series `same`.
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

"$normal" --instructions only --filter trampoline.recursion --output "$out/normal-a" >/dev/null
"$normal" --instructions only --filter trampoline.recursion --output "$out/normal-b" >/dev/null
"$canary" --instructions only --filter trampoline.recursion --output "$out/canary" >/dev/null
a=$(ls "$out"/normal-a/*.csv) b=$(ls "$out"/normal-b/*.csv) c=$(ls "$out"/canary/*.csv)

echo "== A/A: the normal build against itself (must exit 0, every series same)"
set +e
"$normal" compare --gate exact "$a" "$b"; aa=$?
echo "exit $aa"
echo
echo "== the canary build against the normal one (must exit 1 naming trampoline.recursion/current-thread)"
"$normal" compare --gate exact "$a" "$c"; injected=$?
echo "exit $injected"
set -e
if [ "$aa" -ne 0 ] || [ "$injected" -ne 1 ]; then
    echo "instruction-canary: FAILED (A/A exit $aa, canary exit $injected)" >&2
    exit 1
fi
echo "instruction-canary: the gate passes A/A and catches the injected instructions"
