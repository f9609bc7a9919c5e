#!/usr/bin/env bash
# Makes PNG plots from a BenchRunner CSV: throughput per variant, latency
# percentiles, drift over ticks, p99 drift per scheduler. Installs matplotlib
# (Debian's python3-matplotlib, else pip) when no Python on the machine has it.
#
#   scripts/plot.sh [results/<run>.csv] [output-dir]
#
# Without arguments it plots the newest CSV in results/, next to it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

find_python() {
    for candidate in python3 /usr/bin/python3; do
        if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import matplotlib' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

if ! python="$(find_python)"; then
    echo "plot: installing matplotlib" >&2
    sudo_cmd=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; fi
    if command -v apt-get >/dev/null 2>&1 \
        && { $sudo_cmd apt-get install -y python3-matplotlib >/dev/null 2>&1 \
             || { $sudo_cmd apt-get update >/dev/null 2>&1 && $sudo_cmd apt-get install -y python3-matplotlib >/dev/null 2>&1; }; }; then
        :
    else
        python3 -m pip install --user matplotlib >&2
    fi
    python="$(find_python)" || { echo "plot: could not install matplotlib" >&2; exit 1; }
fi

exec "$python" "$here/plot.py" "$@"
