#!/usr/bin/env bash
# How observeOn.busyQueue's floods batch, flood by flood.
#
# Builds BenchRunner with the library's drain statistics
# (-DSCHEDULERS_DRAIN_STATISTICS, a build of its own under
# .build-drain-stats, never shipped), runs the flood series of
# observeOn.busyQueue for the chosen variants, and prints, per variant and
# kind of flood (quiet, after a busy queue):
#   - the CPU time per element of its floods (10th, 50th, 90th percentile,
#     worst, and the worst over the quiet median, the figure the series
#     reports);
#   - the floods grouped by elements per batch, with each group's median CPU
#     time per element and contended lock acquisitions per batch;
#   - the bytes glibc's fast bins held when the floods started (what a busy
#     queue leaves for glibc to merge).
# The flood lines themselves follow the summary.
#
# With --gather-us, a probe of that build (never a shipped one) makes each
# drain sleep that many microseconds after delivering a batch of fewer than
# 256 elements, so that upstream fills bigger batches: run with and without
# it, the two reports show what the batch size itself costs. With
# --spin-gather-ns, a second probe of that build makes such a drain spin
# instead, up to that many nanoseconds, and take the next batch as soon as
# it holds 256 elements or stops growing: a remedy that keeps batches big
# without the drain's thread sleeping.
#
# Usage: scripts/busy-queue-batching.sh [--runs N] [--variants a,b,...] [--gather-us N] [--spin-gather-ns N] [--output FILE]
#   --runs N        processes of the series to run, one after another (default 2)
#   --variants      observeOn.busyQueue variants (default fast-path,generic,
#                   concurrent,reference.spsc-ring)
#   --gather-us N   the drain's sleep after a small batch, in microseconds
#                   (default 0: none)
#   --spin-gather-ns N  the drain's longest spin after a small batch, in
#                   nanoseconds (default 0: none)
#   --output FILE   also write everything printed to FILE
set -euo pipefail
cd "$(dirname "$0")/.."

runs=2
variants="fast-path,generic,concurrent,reference.spsc-ring"
output=""
gather_us=0
spin_gather_ns=0
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="${2:?--runs needs a count}"; shift 2 ;;
        --variants) variants="${2:?--variants needs a list}"; shift 2 ;;
        --gather-us) gather_us="${2:?--gather-us needs a number of microseconds}"; shift 2 ;;
        --spin-gather-ns) spin_gather_ns="${2:?--spin-gather-ns needs a number of nanoseconds}"; shift 2 ;;
        --output) output="${2:?--output needs a file}"; shift 2 ;;
        -h|--help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
        *) echo "busy-queue-batching: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$runs" in
    ''|*[!0-9]*|0) echo "busy-queue-batching: --runs wants a positive whole number, not '$runs'" >&2; exit 2 ;;
esac
case "$gather_us" in
    ''|*[!0-9]*) echo "busy-queue-batching: --gather-us wants a whole number of microseconds, not '$gather_us'" >&2; exit 2 ;;
esac
case "$spin_gather_ns" in
    ''|*[!0-9]*) echo "busy-queue-batching: --spin-gather-ns wants a whole number of nanoseconds, not '$spin_gather_ns'" >&2; exit 2 ;;
esac

scratch=.build-drain-stats
swift build -c release --product BenchRunner --scratch-path "$scratch" \
    -Xswiftc -DSCHEDULERS_DRAIN_STATISTICS >&2
runner="$scratch/release/BenchRunner"

filter=""
IFS=',' read -r -a names <<< "$variants"
for name in "${names[@]}"; do
    filter="${filter:+$filter,}observeOn.busyQueue/$name"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for run in $(seq "$runs"); do
    echo "busy-queue-batching: run $run of $runs" >&2
    # The series' own CSV is not kept: this is a probe, not a result.
    SCHEDULERS_PROBE_GATHER_US=$gather_us SCHEDULERS_PROBE_SPIN_GATHER_NS=$spin_gather_ns "$runner" --filter "$filter" --output "$work/csv" 2> "$work/stderr-$run" > /dev/null \
        || { cat "$work/stderr-$run" >&2; echo "busy-queue-batching: BenchRunner failed (above)" >&2; exit 1; }
    grep '^flood ' "$work/stderr-$run" | sed "s/^flood /flood run=$run /" >> "$work/floods"
