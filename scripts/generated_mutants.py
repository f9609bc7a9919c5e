#!/usr/bin/env python3
"""Measures the unit tests and Stress against mutants nobody here chose.

universalmutator (PyPI) applies its Swift rules to the library's concurrency
files; with a fixed seed this script draws mutants from all that it generates,
keeps the first ones that compile, and runs each against the library's unit
tests and against Stress, in a copy of the repository of their own (the work
tree is never touched). Each mutant ends as one of:

  tests        a unit test failed (or the test run hung past its bound)
  stress       Stress reported a forbidden outcome, a leak, a hang or a trap
  both         both of the above
  neither      nothing caught it: a survivor, to be shown equivalent or
               caught by a new test or scenario
  no-compile   the mutant does not build; drawn again, not counted

The result file lists every mutant run (file, line, the change, its verdict)
and the survivors' reasons, which scripts/generated-mutants-reasons.txt
holds by mutant key (file:line:rule) where one was shown equivalent.

Lines of `#if SCHEDULERS_MUTANTS` blocks are never mutated: they are the
hand-written mutant catalog (Sources/Schedulers/Internal/Mutant.swift), not
library code. `--self-test` checks that rule and exits (no universalmutator
needed).

Usage: scripts/generated_mutants.py [--seed 1] [--count 40] [--out FILE]
         [--work DIR] [--only KEY,KEY]
       scripts/generated_mutants.py --self-test
Needs: pip install universalmutator; swift on PATH. It takes hours on two
cores (a debug build, the library's tests and a Stress run per mutant); it
is not part of CI.
"""

import argparse
import difflib
import os
import random
import shutil
import subprocess
import sys
import time

# The library's concurrency files: disposables, the action cell,
# observe(on:)'s queue, both executors, the periodic jobs, the trampoline.
FILES = [
    "Sources/Schedulers/Disposables/BooleanDisposable.swift",
    "Sources/Schedulers/Disposables/CompositeDisposable.swift",
    "Sources/Schedulers/Disposables/DisposeBag.swift",
    "Sources/Schedulers/Disposables/RefCountDisposable.swift",
    "Sources/Schedulers/Disposables/ScheduledDisposable.swift",
    "Sources/Schedulers/Disposables/SerialDisposable.swift",
    "Sources/Schedulers/Disposables/SingleAssignmentDisposable.swift",
    "Sources/Schedulers/Internal/ScheduledActionCell.swift",
    "Sources/Schedulers/Operators/ObserveOn/ObserveOnQueue.swift",
    "Sources/Schedulers/Operators/ObserveOn/ObserveOnStateMachine.swift",
    "Sources/Schedulers/Operators/ObserveOn/ElementBuffer.swift",
    "Sources/Schedulers/Concurrency/SerialSchedulerExecutor.swift",
    "Sources/Schedulers/Concurrency/SchedulerTaskExecutor.swift",
    "Sources/Schedulers/Periodic/EmulatedPeriodicJob.swift",
    "Sources/Schedulers/Periodic/PeriodicDisposable.swift",
    "Sources/Schedulers/Dispatch/DispatchPeriodicTimer.swift",
    "Sources/Schedulers/Trampoline/Trampoline.swift",
    "Sources/Schedulers/Trampoline/CurrentThreadScheduler.swift",
]

# A run past these bounds is a hang of the mutant: caught. The library's
# tests take about a minute here, Stress's run of 2,000 iterations less.
TEST_TIMEOUT = 300
STRESS_TIMEOUT = 300


def run(cmd, cwd, timeout, log):
    """Runs cmd; returns its exit status, or 'timeout'."""
    with open(log, "w") as out:
        try:
            return subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return "timeout"


def is_code(line):
    text = line.strip()
    return bool(text) and not text.startswith("//") and not text.startswith("*") \
        and not text.startswith("/*")


