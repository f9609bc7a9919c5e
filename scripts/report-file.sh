# Sourced by the scripts that write a report file (busy-queue-batching.sh,
# callgrind-trampoline.sh, executor-floor.sh, trampoline-floor.sh): the
# revision a report names, by BenchRunner's rule for a run's (the commit,
# then "+changes" when any tracked file differs from it; untracked files do
# not count), and the report file itself.

# Prints the revision of the working tree, e.g. 0123456789ab or
# 0123456789ab+changes.
report_revision() {
    local revision dirty
    revision=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo "+changes" || true)
    echo "$revision$dirty"
}

# write_report NAME WHAT TEXT_FILE OUTPUT: writes OUTPUT as the line
# "== NAME at REVISION: WHAT" followed by TEXT_FILE, and says so.
write_report() {
    local name=$1 what=$2 text=$3 output=$4
    {
        echo "== $name at $(report_revision): $what"
        cat "$text"
    } >"$output"
    echo "$name: wrote $output"
}
