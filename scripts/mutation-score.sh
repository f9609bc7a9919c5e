#!/usr/bin/env bash
# The stress suite's mutation score (docs/Stress.md, "Mutation score").
#
# Runs the one build the stress scripts share (scripts/stress-build.sh:
# ThreadSanitizer, the package trait Exploration and every seeded bug of
# Sources/Schedulers/Internal/Mutant.swift compiled in, -DSCHEDULERS_MUTANTS,
# which these scripts alone pass): one build serves both the explored runs
# and the real-thread runs (the sync points are a load of an unset hook on
# real threads). Then:
#   1. the correct library (SCHEDULERS_MUTANT unset) through every scenario
#      the catalog below names, with every strategy and the same budgets:
#      it must be clean, so that a catch is not a flaky scenario
#      (MUTANTS_CLEAN=catches instead runs, after the mutants, exactly the
#      scenario, strategy, seed and budget of each catch: see below);
#   2. each mutant (SCHEDULERS_MUTANT=<name>) against the scenarios of its
#      subsystem, one scenario at a time, explored (random, pct, exhaustive)
#      and then on real threads under ThreadSanitizer, stopping at the first
#      catch: a forbidden outcome, a leak, a ThreadSanitizer report, a trap
#      or a hang of that scenario.
# Prints the detection table (mutant, kind, caught or not, by which scenario,
# strategy and outcome, iterations and seconds to the first catch) and the
# score, and fails when the clean run is not clean, or when a mutant that
# scripts/mutants-expected.txt lists as caught was not caught.
#
# Explored runs ignore ThreadSanitizer's reports (report_bugs=0): the
# controller installs the library's hook while a previous schedule's
# dispatch worker may still read it, a race of the harness, not the library;
# exploration's own verdict decides there.
#
# Usage: scripts/mutation-score.sh
# Environment:
#   STRESS_SCRATCH          build directory (default .build-tsan)
#   MUTANTS_ONLY            comma-separated mutant names to run (default all); the clean run
#                           then covers their scenarios only
#   MUTANTS_SCHEDULES       explored schedules per scenario and strategy (default 300)
#   MUTANTS_SECONDS         real-thread seconds per scenario (default 2)
#   MUTANTS_SEED            seed of every run (default 1)
#   MUTANTS_JOBS            mutants run at once (default: the cores). Each mutant's runs stay
#                           one after another, in its own folder; what a mutant's runs find
#                           is decided by their seed and budget (schedules for an explored
#                           run, seconds on real threads), and a real-thread catch of the
#                           catalog is a first-iteration or every-iteration outcome or a
#                           ThreadSanitizer report, which a busier core does not hide
#   MUTANTS_CLEAN           all (default): the clean run above, first; catches: after the
#                           mutants, the correct library through each catch's scenario with
#                           its strategy, seed and budget, which must be clean, so that every
#                           catch still means something. CI uses catches: its sections before
#                           this one ran the correct library, on this binary, through every
#                           scenario with larger budgets (scripts/stress-tsan.sh,
#                           scripts/stress-explore.sh)
set -uo pipefail
cd "$(dirname "$0")/.."

only="${MUTANTS_ONLY:-}"
schedules="${MUTANTS_SCHEDULES:-300}"
seconds="${MUTANTS_SECONDS:-2}"
seed="${MUTANTS_SEED:-1}"
clean="${MUTANTS_CLEAN:-all}"
[[ $clean == all || $clean == catches ]] || { echo "MUTANTS_CLEAN=$clean: give all or catches" >&2; exit 2; }
jobs="${MUTANTS_JOBS:-$(nproc)}"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "MUTANTS_JOBS=$jobs: give a positive number" >&2; exit 2; }
expected_file=scripts/mutants-expected.txt
# A guard around every run, beyond the harness's own watchdog (--hang-seconds).
run_timeout=120
strategies=(random pct exhaustive tsan)

