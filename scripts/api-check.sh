#!/usr/bin/env bash
# Fails when the public API of the Schedulers or SchedulersTesting product
# breaks against the revision api-baseline.txt names (CHANGELOG.md, "What a
# version number promises"): `swift package diagnose-api-breaking-changes`.
#
#     scripts/api-check.sh                  # exit 0: no break; 1: a break (listed); 2: bad setup
#     scripts/api-check.sh --dump-baseline  # writes api-baseline/<revision>/ from that revision
#
# The current side is the debug build `swift build` and `swift test` make
# (.build; API_CHECK_SCRATCH names another), so after those it costs
# seconds. The baseline side is the revision's API as swift-api-digester
# dumped it, committed in api-baseline/<revision>/ (one JSON file a module,
# its machine-specific tool arguments left out), so that no check builds
# the old revision again. --dump-baseline makes it: it checks the revision
# out and builds it (minutes), and it is run when api-baseline.txt names a
# new revision. Without the dump the check still runs, building the
# revision first, and says to commit the dump.
#
# Needs git and the baseline commit in the clone for --dump-baseline, and
# when the dump is missing (CI's fresh clone has the whole history).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

baseline_file=api-baseline.txt
# The revision: the one line that is neither a comment nor an accepted break.
baseline=$(grep -v -e '^#' -e '^API breakage: ' "$baseline_file" | tr -d '[:space:]' || true)
if [ -z "$baseline" ]; then
    echo "api-check: $baseline_file names no revision" >&2
    exit 2
fi
if ! git rev-parse --verify --quiet "$baseline^{commit}" >/dev/null; then
    echo "api-check: the baseline $baseline ($baseline_file) is not a commit of this clone;" \
        "fetch the full history (git fetch --unshallow)" >&2
    exit 2
fi

scratch="${API_CHECK_SCRATCH:-.build}"
dumps=api-baseline
log=$(mktemp)
accepted=$(mktemp)
fresh=$(mktemp -d)
trap 'rm -rf "$log" "$accepted" "$fresh"' EXIT

if [[ "${1:-}" == --dump-baseline ]]; then
    # --regenerate-baseline in an empty folder: the tool checks the revision
    # out beside the build and dumps each module's API from its build.
    swift package --scratch-path "$scratch" diagnose-api-breaking-changes "$baseline" \
        --products Schedulers SchedulersTesting --regenerate-baseline --baseline-dir "$fresh" >/dev/null 2>&1 || true
    if ! ls "$fresh/$baseline"/*.json >/dev/null 2>&1; then
        echo "api-check: swift-api-digester wrote no dump of $baseline (run the check without --dump-baseline to see why)" >&2
        exit 2
    fi
    rm -rf "$dumps"
    mkdir -p "$dumps/$baseline"
    # The tool arguments hold this machine's paths; the comparison reads
    # only the declarations.
    python3 - "$fresh/$baseline" "$dumps/$baseline" <<'PYTHON'
import json, pathlib, sys
source, target = map(pathlib.Path, sys.argv[1:])
for dump in sorted(source.glob("*.json")):
    api = json.loads(dump.read_text())
    api["ABIRoot"]["tool_arguments"] = []
    (target / dump.name).write_text(json.dumps(api, indent=2, sort_keys=True) + "\n")
    print(f"api-check: wrote {target / dump.name}")
PYTHON
    exit 0
elif [[ $# -gt 0 ]]; then
    echo "api-check: unknown option $1 (the only one is --dump-baseline)" >&2
    exit 2
fi

stale=$(find "$dumps" -mindepth 1 -maxdepth 1 -type d ! -name "$baseline" 2>/dev/null || true)
if [[ -n "$stale" ]]; then
    echo "api-check: $dumps/ holds the dump of another revision than $baseline_file names ($stale);" \
        "run scripts/api-check.sh --dump-baseline and commit $dumps/" >&2
    exit 2
fi
if ! ls "$dumps/$baseline"/*.json >/dev/null 2>&1; then
    echo "api-check: no dump of $baseline in $dumps/: the tool builds that revision first (minutes);" \
        "run scripts/api-check.sh --dump-baseline and commit $dumps/ to spare it" >&2
fi
# The breaks accepted since the revision, each line as the tool prints it.
grep '^API breakage: ' "$baseline_file" >"$accepted" || true
status=0
swift package --scratch-path "$scratch" diagnose-api-breaking-changes "$baseline" \
    --products Schedulers SchedulersTesting \
    --breakage-allowlist-path "$accepted" \
    --baseline-dir "$dumps" 2>&1 | tee "$log" || status=$?

if [ "$status" -eq 0 ]; then
    echo "api-check: the public API of Schedulers and SchedulersTesting breaks nothing of ${baseline:0:12}" \
        "beyond the $(wc -l <"$accepted") break(s) $baseline_file accepts."
    exit 0
fi
if grep -q 'API breakage' "$log"; then
    cat >&2 <<MESSAGE

api-check: the change breaks the public API of Schedulers or SchedulersTesting
against ${baseline:0:12}, the revision $baseline_file names (the breaks are listed
above). A client's build may fail on it. Either keep the old API (deprecate
instead of removing or renaming), or make the break deliberate, in this same
change:
  1. add an entry to CHANGELOG.md under "## Unreleased", heading "Breaking",
     saying what broke and how a client migrates;
  2. move the baseline: add each "API breakage: ..." line above, as printed,
     to $baseline_file.
The next release is then a new major version, and its commit becomes the
revision in $baseline_file, the accepted lines dropped (CHANGELOG.md, "What a
version number promises").
MESSAGE
    exit 1
fi
echo "api-check: swift package diagnose-api-breaking-changes could not run (exit status $status, above)" >&2
exit 2