def mutant_catalog_lines(lines):
    """The 0-based indices of lines that belong to the hand-written mutant
    catalog: every line of an `#if SCHEDULERS_MUTANTS` branch (up to its
    `#else`, `#elseif` or `#endif`; nested blocks included) and the directives
    of such a block. An `#else` branch is the normal build's code: kept."""
    catalog = set()
    # One entry per open #if: (whether it is `#if SCHEDULERS_MUTANTS`,
    # whether its current branch is the catalog).
    stack = []

    def within():
        return any(branch for _, branch in stack)

    for index, line in enumerate(lines):
        words = line.split("//")[0].split()
        directive = words[0] if words else ""
        if directive == "#if":
            is_catalog = words[1:] == ["SCHEDULERS_MUTANTS"]
            if is_catalog or within():
                catalog.add(index)
            stack.append((is_catalog, is_catalog))
        elif directive in ("#else", "#elseif", "#endif") and stack:
            is_catalog, _ = stack[-1]
            if directive == "#endif":
                stack.pop()
            else:
                stack[-1] = (is_catalog, False)
            if is_catalog or within():
                catalog.add(index)
        elif within():
            catalog.add(index)
    return catalog


SELF_TEST_SOURCE = """\
let a = 1
#if SCHEDULERS_MUTANTS
if Mutant.active == .x {
    #if os(Linux)
    return nil
    #endif
}
#else
let b = 2
#endif
#if os(Linux)
let c = 3
    #if SCHEDULERS_MUTANTS // a comment
    let d = 4
    #endif
#elseif canImport(Darwin)
let e = 5
#endif
let f = 6
"""
# 0-based: lines 1-7 (the first block to its #else), 9 (its #endif), 12-14 (the nested block).
SELF_TEST_EXPECTED = {1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 14}


def self_test(repo):
    """Checks mutant_catalog_lines on a sample, and on FILES that every line
    naming `Mutant.active` is left out; returns a list of failures."""
    failures = []
    found = mutant_catalog_lines(SELF_TEST_SOURCE.splitlines())
    if found != SELF_TEST_EXPECTED:
        failures.append(f"sample: expected lines {sorted(SELF_TEST_EXPECTED)}, found {sorted(found)}")
    named = 0
    for rel in FILES:
        path = os.path.join(repo, rel)
        if not os.path.exists(path):
            failures.append(f"{rel} does not exist; update FILES")
            continue
        lines = open(path).read().splitlines()
        catalog = mutant_catalog_lines(lines)
        for index, line in enumerate(lines):
            if "Mutant.active" in line:
                named += 1
                if index not in catalog:
                    failures.append(f"{rel}:{index + 1} names Mutant.active outside an #if SCHEDULERS_MUTANTS block")
    if named == 0:
        failures.append("no line of FILES names Mutant.active: the check on FILES checked nothing")
    return failures