# The catalog: mutant | kind of bug | the scenarios of its subsystem (texts
# contained in scenario names; scenarios_for turns them into the full names
# Stress's --filter is given). Mutant.swift says where each bug is and which
# guarantee it breaks.
catalog=$(cat <<'CATALOG'
executor-fifo|lost FIFO (serial executor)|executor-fifo,actor-job
executor-batch-past-action|batch joined past an action (serial executor)|executor-fifo
trampoline-lifo|lost FIFO (trampoline)|current-thread
virtual-time-ties-reversed|virtual-time item run out of order|historical
composite-double-dispose|double dispose of a composite's child|composite,exactly-once
serial-leaks-replaced|replaced disposable never disposed|serial-disposable,exactly-once
dispose-bag-check-then-act|check-then-act across two critical sections|dispose-bag
single-assignment-keeps-late|run after dispose|dispose-vs-action,single-assignment,exactly-once
cell-publish-by-store|compare-exchange weakened to a store|dispose-vs-action
broken-cell|exchange split into a load and a store|dispose-vs-action
observe-on-lost-wakeup|lost wake-up|observeOn-delivers-all,observeOn
observe-on-deinit-reentry|re-entrant deadlock|observeOn-deinit-reentry,observeOn
subscribe-on-dispose-inline|dispose off its scheduler|subscribeOn
subscribe-on-drops-late-subscription|lost disposal on a race|subscribeOn
periodic-missed-cancel|missed cancel in a periodic job|dispose-vs-periodic
emulated-periodic-unlocked-read|data race (unlocked read)|dispose-vs-periodic
recursion-keeps-state|state kept after dispose|recursive-chain
executor-wrong-queue|executor job on the wrong queue|actor-job,executor-fifo
scheduled-disposable-split-exchange|check-then-act on one atomic|scheduled-disposable,exactly-once
task-executor-busy-runner-free|busy runner counted as free (lost parallelism)|parallel-progress.concurrent-dispatch.task-executor
timer-past-batch-gate|timer past the executor's batch gate (starvation)|due-order.serial-dispatch
timer-lost-wakeup|lost timer wake-up|periodic-fire-during-tick.serial-dispatch
executor-unbounded-batch|unbounded executor batch (starvation)|due-order.serial-dispatch
CATALOG
)

started=$(date +%s)
# shellcheck source=scripts/stress-build.sh
source "$(dirname "$0")/stress-build.sh"
stress_build || exit 1
binary=$stress_binary
built=$(date +%s)

# Explored runs ignore ThreadSanitizer's reports (stress-build.sh says why).
tsan_real=$stress_tsan_real
tsan_explore=$stress_tsan_explore

fail() {
    echo "== FAILED: $*" >&2
    exit 1
}

