#!/usr/bin/env bash
# The history page in a real browser: writes it from the committed runs
# (BenchRunner history --html), opens it in headless Chromium from file://
# with every benchmark's charts drawn, and fails when a trend or sweep chart
# did not render, the page reported an error, or the console printed
# anything (the page prints nothing of its own). Keeps a screenshot beside
# the page. Installs nothing: it needs a built BenchRunner (BENCHRUNNER, by
# default the release build), Debian's chromium and plotly's Python package
# (pip install plotly), as .ci/run provides them.
#
#   scripts/test-report-page.sh [OUTPUT_DIR]     # default .ci-report-page
#   STRESS_CSV=FILE: a Stress --csv file; the page must then show its outcome tables.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.ci-report-page}"
benchrunner="${BENCHRUNNER:-$(swift build -c release --show-bin-path)/BenchRunner}"
fail() { echo "test-report-page: $*" >&2; exit 1; }

command -v chromium >/dev/null || fail "chromium is not installed (apt-get install -y chromium)"
[[ -x "$benchrunner" ]] || fail "no BenchRunner at $benchrunner (swift build -c release --product BenchRunner, or set BENCHRUNNER)"

rm -rf "$out"
status=0
stress=()
[[ -n "${STRESS_CSV:-}" ]] && stress=(--stress "$STRESS_CSV")
"$benchrunner" history --html "$out" "${stress[@]}" results >/dev/null || status=$?
# 0, 1 and 3 say what the newest run shows; 2 means no page was written.
[[ $status != 2 && -f "$out/index.html" && -f "$out/plotly.min.js" ]] \
    || fail "BenchRunner history --html wrote no page (exit status $status)"

page="file://$(cd "$out" && pwd)/index.html"
browser=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars)

# Every benchmark opened: every trend chart drawn.
"${browser[@]}" --enable-logging=stderr --v=0 --virtual-time-budget=60000 --dump-dom "$page#open=all" \
    >"$out/dom.html" 2>"$out/browser.log" || fail "chromium failed; see $out/browser.log"
grep -q 'data-page="ready"' "$out/dom.html" || fail "the page's script did not finish (see $out/browser.log)"
series=$(grep -o 'data-series-count="[0-9]*"' "$out/dom.html" | grep -o '[0-9]*')
sweeps=$(grep -o 'data-sweep-count="[0-9]*"' "$out/dom.html" | grep -o '[0-9]*')
trends=$(grep -o 'data-rendered="trend"' "$out/dom.html" | wc -l)
drawn_sweeps=$(grep -o 'data-rendered="sweep"' "$out/dom.html" | wc -l)
(( series > 0 && trends == series )) || fail "$trends of $series trend charts rendered"
(( sweeps > 0 && drawn_sweeps == sweeps )) || fail "$drawn_sweeps of $sweeps sweep charts rendered"
if [[ -n "${STRESS_CSV:-}" ]]; then
    stress_tables=$(grep -o 'class="stress-table"' "$out/dom.html" | wc -l)
    (( stress_tables > 0 )) || fail "no stress outcome table from $STRESS_CSV"
fi
if grep -o '<div id="page-errors">[^<]' "$out/dom.html"; then
    fail "the page reported an error (see #page-errors in $out/dom.html)"
fi
if grep ':CONSOLE' "$out/browser.log"; then
    fail "the console printed the lines above"
fi

# The screenshot kept beside the page: the trampoline's charts opened.
"${browser[@]}" --window-size=1280,2000 --virtual-time-budget=20000 \
    --screenshot="$out/screenshot.png" "$page#open=trampoline.recursion" >/dev/null 2>&1 \
    || fail "chromium could not take the screenshot"
[[ -s "$out/screenshot.png" ]] || fail "no screenshot at $out/screenshot.png"
echo "test-report-page: $trends trend and $drawn_sweeps sweep charts rendered, no console output; page and screenshot in $out/"
