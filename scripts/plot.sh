#!/usr/bin/env bash
# Makes PNG plots from a BenchRunner CSV: throughput per variant, latency
# percentiles, drift over ticks. Installs matplotlib when it is missing.
#
#   scripts/plot.sh [results/<run>.csv] [output-dir]
#
# Without arguments it plots the newest CSV in results/ next to it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if ! python3 -c 'import matplotlib' 2>/dev/null; then
    echo "plot: installing matplotlib" >&2
    if command -v apt-get >/dev/null 2>&1; then
        sudo_cmd=""
        [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
        $sudo_cmd apt-get install -y python3-matplotlib >/dev/null \
            || { $sudo_cmd apt-get update >/dev/null && $sudo_cmd apt-get install -y python3-matplotlib >/dev/null; }
    else
        python3 -m pip install --user matplotlib
    fi
fi

exec python3 "$here/plot.py" "$@"