mapfile -t all_scenarios < <(SCHEDULERS_MUTANT= "$binary" --list | grep -v '^ ' | awk '{ print $1 }')
[[ ${#all_scenarios[@]} -gt 0 ]] || fail "Stress --list printed no scenario"

# The scenarios whose names contain one of the comma-separated texts: those
# of the first text first, each in run order, each once.
scenarios_for() {
    local texts text name
    local -A seen=()
    IFS=, read -ra texts <<<"$1"
    for text in "${texts[@]}"; do
        for name in "${all_scenarios[@]}"; do
            if [[ $name == *"$text"* && -z ${seen[$name]:-} ]]; then
                seen[$name]=1
                echo "$name"
            fi
        done
    done
}

work=$(mktemp -d)
mutant_names=() selected=()
declare -A kind_of filters_of
while IFS='|' read -r name kind filters; do
    [[ -n $name ]] || continue
    mutant_names+=("$name")
    [[ -z $only || ",$only," == *",$name,"* ]] && selected+=("$name")
    kind_of[$name]=$kind
    filters_of[$name]=$filters
done <<<"$catalog"

declare -A expected_of reason_of
while read -r name verdict reason; do
    [[ -z $name || $name == \#* ]] && continue
    expected_of[$name]=$verdict
    reason_of[$name]=$reason
done <"$expected_file"
for name in "${mutant_names[@]}"; do
    [[ -n ${expected_of[$name]:-} ]] || fail "$name is in the catalog but not in $expected_file"
done
for name in "${!expected_of[@]}"; do
    [[ -n ${kind_of[$name]:-} ]] || fail "$name is in $expected_file but not in the catalog"
done

# Runs Stress once: $1 mutant ('' for the correct library), $2 strategy,
# $3 comma-separated scenario filter, $4 'stop' to stop at the first
# forbidden outcome. Sets run_status, run_csv, run_log, run_wall; its files
# go in $slot (a folder of $work), one per job that runs at once.
slot=$work
run_stress() {
    local mutant=$1 strategy=$2 filter=$3 stop=$4 options
    run_csv="$slot/run.csv"
    run_log="$slot/run.log"
    rm -f "$run_csv"
    local args=(--filter "$filter" --seed "$seed" --csv "$run_csv" --hang-seconds 20)
    [[ $stop == stop ]] && args+=(--stop-at-first-forbidden)
    if [[ $strategy == tsan ]]; then
        args+=(--duration "$seconds")
        options=$tsan_real
    else
        args+=(--explore "$strategy" --iterations "$schedules")
        options=$tsan_explore
    fi
    local begun
    begun=$(date +%s.%N)
    run_status=0
    SCHEDULERS_MUTANT="$mutant" TSAN_OPTIONS="$options" timeout -k 5 "$run_timeout" "$binary" "${args[@]}" \
        >"$run_log" 2>&1 || run_status=$?
    run_wall=$(awk -v a="$begun" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# The result CSV with its one quoted field (the guarantees, "5, 7") made
# comma-free, so that awk -F, counts the fields right.
csv_fields() {
    sed -E 's/"[^"]*"/quoted/g' "$1"
}

strategy_label() {
    case $1 in
        tsan) echo "real threads (TSan)" ;;
        *) echo "explore $1" ;;
    esac
}

[[ ${#selected[@]} -gt 0 ]] || fail "MUTANTS_ONLY=$only names no mutant of the catalog"
clean_failed=0
if [[ $clean == all ]]; then
    echo "== the correct library through every scenario of the catalog: it must be clean"
    union=$(for name in "${selected[@]}"; do echo "${filters_of[$name]}"; done | tr ',' '\n' | sort -u | paste -sd, -)
    mapfile -t union_scenarios < <(scenarios_for "$union")
    union_filter=$(IFS=,; echo "${union_scenarios[*]}")
    echo "   ${#union_scenarios[@]} scenarios: ${union_scenarios[*]}"
    for strategy in "${strategies[@]}"; do
        run_stress "" "$strategy" "$union_filter" full
        failed=$([[ -f $run_csv ]] && csv_fields "$run_csv" | awk -F, 'NR > 1 && $7 == "FAILED" { print $2 }' | sort -u | paste -sd' ' -)
        if [[ $run_status != 0 ]]; then
            clean_failed=1
            echo "   $(strategy_label "$strategy"): FAILED (exit $run_status) in ${run_wall} s: ${failed:-no result}"
            grep -E 'FORBIDDEN OUTCOME SEEN|FAILED|ThreadSanitizer: ' "$run_log" | head -n 20 | sed 's/^/     /'
        else
            echo "   $(strategy_label "$strategy"): clean in ${run_wall} s"
        fi
    done
fi
cleaned=$(date +%s)
[[ $clean_failed == 0 ]] || fail "the correct library is not clean on the catalog's scenarios (above): a catch would not mean anything"

# Waits until fewer than $jobs background jobs run.
wait_for_a_free_job() {
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
}

echo "== each mutant against the scenarios of its subsystem, stopping at the first catch ($jobs at once)"
# One mutant: its runs one after another in $slot; writes its result, its
# row and its line there (result, row, line), or why it could not run (error).
score_mutant() {
    local name=$1 scenarios scenario strategy outcome iterations secs
    local result=missed row="-|-|-|-|-" mutant_started
    mapfile -t scenarios < <(scenarios_for "${filters_of[$name]}")
    if [[ ${#scenarios[@]} == 0 ]]; then
        echo "$name: no scenario name contains ${filters_of[$name]}" >"$slot/error"
        return
    fi
    mutant_started=$(date +%s)
    for strategy in "${strategies[@]}"; do
        for scenario in "${scenarios[@]}"; do
            run_stress "$name" "$strategy" "$scenario" stop
            if [[ $run_status == 2 ]]; then
                echo "$name: Stress refused its command line: $(tail -n 3 "$run_log")" >"$slot/error"
                return
            fi
            [[ $run_status == 0 ]] && continue
            # A scenario whose name starts with this one's may have run too: only this one's rows count.
            outcome="" iterations="" secs=""
            if [[ -f $run_csv ]]; then
                read -r outcome iterations secs < <(awk -F, -v s="$scenario" '
                    NR > 1 && $2 == s {
                        iterations = $4; seconds = $5; live = $6
                        if ($9 == "FORBIDDEN" && $10 > 0 && found == "") found = $8
                        if ($7 == "FAILED") failed = 1
                    }
                    END {
                        if (!failed) exit
                        if (found == "" && live > 0) found = "leak(" live "-live)"
                        print (found == "" ? "failed" : found), iterations, seconds
                    }' < <(csv_fields "$run_csv"))
            fi
            if [[ -z $outcome ]]; then
                if [[ $run_status == 124 || $run_status == 137 ]]; then
                    outcome="hang(timeout)"
                elif [[ $run_status == 66 ]]; then
                    outcome="sanitizer-report"
                elif [[ $run_status -gt 128 ]]; then
                    outcome="crashed(signal-$((run_status - 128)))"
                else
                    continue
                fi
            fi
            [[ -z $iterations || $iterations == 0 ]] && iterations="-"
            if [[ -z $secs ]] || awk -v s="$secs" 'BEGIN { exit !(s == 0) }'; then
                secs=$run_wall
            fi
            result=caught
            row="$scenario|$(strategy_label "$strategy")|$outcome|$iterations|$(printf '%.2f' "$secs")"
            break 2
        done
    done
    echo "$result" >"$slot/result"
    echo "$row" >"$slot/row"
    echo "   $name: $result ($(( $(date +%s) - mutant_started )) s)" >"$slot/line"
}
declare -A result_of row_of
for name in "${selected[@]}"; do
    wait_for_a_free_job
    slot="$work/mutant-$name"
    mkdir -p "$slot"
    score_mutant "$name" &
done
wait
# In the catalog's order, whatever order they finished in.
for name in "${selected[@]}"; do
    slot="$work/mutant-$name"
    [[ -f $slot/error ]] && fail "$(cat "$slot/error")"
    [[ -f $slot/result ]] || fail "$name: its runs ended without a result"
    result_of[$name]=$(cat "$slot/result")
    row_of[$name]=$(cat "$slot/row")
    cat "$slot/line"
done
slot=$work
if [[ $clean == catches ]]; then
    echo "== the correct library through the scenario and strategy of each catch (seed $seed, same budget): it must be clean"
    # One catch's run on the correct library, in $slot: its line there
    # (line), and a file named failed when it was not clean.
    check_catch() {
        local scenario=$1 strategy=$2 strategy_shown=$3 name=$4
        run_stress "" "$strategy" "$scenario" full
        if [[ $run_status != 0 ]]; then
            touch "$slot/failed"
            {
                echo "   $scenario, $strategy_shown: FAILED (exit $run_status) in ${run_wall} s: the catch of $name means nothing"
                grep -E 'FORBIDDEN OUTCOME SEEN|FAILED|ThreadSanitizer: ' "$run_log" | head -n 20 | sed 's/^/     /'
            } >"$slot/line"
        else
            echo "   $scenario, $strategy_shown: clean in ${run_wall} s" >"$slot/line"
        fi
    }
    declare -A checked=()
    checks=()
    for name in "${selected[@]}"; do
        [[ ${result_of[$name]} == caught ]] || continue
        IFS='|' read -r scenario strategy_shown _ <<<"${row_of[$name]}"
        for strategy in "${strategies[@]}"; do
            [[ $(strategy_label "$strategy") == "$strategy_shown" ]] && break
        done
        [[ -z ${checked[$scenario/$strategy]:-} ]] || continue
        checked[$scenario/$strategy]=1
        wait_for_a_free_job
        slot="$work/clean-${#checks[@]}"
        checks+=("$slot")
        mkdir -p "$slot"
        check_catch "$scenario" "$strategy" "$strategy_shown" "$name" &
    done
    wait
    for slot in "${checks[@]}"; do
        cat "$slot/line"
        [[ -f $slot/failed ]] && clean_failed=1
    done
    slot=$work
fi
finished=$(date +%s)

echo
echo "== detection table (seed $seed; $schedules schedules per explored scenario, $seconds s per real-thread scenario)"
format='%-36s %-44s %-7s %-52s %-20s %-38s %10s %8s\n'
# shellcheck disable=SC2059
printf "$format" mutant kind result "first caught by scenario" strategy outcome iterations seconds
caught=0 ran=0 equivalent=0 regressions=()
for name in "${mutant_names[@]}"; do
    [[ -n ${result_of[$name]:-} ]] || continue
    if [[ ${expected_of[$name]} == equivalent && ${result_of[$name]} == missed ]]; then
        # No run through the public API can tell it from the correct
        # library: it is listed, not scored.
        equivalent=$((equivalent + 1))
    else
        ran=$((ran + 1))
    fi
    IFS='|' read -r scenario strategy outcome iterations secs <<<"${row_of[$name]}"
    # shellcheck disable=SC2059
    printf "$format" "$name" "${kind_of[$name]}" "${result_of[$name]}" "$scenario" "$strategy" "$outcome" "$iterations" "$secs"
    if [[ ${result_of[$name]} == caught ]]; then
        caught=$((caught + 1))
    elif [[ ${expected_of[$name]} == caught ]]; then
        regressions+=("$name")
    fi
done
echo
for name in "${mutant_names[@]}"; do
    if [[ ${result_of[$name]:-} == missed && ${expected_of[$name]} == equivalent ]]; then
        echo "equivalent (not scored): $name: ${reason_of[$name]}"
    elif [[ ${result_of[$name]:-} == missed ]]; then
        echo "missed: $name: ${reason_of[$name]}"
    elif [[ ${result_of[$name]:-} == caught && ${expected_of[$name]} == missed ]]; then
        echo "note: $name is now caught; $expected_file still lists it as missed (${reason_of[$name]})"
    fi
done
score=$(awk -v c="$caught" -v n="$ran" 'BEGIN { printf "%.0f", n ? 100 * c / n : 0 }')
echo "== score: $caught of $ran mutants caught ($score %)$([[ $equivalent -gt 0 ]] && echo ", and $equivalent equivalent mutant(s) not scored; $caught of $((ran + equivalent)) counting them")"
echo "== wall time: build $((built - started)) s, clean run $((cleaned - built)) s, mutants $((finished - cleaned)) s$([[ $clean == catches ]] && echo " (their clean runs included)"), total $((finished - started)) s"
rm -rf "$work"
[[ $clean_failed == 0 ]] || fail "the correct library is not clean where a mutant was caught (above): that catch would not mean anything"
if [[ ${#regressions[@]} -gt 0 ]]; then
    fail "caught before (per $expected_file), not caught now: ${regressions[*]}"
fi
echo "== OK: the correct library is clean, and every mutant $expected_file lists as caught was caught"
