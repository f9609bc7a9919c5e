#!/usr/bin/env python3
"""How close BenchRunner's progress line came to the truth.

Usage: scripts/progress-accuracy.py LOG [LOG ...]

LOG is a run's output with each line prefixed by the Unix time it was
printed ("1796625549.629 <line>"); a line may end in a newline or a carriage
return. Every line that estimates the whole run's time left ("~4m15s left",
not a stage's own "left for its processes") is set against the time that
really remained until the run's last line. Lines with less than 30 s left
are skipped: there a second of jitter is a large share. Prints, per log, the
run's length, the range of the estimates' relative errors (positive: the
estimate was too long) and how many fell within 15 %.
"""
import re
import sys

ESTIMATE = re.compile(r"~(?:(\d+)m)?(\d+)s left(?! for its)")
MINIMUM_LEFT = 30.0
TOLERANCE = 0.15


def read(path):
    lines = []
    with open(path, errors="replace") as handle:
        for raw in handle:
            stamp, _, text = raw.rstrip("\n").partition(" ")
            try:
                lines.append((float(stamp), text))
            except ValueError:
                raise SystemExit(f"{path}: a line does not start with a Unix time: {raw[:60]!r}; "
                                 "prefix each line of the run's output with the time it was printed")
    if not lines:
        raise SystemExit(f"{path}: no lines; give the timestamped output of a whole run")
    return lines


def main(paths):
    if not paths:
        raise SystemExit(__doc__.strip().splitlines()[2])
    for path in paths:
        lines = read(path)
        start, end = lines[0][0], lines[-1][0]
        errors = []
        for stamp, text in lines:
            match = ESTIMATE.search(text)
            if not match:
                continue
            estimate = int(match.group(1) or 0) * 60 + int(match.group(2))
            truth = end - stamp
            if truth < MINIMUM_LEFT:
                continue
            errors.append((estimate - truth) / truth)
        if not errors:
            print(f"{path}: run {end - start:.0f} s, no estimate with {MINIMUM_LEFT:.0f} s or more left")
            continue
        within = sum(1 for e in errors if abs(e) <= TOLERANCE)
        print(f"{path}: run {(end - start) / 60:.1f} min; estimates {min(errors):+.0%} … {max(errors):+.0%}; "
              f"{within} of {len(errors)} within {TOLERANCE:.0%}")


if __name__ == "__main__":
    main(sys.argv[1:])
