#!/usr/bin/env bash
# Fails when the public API of the Schedulers or SchedulersTesting product
# breaks against the revision api-baseline.txt names (CHANGELOG.md, "What a
# version number promises"): `swift package diagnose-api-breaking-changes`,
# in a build folder of its own (.build-api), the baseline's API kept in
# .build-api/baseline-<revision> so that a second run does not build it again.
#
#     scripts/api-check.sh    # exit 0: no break; 1: a break (listed); 2: bad setup
#
# Needs git and the baseline commit in the clone (CI's fresh clone has the
# whole history).
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

scratch=.build-api
log=$(mktemp)
accepted=$(mktemp)
trap 'rm -f "$log" "$accepted"' EXIT
# The breaks accepted since the revision, each line as the tool prints it.
grep '^API breakage: ' "$baseline_file" >"$accepted" || true
status=0
swift package --scratch-path "$scratch" diagnose-api-breaking-changes "$baseline" \
    --products Schedulers SchedulersTesting \
    --breakage-allowlist-path "$accepted" \
    --baseline-dir "$scratch/baseline-$baseline" 2>&1 | tee "$log" || status=$?

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
