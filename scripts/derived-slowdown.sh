#!/usr/bin/env bash
# A derived 20 % slowdown of the serial hop, judged by compare: copies NEW.csv
# with observeOn.throughput/fast-path made 20 % slower in every repetition
# (ns_per_element x1.2, elements_per_s /1.2; a derived file, never written
# under results/), then runs `BenchRunner compare BASE.csv <copy>` with the
# default resolution table. Usage: scripts/derived-slowdown.sh BASE.csv NEW.csv [factor]
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 BASE.csv NEW.csv [factor, default 1.2]" >&2
    exit 2
fi
base=$1 new=$2 factor=${3:-1.2}
for file in "$base" "$new"; do
    [ -f "$file" ] || { echo "error: $file: no such file" >&2; exit 2; }
done
derived=$(mktemp --suffix=.csv)
trap 'rm -f "$derived"' EXIT
python3 - "$new" "$derived" "$factor" <<'PY'
import csv, sys
source, target, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
with open(source, newline="") as infile, open(target, "w", newline="") as outfile:
    reader, writer = csv.reader(infile), csv.writer(outfile)
    header = next(reader)
    writer.writerow(header)
    column = {name: index for index, name in enumerate(header)}
    for row in reader:
        if (row[column["benchmark"]] == "observeOn.throughput" and row[column["variant"]] == "fast-path"
                and row[column["allocator"]] == "system" and row[column["value"]] != ""):
            value = float(row[column["value"]])
            if row[column["metric"]] == "ns_per_element":
                row[column["value"]] = repr(value * factor)
            elif row[column["metric"]] == "elements_per_s":
                row[column["value"]] = repr(value / factor)
        writer.writerow(row)
PY
bin=.build/release/BenchRunner
[ -x "$bin" ] || swift build -c release --product BenchRunner >/dev/null
set +e
"$bin" compare "$base" "$derived"
status=$?
echo "derived-slowdown: fast path x$factor in $new against $base: exit status $status"
exit $status
