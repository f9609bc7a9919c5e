#!/usr/bin/env python3
"""Checks `BenchRunner history`'s segmentation against ruptures (PyPI).

Reads the committed runs in the repository's commit order (runs of one commit
by their timestamp) from the list at the end of results/README.md, which
`BenchRunner results index` writes from git (a run of your own in results/ is
not in it, and no git is needed), and forms, for a fixed selection of timing series, the
points `history` segments: one per revision, the median over the revision's
runs of the log of each run's median repetition. ruptures' binary
segmentation (Binseg, model "l2", min_size 1, jump 1) then gives, for
k = 1, 2, ..., the breakpoints of k splits; Swift's BinarySegmentation must
give the same (HistoryReferenceTests reads the fixture). --check also
holds the committed runs to the fixture's points: runs committed later may
only add points after them.

    scripts/history_reference.py           # writes the fixture
    scripts/history_reference.py --check   # fails when ruptures or the runs disagree with it

Needs `pip install ruptures` (and NumPy, which it brings).
"""
import csv
import json
import math
import os
import statistics
import sys

FIXTURE = "scripts/history-reference.json"
# (benchmark, metric): timings read from all their repetitions (not at a
# usual level), allocator "system".
SELECTION = [
    ("trampoline.recursion", "ns_per_schedule"),
    ("elementPath", "ns_per_element"),
    ("observeOn.subscription", "ns_per_lifecycle"),
    ("observeOn.busyQueue", "ns_per_element"),
    ("virtualTime.scheduling", "ns_per_schedule"),
]
MAX_SPLITS = 6


INDEX = "results/README.md"
OPENING = "<!-- committed-runs: "
CLOSING = "<!-- /committed-runs -->"


def committed_runs():
    """The (file name, commit) pairs the index lists, oldest first."""
    with open(INDEX) as handle:
        lines = handle.read().split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(OPENING)), None)
    if start is None:
        sys.exit(f"history_reference: {INDEX} lists no committed runs; run `swift run BenchRunner results index`")
    runs = []
    for line in lines[start + 1 :]:
        if line == CLOSING:
            return runs
        fields = line.split(" ")
        if len(fields) == 2:
            runs.append((fields[0], fields[1]))
    sys.exit(f"history_reference: {INDEX}: the list of committed runs does not end")


def series_points():
    placed = []
    for name, commit in committed_runs():
        if commit == "-":
            sys.exit(f"history_reference: the revision of {name} is not in the history ({INDEX})")
        with open(os.path.join("results", name), newline="") as handle:
            rows = list(csv.DictReader(handle))
        if rows:
            placed.append((rows[0]["git_rev"], rows))
    series = {}
    for revision, rows in placed:
        values = {}
        for row in rows:
            if (row["benchmark"], row["metric"]) in SELECTION and row["allocator"] == "system" and row["value"]:
                key = f'{row["benchmark"]}/{row["variant"]} {row["params"]} {row["metric"]} [system]'
                values.setdefault(key, []).append(float(row["value"]))
        for key, repetitions in values.items():
            summary = statistics.median(repetitions)
            if summary <= 0:
                continue
            points = series.setdefault(key, [])
            if points and points[-1][0] == revision:
                points[-1][1].append(math.log(summary))
            else:
                points.append((revision, [math.log(summary)]))
    result = []
    for key in sorted(series):
        points = series[key]
        if len(points) < 3 or key.split("/")[1].startswith(("peer.", "reference.")):
            continue
        result.append(
            {
                "series": key,
                "revisions": [revision for revision, _ in points],
                "points": [statistics.median(logs) for _, logs in points],
            }
        )
    return result


def breakpoints(points):
    import numpy as np
    import ruptures

    signal = np.array(points).reshape(-1, 1)
    algorithm = ruptures.Binseg(model="l2", min_size=1, jump=1).fit(signal)
    sequence = []
    for splits in range(1, min(MAX_SPLITS, len(points) - 1) + 1):
        found = algorithm.predict(n_bkps=splits)[:-1]
        if sequence and found == sequence[-1]:
            break
        sequence.append(found)
    return sequence


def main():
    check = "--check" in sys.argv[1:]
    import ruptures

    if check:
        with open(FIXTURE) as handle:
            fixture = json.load(handle)
        failures = []
        for entry in fixture["series"]:
            if breakpoints(entry["points"]) != entry["breakpoints"]:
                failures.append(f'{entry["series"]}: ruptures gives {breakpoints(entry["points"])}, the fixture {entry["breakpoints"]}')
        current = {entry["series"]: entry for entry in series_points()}
        for entry in fixture["series"]:
            # Runs committed after the fixture add points at the end; the
            # fixture's points must still be the first ones.
            now = current.get(entry["series"])
            count = len(entry["revisions"])
            if now is None or now["revisions"][:count] != entry["revisions"] or any(
                abs(a - b) > 1e-12 for a, b in zip(now["points"][:count], entry["points"])
            ):
                failures.append(f'{entry["series"]}: the committed runs no longer give the fixture\'s points')
        if failures:
            print("history_reference --check: the fixture disagrees (rerun scripts/history_reference.py):", file=sys.stderr)
            for failure in failures:
                print("  " + failure, file=sys.stderr)
            sys.exit(1)
        print(f'history_reference --check: {len(fixture["series"])} series, ruptures {ruptures.__version__} agrees with the fixture')
        return
    entries = series_points()
    for entry in entries:
        entry["breakpoints"] = breakpoints(entry["points"])
    with open(FIXTURE, "w") as handle:
        json.dump({"generator": "scripts/history_reference.py", "ruptures": ruptures.__version__, "series": entries}, handle, indent=1)
        handle.write("\n")
    print(f"history_reference: {len(entries)} series written to {FIXTURE}")


if __name__ == "__main__":
    main()
