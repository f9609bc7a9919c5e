# Sourced by the stress scripts (stress-tsan.sh, stress-explore.sh,
# stress-explore-broken.sh, mutation-score.sh): the one build of Stress they
# all run, so that CI compiles the harness and the library once for all four.
#
# The build: release, ThreadSanitizer, exploration (the library's locks and
# atomics are sync points of the schedule controller) and
# the seeded bugs of Sources/Schedulers/Internal/Mutant.swift
# (-DSCHEDULERS_MUTANTS, defined by these scripts alone, never by the package
# or a client). At run time the same binary is then:
#   - the correct library, on real threads: SCHEDULERS_MUTANT unset, and no
#     schedule controller, so each sync point is one load of an unset hook
#     and each mutant site one comparison with no mutant;
#   - the correct library, explored: `--explore <strategy>`;
#   - a seeded bug, explored or on real threads: SCHEDULERS_MUTANT=<name>,
#     `broken-cell` among them (scripts/stress-explore-broken.sh).
# A schedule records the mutant it ran with (its build, e.g.
# exploration+broken-cell), so `--replay` of it on the correct library is
# refused.
#
# The build's root is the example package (Examples/MyEventLoop), which
# depends on this one: one build holds this package's Stress and the
# example's stress executables (MyEventLoopStress, BrokenEventLoopStress),
# the library and the harness compiled once for both. The trait Exploration
# cannot be enabled on a dependency from the command line, so its one
# effect, the condition SCHEDULERS_EXPLORATION (Package.swift), is defined
# directly.
#
# Sets `stress_flags` (swift build's options) and, after `stress_build
# [PRODUCT]` (default Stress), `stress_binary`. `stress_tsan_real` and
# `stress_tsan_explore` are the TSAN_OPTIONS for runs on real threads and
# for explored runs.
# Environment:
#   STRESS_SCRATCH  build directory (default .build-tsan, separate from .build)

stress_scratch="${STRESS_SCRATCH:-.build-tsan}"
stress_root=Examples/MyEventLoop
stress_flags=(-c release --sanitize=thread -Xswiftc -DSCHEDULERS_EXPLORATION -Xswiftc -DSCHEDULERS_MUTANTS
    --package-path "$stress_root" --scratch-path "$stress_scratch")

# Builds PRODUCT (a no-op when it is up to date) and sets stress_binary.
stress_build() {
    local product="${1:-Stress}"
    echo "== building $product with --sanitize=thread, exploration and -DSCHEDULERS_MUTANTS in $stress_scratch"
    swift build "${stress_flags[@]}" --product "$product" || return 1
    stress_binary="$(swift build "${stress_flags[@]}" --show-bin-path)/$product"
}

# atexit_sleep_ms=0: ThreadSanitizer otherwise sleeps a second at every exit,
# and each scenario runs in a process of its own.
stress_tsan_real="halt_on_error=1 exitcode=66 second_deadlock_stack=1 history_size=4 atexit_sleep_ms=0"
# A suppression is allowed only for an upstream cause, named beside it in the file.
if [[ -s scripts/tsan-suppressions.txt ]] && grep -qv '^\s*\(#\|$\)' scripts/tsan-suppressions.txt; then
    stress_tsan_real="$stress_tsan_real suppressions=$PWD/scripts/tsan-suppressions.txt"
fi
# Explored runs ignore ThreadSanitizer's reports (report_bugs=0): the
# controller installs the library's hook while a previous schedule's dispatch
# worker may still read it, a race of the harness, not the library; there
# exploration's own verdict (a forbidden outcome, a deadlock, a leak)
# decides, as in a build without ThreadSanitizer.
stress_tsan_explore="report_bugs=0 $stress_tsan_real"