def generate(repo, work):
    """Every mutant universalmutator makes of FILES, as (key, file, line, old, new, path)."""
    mutants = []
    for rel in FILES:
        source = os.path.join(repo, rel)
        if not os.path.exists(source):
            sys.exit(f"generated_mutants: {rel} does not exist; update FILES")
        stem = os.path.basename(rel)[:-len(".swift")]
        out = os.path.join(work, "generated", stem)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        subprocess.run(["mutate", source, "swift", "--noCheck", "--mutantDir", out],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        original = open(source).read().splitlines()
        catalog = mutant_catalog_lines(original)
        names = sorted(os.listdir(out), key=lambda n: int(n.split(".")[-2]))
        for name in names:
            path = os.path.join(out, name)
            mutated = open(path).read().splitlines()
            changes = [op for op in difflib.SequenceMatcher(None, original, mutated, autojunk=False).get_opcodes()
                       if op[0] != "equal"]
            if len(changes) != 1 or changes[0][2] - changes[0][1] != 1:
                continue
            tag, i, _, j1, j2 = changes[0]
            old = original[i]
            new = mutated[j1] if tag == "replace" and j2 - j1 == 1 else "(line deleted)" if tag == "delete" else None
            if new is None:
                continue
            if not is_code(old) or i in catalog:
                continue
            key = f"{rel}:{i + 1}:{name.split('.')[-2]}"
            mutants.append((key, rel, i + 1, old.strip(), new.strip(), path))
    return mutants


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=40, help="mutants that compile, to run")
    parser.add_argument("--out", help="result file (default results/generated-mutants-<rev>.txt)")
    parser.add_argument("--work", default="/tmp/generated-mutants", help="scratch folder")
    parser.add_argument("--only", help="comma-separated mutant keys to run instead of a sample")
    parser.add_argument("--rev", default="HEAD", help="the revision whose library is mutated (default HEAD)")
    parser.add_argument("--rewrite", action="store_true",
                        help="only write the result file again from its rows, with the current reasons")
    parser.add_argument("--resume", action="store_true",
                        help="keep the mutants the result file already lists and go on with the sample")
    parser.add_argument("--self-test", action="store_true",
                        help="only check that lines of #if SCHEDULERS_MUTANTS blocks are never candidates, and exit")
    args = parser.parse_args()
    if args.self_test:
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        failures = self_test(repo)
        for failure in failures:
            print(f"generated_mutants --self-test: {failure}", file=sys.stderr)
        if failures:
            sys.exit(1)
        print("generated_mutants --self-test: OK (the hand-written mutant catalog's lines are never candidates)")
        return
    if args.count < 1:
        sys.exit("generated_mutants: --count must be at least 1")
    if shutil.which("mutate") is None:
        sys.exit("generated_mutants: universalmutator is missing: pip install universalmutator")

    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                          text=True, check=True).stdout.strip()
    rev = subprocess.run(["git", "-C", repo, "rev-parse", "--short=12", args.rev], capture_output=True,
                         text=True, check=True).stdout.strip()
    out_path = args.out or os.path.join(repo, "results", f"generated-mutants-{rev}.txt")
    if args.rewrite:
        args.resume = True
    os.makedirs(args.work, exist_ok=True)
    copy = os.path.join(args.work, "repo")
    if not args.rewrite:
        if not os.path.isdir(copy):
            subprocess.run(["git", "clone", "-q", repo, copy], check=True)
        subprocess.run(["git", "-C", copy, "fetch", "-q", repo], check=True)
        subprocess.run(["git", "-C", copy, "checkout", "-q", "--force", rev], check=True)

    version = subprocess.run([sys.executable, "-m", "pip", "show", "universalmutator"], capture_output=True,
                             text=True).stdout
    version = next((v.split()[-1] for v in version.splitlines() if v.startswith("Version:")), "unknown")
    if args.rewrite:
        header = open(out_path).readline()
        generated = int(header.split(" generated")[0].rsplit(" ", 1)[-1])
        mutants = [None] * generated
    else:
        mutants = generate(copy, args.work)
    by_key = {m[0]: m for m in mutants if m}
    if args.rewrite:
        order = []
    elif args.only:
        order = [by_key[k] for k in args.only.split(",")]
    else:
        order = list(mutants)
        random.Random(args.seed).shuffle(order)
    print(f"== {len(mutants)} mutants generated from {len(FILES)} files; seed {args.seed}", flush=True)

    def write(rows, final):
        # KEY equivalent WHY | KEY test TEST WHY (a test added since, shown
        # failing with the mutant applied: scripts/generated_mutants.py --verify).
        reasons = {}
        reasons_file = os.path.join(repo, "scripts", "generated-mutants-reasons.txt")
        if os.path.exists(reasons_file):
            for text in open(reasons_file):
                if text.strip() and not text.startswith("#"):
                    k, kind, rest = text.rstrip("\n").split(" ", 2)
                    reasons[k] = (kind, rest.strip())

        counted = [r for r in rows if r[5] != "no-compile"]
        equivalent = [r for r in counted if r[5] == "neither" and reasons.get(r[0], ("",))[0] == "equivalent"]
        added = [r for r in counted if r[5] == "neither" and reasons.get(r[0], ("",))[0] == "test"]
        live = [r for r in counted if r not in equivalent]
        caught = [r for r in live if r[5] != "neither" or r in added]
        stress_alone = [r for r in live if r[5] in ("stress", "both")]
        tests_alone = [r for r in live if r[5] in ("tests", "both")]
        with open(out_path, "w") as out:
            out.write(f"# Generated mutants at {rev}: universalmutator {version}'s Swift rules, seed {args.seed}, "
                      f"{len(mutants)} generated, {drawn} drawn, {no_compile} did not compile"
                      + ("." if final else f"; in progress ({len(counted)} of {args.count} run).") + "\n")
            out.write("# scripts/generated_mutants.py --seed %d --count %d\n" % (args.seed, args.count))
            out.write("# key | file | line | original | mutant | verdict | detail\n")
            for key, rel, line, old, new, verdict, detail in rows:
                if verdict == "neither" and key in reasons:
                    kind, why = reasons[key]
                    verdict, detail = ("equivalent", why) if kind == "equivalent" else ("test-added", why)
                out.write(f"{key} | {rel} | {line} | {old} | {new} | {verdict} | {detail}\n")
            share = 100.0 * len(caught) / len(live) if live else 0.0
            out.write(f"# Summary: {len(counted)} run, {len(equivalent)} equivalent, {len(live)} not equivalent; "
                      f"caught {len(caught)} ({share:.1f} %): by unit tests {len(tests_alone)}, "
                      f"by Stress {len(stress_alone)} ({100.0 * len(stress_alone) / len(live) if live else 0:.1f} %), "
                      f"by a test added for a survivor {len(added)}; survivors {len(live) - len(caught)}\n")

    logs = os.path.join(args.work, "logs")
    os.makedirs(logs, exist_ok=True)
    rows = []
    drawn = no_compile = 0
    if args.resume and os.path.exists(out_path):
        for text in open(out_path):
            if text.startswith("#"):
                continue
            key, rel, line, old, new, verdict, detail = [f.strip() for f in text.rstrip("\n").split(" | ")]
            rows.append((key, rel, int(line), old, new, "neither" if verdict in ("equivalent", "test-added") else verdict,
                         "" if verdict in ("equivalent", "test-added") else detail))
        drawn = len(rows)
        no_compile = len([r for r in rows if r[5] == "no-compile"])
        print(f"== resuming after {drawn} mutants of {out_path}", flush=True)
    done = {r[0] for r in rows}
    for key, rel, line, old, new, path in order:
        if key in done:
            continue
        if len([r for r in rows if r[5] != "no-compile"]) >= args.count:
            break
        drawn += 1
        target = os.path.join(copy, rel)
        pristine = open(target).read()
        shutil.copyfile(path, target)
        started = time.time()
        tag = key.replace("/", "_").replace(":", "_")
        try:
            status = run(["swift", "build", "--build-tests"], copy, 1800, f"{logs}/{tag}.build.log")
            if status != 0:
                no_compile += 1
                rows.append((key, rel, line, old, new, "no-compile", ""))
                print(f"   {key}: does not compile", flush=True)
                continue
            tests = run(["swift", "test", "--skip-build", "--filter", "SchedulersTests"], copy,
                        TEST_TIMEOUT, f"{logs}/{tag}.tests.log")
            stress = run([".build/debug/Stress", "--iterations", "2000", "--hang-seconds", "20",
                          "--seed", str(args.seed)], copy, STRESS_TIMEOUT, f"{logs}/{tag}.stress.log")
        finally:
            open(target, "w").write(pristine)
        by_tests, by_stress = tests != 0, stress != 0
        verdict = {(True, True): "both", (True, False): "tests", (False, True): "stress",
                   (False, False): "neither"}[(by_tests, by_stress)]
        detail = f"tests exit {tests}, stress exit {stress}, {time.time() - started:.0f} s"
        rows.append((key, rel, line, old, new, verdict, detail))
        print(f"   {key}: {verdict} ({detail})", flush=True)
        write(rows, False)

    counted = len([r for r in rows if r[5] != "no-compile"])
    write(rows, counted >= args.count)
    print(open(out_path).read().splitlines()[-1])
    print(f"== written {out_path}")


if __name__ == "__main__":
    main()