done
if [ ! -s "$work/floods" ]; then
    echo "busy-queue-batching: no flood lines: was the build made with drain statistics?" >&2
    exit 1
fi

# shellcheck source=scripts/report-file.sh
source scripts/report-file.sh  # the working directory is the repository root
{
    echo "== busy-queue-batching at $(report_revision): $runs run(s) of observeOn.busyQueue/{$variants}, built with -DSCHEDULERS_DRAIN_STATISTICS; drain's sleep after a batch under 256 elements: ${gather_us} µs, its longest spin: ${spin_gather_ns} ns; load $(cut -d' ' -f1-3 /proc/loadavg)"
    python3 - "$work/floods" <<'PY'
import sys

floods = []
for line in open(sys.argv[1]):
    fields = dict(part.split("=", 1) for part in line.split()[1:])
    floods.append(fields)

def quantile(values, q):
    values = sorted(values)
    return values[int(q * (len(values) - 1))]

print()
print("CPU ns per element, every flood of every run:")
print(f"{'variant':22} {'kind':6} {'floods':>6} {'p10':>7} {'p50':>7} {'p90':>7} {'worst':>7} {'worst/quiet p50':>16}")
groups = {}
for flood in floods:
    groups.setdefault((flood["variant"], flood["kind"]), []).append(flood)
quiet_median = {}
for (variant, kind), members in sorted(groups.items()):
    cpu = [float(f["cpu_ns_per_element"]) for f in members]
    if kind == "quiet":
        quiet_median[variant] = quantile(cpu, 0.5)
for (variant, kind), members in sorted(groups.items()):
    cpu = [float(f["cpu_ns_per_element"]) for f in members]
    ratio = max(cpu) / quiet_median[variant] if quiet_median.get(variant) else float("nan")
    print(f"{variant:22} {kind:6} {len(cpu):6} {quantile(cpu, .1):7.1f} {quantile(cpu, .5):7.1f} "
          f"{quantile(cpu, .9):7.1f} {max(cpu):7.1f} {ratio:16.2f}")

print()
print("Floods by elements per batch (the library's paths; a reference keeps no drain statistics):")
print(f"{'variant':22} {'elements/batch':>16} {'floods':>6} {'p50 CPU ns/elt':>15} {'contended/batch':>16}")
bands = [(0, 100), (100, 1000), (1000, 10000), (10000, float("inf"))]
for variant in sorted({f["variant"] for f in floods}):
    members = [f for f in floods if f["variant"] == variant and int(f["batches"]) > 0]
    for low, high in bands:
        band = [f for f in members if low <= float(f["elements"]) / int(f["batches"]) < high]
        if not band:
            continue
        cpu = [float(f["cpu_ns_per_element"]) for f in band]
        contended = sum(int(f["contended"]) for f in band) / sum(int(f["batches"]) for f in band)
        label = f"{low:g}-{high:g}" if high != float("inf") else f"{low:g}+"
        print(f"{variant:22} {label:>16} {len(band):6} {quantile(cpu, .5):15.1f} {contended:16.2f}")

print()
print("glibc fast-bin bytes when a flood started (0 under another allocator):")
print(f"{'kind':6} {'floods':>6} {'p50':>12} {'max':>12}")
for kind in ("quiet", "busy"):
    values = [int(f["fast_bin_bytes_at_start"]) for f in floods if f["kind"] == kind]
    if values:
        print(f"{kind:6} {len(values):6} {quantile(values, .5):12d} {max(values):12d}")
PY
    echo
    echo "The flood lines:"
    cat "$work/floods"
} > "$work/report"
# Written whole before it is shown: a reader that stops early (a pager,
# `head`) must not cut the file short.
if [ -n "$output" ]; then
    cp "$work/report" "$output"
fi
cat "$work/report"
