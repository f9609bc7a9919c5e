import ArgumentParser
import BenchKit
import Foundation
import ToolSupport

/// `BenchRunner run` (the default): measure, show progress, write the CSV, print the summary.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the benchmark suite (the default command).",
        discussion: """
            Each benchmark warms up every variant once, then measures the variants interleaved \
            (A B C, A B C, ...) for every repetition; each repetition is one CSV row per metric. \
            Allocation counts (allocs_*, bytes_per_*) come from a separate counting pass under jemalloc \
            (see --allocator), so they never slow the timings down. \
            The CSV appears only when the run completes (never partially, never over an older file). \
            Exit status: 0 every measurement written; 1 a measurement failed (the other rows are written); \
            2 bad input (an unknown option or value, a --filter that matches nothing, an unwritable folder, a \
            refused registration).
            """)

    @OptionGroup var suite: SuiteOptions

    @Option(help: ArgumentHelp("Folder for the CSV; created if missing.", valueName: "dir"))
    var output = "results"

    @Option(
        help: ArgumentHelp(
            "How to time and count allocations: system, jemalloc or both (default: times under the system "
                + "allocator, counts in a jemalloc child).",
            discussion: """
                Default: the timing repetitions run in this process under the system allocator (allocator column \
                `system`); then a child process re-executed with jemalloc preloaded and its thread cache off \
                (MALLOC_CONF=tcache:false) counts allocations exactly at steady state (allocator column `jemalloc`, \
                allocs_*/bytes_per_* metrics only, 3 short repetitions). Without jemalloc installed the counts are \
                left empty and the run says how to install it. \
                system: times only, counts empty. \
                jemalloc: times and counts all under jemalloc without its thread cache; every allocation then takes \
                jemalloc's slow path, which distorts times (most for peers that allocate per element): compare \
                such times only with other jemalloc times. \
                both: the default run plus a full jemalloc run, in one CSV.
                """,
            valueName: "system|jemalloc|both"))
    var allocator: AllocatorChoice?

    @Option(
        help: ArgumentHelp(
            "Split the timing repetitions across this many processes, run one after another (default 1).",
            discussion: """
                A hop's level moves between processes as well as within one, so repetitions from one process \
                understate the spread the next run shows. With --forks n each of n fresh processes (this \
                executable again, with its own warm-up) runs its share of the repetitions (7 over 3 forks: 3, 2, \
                2), and their rows form one series per variant, numbered on; compare then sees the spread between \
                processes among the repetitions. Times under the system allocator; counts as usual.
                """,
            valueName: "n"))
    var forks = 1

    @Flag(
        help: ArgumentHelp(
            "Measure each benchmark in a process of its own: a scheduler that traps loses only its benchmark's rows.",
            discussion: """
                Without it a failing measurement (a scheduler that never runs its actions, a broken promise) is \
                dropped and the run goes on, but a crash ends the process and every row with it. With --isolate \
                each benchmark runs in a fresh process (this executable again); a process that crashes or fails \
                is reported, and every other benchmark's rows are written. Exit status 1 when anything failed.
                """))
    var isolate = false

    /// Internal: run only the benchmark of this name (a child of --isolate).
    @Option(help: .hidden)
    var onlyBenchmark: String?

    /// Internal: a child process writes its rows here instead of into the output folder.
    @Option(help: .hidden)
    var rowsFile: String?

    /// Internal: the run id the parent chose.
    @Option(help: .hidden)
    var runID: String?

    /// Counts allocations and times nothing: the counting pass alone (also
    /// the counting child of a default run). Allocation counts are exact
    /// from one repetition, so an allocation gate (`compare --gate exact`)
    /// needs nothing more.
    @Flag(
        help: ArgumentHelp(
            "Count allocations only (exact, one repetition a benchmark) and time nothing: "
                + "what an allocation gate needs (then: compare --gate exact BASELINE NEW)."))
    var countsOnly = false

    /// Internal: a process of a benchmark timed across processes of its own
    /// (Benchmark.processes(in:)): time only, its parent counts.
    @Flag(help: .hidden)
    var timingOnly = false

    @Option(
        help: ArgumentHelp(
            "Instruction counts (instructions_per_*): count (default), skip, or only (write nothing else).",
            discussion: """
                After the timings and allocation counts, a child process run under valgrind's callgrind counts the \
                instructions per operation of the CPU-bound paths on one thread (allocator column `callgrind`; \
                docs/InstructionCounts.md). Without valgrind the counts are left empty and the run says how to \
                install it. `only` writes just those rows (the CI gate's run) and fails without valgrind.
                """,
            valueName: "count|skip|only"))
    var instructions: InstructionPass.Mode = .count

    /// Internal: the callgrind child of a run: runs the instruction workloads, writes the manifest to --rows-file.
    @Flag(help: .hidden)
    var instructionChild = false

    func validate() throws {
        if forks < 1 {
            throw ValidationError("--forks must be 1 or more (processes that share the repetitions), e.g. --forks 3")
        }
        if isolate && forks > 1 {
            throw ValidationError("--isolate and --forks both start processes of their own: give one of them")
        }
        if forks > 1 && rowsFile == nil && (allocator == .jemalloc || allocator == .both) {
            throw ValidationError("--forks times under the system allocator: give it without --allocator jemalloc or both")
        }
    }

    func run() throws {
        let started = MeasureContext.now()
        let resultFile = ResultsFolder(directory: output)
        if rowsFile == nil {
            do {
                try resultFile.checkWritable()
            } catch let error as ResultsFolderError {
                throw ValidationError(error.description)
            }
        }
        // Resolve the filter before anything runs, so a typo fails at once.
        let selectedPlans: [MeasurementPlan]
        do {
            selectedPlans = try SuiteRunner(
                configuration: suite.configuration(recursionProbe: nil), filter: BenchmarkFilter(suite.patterns),
                counter: .disabled
            ).selectedPlans()
        } catch let error as BenchmarkFilterError {
            throw ValidationError(error.description)
        }
        if instructionChild || instructions == .only {
            try runInstructionsOnly(resultFile)
            return
        }
        if isolate && rowsFile == nil {
            return try runIsolated(selectedPlans, resultFile: resultFile)
        }
        let setup = MeasurementSetup.prepare(options)
        let allocatorName = setup.allocatorName
        let pass = timingOnly ? .elsewhere : setup.pass
        var environment = RunEnvironment.current(allocator: allocatorName)
        if let runID { environment.runID = runID }
        let probe = PlainRecursionProbe(
            executable: AllocatorLauncher.executablePath, arguments: ToolInvocation.childArguments(["probe-recursion"]))
        let configuration = suite.configuration(recursionProbe: probe)
        let benchmarks = BenchmarkCatalog.all.filter { onlyBenchmark == nil || $0.schema.name == onlyBenchmark }
        var patterns = suite.patterns
        if onlyBenchmark != nil {
            // A child of --isolate: the patterns that select something of its
            // benchmark (the parent started it because one does).
            let plans = benchmarks.flatMap { $0.plans(for: configuration) }
            patterns = patterns.filter { pattern in plans.contains(where: BenchmarkFilter([pattern]).matches) }
        }
        // Benchmarks that spread their timing over processes of their own
        // (Benchmark.processes(in:)), unless --forks already spreads the
        // whole run or this is a child process.
        let selected = Set(selectedPlans.map(\.benchmark))
        let spread: [(name: String, processes: Int, total: Int)] =
            forks == 1 && rowsFile == nil && !countsOnly
            ? benchmarks.compactMap { benchmark in
                let processes = benchmark.processes(in: configuration.size)
                guard processes > 1, selected.contains(benchmark.schema.name) else { return nil }
                return (benchmark.schema.name, processes, configuration.repetitions(of: benchmark))
            } : []
        // The rounds each adaptive benchmark took in the last such run here,
        // for the progress line's plan (PriorRounds).
        let priorRounds =
            configuration.adaptive != nil && configuration.repetitionsOverride == nil
            ? PriorRounds.newest(in: output, benchmarks: selected) : [:]
        // What each stage cost against its plan in the newest run of this
        // suite in the results folder: the time left takes each stage at it
        // (ProgressHistory). A counting child reads it too; only a top-level
        // run writes it.
        let historyPath = ProgressHistory.path(suite: configuration.name, in: output)
        let history = isForking || timingOnly ? nil : ProgressHistory.load(path: historyPath)
        let runner = SuiteRunner(
            configuration: configuration, benchmarks: benchmarks, filter: BenchmarkFilter(patterns),
            counter: timingOnly ? .disabled : setup.counter, allocationPass: pass, timedElsewhere: Set(spread.map(\.name)),
            priorRounds: priorRounds, countedAfterwards: setup.child != nil && !timingOnly && rowsFile == nil,
            history: history)
        if rowsFile != nil {
            // A child: its parent has said what the run is.
        } else if countsOnly {
            print("\(BenchRunnerMain.programName): counting allocations under \(allocatorName) (thread cache off), "
                + "\(configuration.countingRepetitions) repetitions of \(configuration.countingBatch) operations")
        } else {
            let counting =
                switch pass {
                case .elsewhere: "counts in a jemalloc child"
                case .here, .only: "counts here"
                case .unavailable: "no allocation counts"
                }
            let split = isForking ? " in \(ForkedRun.repetitions(total: configuration.repetitions, forks: forks).count) processes "
                + "(\(ForkedRun.repetitions(total: configuration.repetitions, forks: forks).map(String.init).joined(separator: " + ")))" : ""
            let repetitions =
                if let adaptive = configuration.adaptive, configuration.repetitionsOverride == nil, !isForking {
                    "\(adaptive.minimum)-\(adaptive.maximum) repetitions a benchmark as its series need "
                        + "(within a time budget each)"
                } else {
                    "\(configuration.repetitions) repetitions"
                }
            print("\(BenchRunnerMain.programName): \(configuration.name) suite, \(repetitions)\(split), "
                + "times under \(allocatorName), \(counting), \(environment.cores) cores, git \(environment.gitRevision)")
        }
        fflush(nil)
        let progress = ProgressReporter.automatic()
        var rows: [CSVRow]
        var failure: SuiteFailure?
        // Each spread benchmark's rows, by pass (a second pass when it is
        // timed again), and what its first pass took.
        var spreadPasses: [(name: String, passes: [[CSVRow]], seconds: Double)] = []
        // A benchmark whose process fails loses its timing rows only, as a
        // failing plan does in one process; the run goes on and exits 1.
        var spreadFailures: [String] = []
        func timeSpread(_ benchmark: (name: String, processes: Int, total: Int)) throws -> [CSVRow] {
            try ForkedRun.runBenchmark(
                benchmark.name, processes: benchmark.processes, total: benchmark.total,
                options: options, runID: environment.runID,
                progress: { line in
                    print(line)
                    fflush(nil)
                })
        }
        for benchmark in spread {
            let started = MeasureContext.now()
            let shares = ForkedRun.repetitions(total: benchmark.total, forks: benchmark.processes)
            print("[\(benchmark.name)] timed in \(shares.count) processes of its own "
                + "(\(shares.map(String.init).joined(separator: " + ")) repetitions), each with its own warm-up")
            fflush(nil)
            var passes: [[CSVRow]] = []
            do {
                passes.append(try timeSpread(benchmark))
            } catch {
                progress.note("error: \(error); its times are missing, the run goes on")
                spreadFailures.append("\(error)")
            }
            spreadPasses.append((benchmark.name, passes, Double(MeasureContext.now() &- started) / 1e9))
        }
        // A benchmark read at its usual level whose processes kept too few
        // repetitions at that level (an episode of the machine's slower
        // levels took them) is timed once more in as many processes, after
        // the rest of the suite, and its new repetitions are numbered on:
        // compare reads the usual level from all of them, and more
        // repetitions taken during the same episode would not help. The
        // time left counts it from now, at what its first timing took.
        let usualShares = ResultFile.usualLevelShares(of: spreadPasses.flatMap { $0.passes.joined() })
        let timedAgain = spread.indices.filter { index in
            usualShares[spread[index].name].map { $0 < BenchmarkSchema.usualLevelMinimumShare } ?? false
        }
        for index in timedAgain {
            let benchmark = spread[index]
            let share = usualShares[benchmark.name] ?? 0
            print("[\(benchmark.name)] kept \(Int((share * 100).rounded())) % of its repetitions at its usual level "
                + "(fewer than \(Int((BenchmarkSchema.usualLevelMinimumShare * 100).rounded())) %): it is timed again "
                + "in \(benchmark.processes) processes after the rest of the suite, its repetitions numbered on")
        }
        fflush(nil)
        progress.reserveAfterStages(seconds: timedAgain.reduce(0) { $0 + spreadPasses[$1].seconds })
        let countsInstructions = instructions == .count && rowsFile == nil && !countsOnly
        // The instruction pass alone, when no counting child runs beside it
        // (its stages would hold both), at what it took in the last such run.
        if countsInstructions && setup.child == nil {
            progress.reserveAfterStages(seconds: history?.instructionSeconds ?? 0)
        }
        if isForking {
            rows = try ForkedRun.run(
                forks: forks, total: configuration.repetitions, options: options,
                runID: environment.runID, keepEmptyCounts: pass == .unavailable)
        } else {
            do {
                rows = try MainQueueDriver.runWhileDrainingMainQueue { try runner.run(progress: progress) }
            } catch let suiteFailure as SuiteFailure {
                // The measurements that completed are written all the same.
                rows = suiteFailure.rows
                failure = suiteFailure
            }
        }
        for index in timedAgain {
            print("[\(spread[index].name)] timed again in \(spread[index].processes) processes of its own")
            fflush(nil)
            do {
                spreadPasses[index].passes.append(try timeSpread(spread[index]))
            } catch {
                progress.note("note: timing \(spread[index].name) again failed (\(error)); its first processes' rows stand")
            }
        }
        // Numbered on from pass to pass, as a fork's rows are from the previous fork's.
        let spreadRows = spreadPasses.flatMap { ForkedRun.merge($0.passes) }
        rows = spreadRows + rows
        let timingEnded = MeasureContext.now()
        // Nothing is timed from here on, so the callgrind children count
        // while the allocation child counts, in about half the time the two
        // take one after the other: callgrind's counts are the fewest of
        // three children (InstructionPass.count), and allocation counts,
        // taken in a process of their own, do not depend on what runs beside
        // it.
        var instructionRows: ThreadWork<[CSVRow]>?
        if countsInstructions {
            let plans = try runner.selectedPlans()
            let options = options
            let runID = environment.runID
            instructionRows = ThreadWork {
                InstructionPass.rows(plans: plans, options: options, runID: runID, note: progress.note)
            }
        }
        if let child = setup.child, !timingOnly {
            do {
                rows += try AllocationChild.run(child, options: options, runID: environment.runID)
            } catch {
                progress.note("note: allocation counts are missing: \(error)")
            }
        }
        rows += instructionRows?.wait() ?? []
        if rowsFile == nil && !isForking && !timingOnly {
            // The counting child's pass (beside the instruction pass) is what
            // this process planned as its counting stages.
            // Without a child, the instruction pass ran alone after the
            // timing: recorded as its own seconds.
            let afterTiming = Double(MeasureContext.now() &- timingEnded) / 1e9
            var record = progress.history(countedElsewhere: setup.child != nil ? afterTiming : nil)
            if setup.child == nil && instructionRows != nil { record.instructionSeconds = afterTiming }
            (history ?? ProgressHistory()).updated(with: record).save(path: historyPath)
        }
        let document = CSVWriter(environment: environment).document(rows)
        if let rowsFile {
            try document.write(toFile: rowsFile, atomically: true, encoding: .utf8)
            if let failure {
                FileHandle.standardError.write(Data("\(BenchRunnerMain.programName): \(failure)\n".utf8))
                throw ExitCode(1)
            }
            return
        }
        if allocator == .both {
            for name in ["system", "jemalloc"] {
                print("\n== allocator \(name) ==")
                print(SummaryTable.render(rows.filter { ($0.allocator ?? allocatorName) == name }))
            }
        } else {
            print(SummaryTable.render(rows))
        }
        if allocator == .both && pass == .elsewhere {
            print("system: times only; jemalloc: times (slowed by jemalloc without thread cache) and allocation counts.")
        }
        print(Self.sourcesNote(pass: pass, allocator: allocatorName, configuration: configuration))
        let path = try resultFile.write(document, environment: environment)
        let seconds = Double(MeasureContext.now() &- started) / 1e9
        print("the whole run took \(ProgressReporter.format(seconds: seconds)) (process starts, timing, counting and "
            + "instruction counts included)")
        print("wrote \(rows.count) rows to \(path)")
        let failures = spreadFailures + (failure.map { ["\($0)"] } ?? [])
        if !failures.isEmpty {
            FileHandle.standardError.write(
                Data("\(BenchRunnerMain.programName): \(failures.joined(separator: "\n"))\nThe other measurements are in \(path).\n".utf8))
            throw ExitCode(1)
        }
    }

    /// `--isolate`: each benchmark of `plans` in a child process
    /// (``IsolatedRun``), their rows in one CSV.
    private func runIsolated(_ plans: [MeasurementPlan], resultFile: ResultsFolder) throws {
        var benchmarks: [String] = []
        for plan in plans where !benchmarks.contains(plan.benchmark) {
            benchmarks.append(plan.benchmark)
        }
        let environment = RunEnvironment.current(allocator: allocator == .jemalloc ? "jemalloc" : "system")
        print("\(BenchRunnerMain.programName): \(benchmarks.count) benchmark(s), each in a process of its own (--isolate)")
        fflush(nil)
        let outcome = try IsolatedRun.run(
            benchmarks: benchmarks, options: options, runID: environment.runID)
        print(SummaryTable.render(outcome.rows))
        let path = try resultFile.write(CSVWriter(environment: environment).document(outcome.rows), environment: environment)
        print("wrote \(outcome.rows.count) rows to \(path)")
        if !outcome.failures.isEmpty {
            FileHandle.standardError.write(Data(
                ("\(BenchRunnerMain.programName): \(outcome.failures.count) benchmark(s) failed:\n  "
                    + outcome.failures.joined(separator: "\n  ") + "\n").utf8))
            throw ExitCode(1)
        }
    }

    /// `--instructions only` (counts in a callgrind child, writes the rows) and
    /// the callgrind child itself (runs the workloads, writes the manifest).
    private func runInstructionsOnly(_ resultFile: ResultsFolder) throws {
        var environment = RunEnvironment.current(allocator: InstructionPass.counterName)
        if let runID { environment.runID = runID }
        let plans = try SuiteRunner(
            configuration: suite.configuration(recursionProbe: nil), filter: BenchmarkFilter(suite.patterns),
            counter: .disabled
        ).selectedPlans()
        if instructionChild {
            guard let rowsFile else { throw ValidationError("--instruction-child needs --rows-file") }
            try InstructionPass.runChild(plans: plans, manifestPath: rowsFile, environment: environment)
            return
        }
        guard !InstructionPass.counted(plans).isEmpty else {
            throw ValidationError("--instructions only: the selected benchmarks count no instructions")
        }
        print("\(BenchRunnerMain.programName): instruction counts under callgrind, git \(environment.gitRevision)")
        fflush(nil)
        let rows: [CSVRow]
        do {
            rows = try InstructionPass.count(options: options, runID: environment.runID)
        } catch let error as BenchmarkFailure {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let document = CSVWriter(environment: environment).document(rows)
        if let rowsFile {
            try document.write(toFile: rowsFile, atomically: true, encoding: .utf8)
            return
        }
        print(SummaryTable.render(rows))
        let path = try resultFile.write(document, environment: environment)
        print("wrote \(rows.count) rows to \(path)")
    }

    /// Every option this command parsed, as one value: what each process
    /// the run starts of this executable is given (``RunOptions``).
    var options: RunOptions {
        var options = RunOptions()
        options.quick = suite.quick
        options.filters = suite.filters
        options.repetitions = suite.repetitions
        options.minRepetitionMs = suite.minRepetitionMs
        options.floods = suite.floods
        options.scale = suite.scale
        options.scaleN = suite.scaleN
        options.output = output
        options.allocator = allocator
        options.forks = forks
        options.isolate = isolate
        options.instructions = instructions
        options.instructionChild = instructionChild
        options.onlyBenchmark = onlyBenchmark
        options.timingOnly = timingOnly
        options.countsOnly = countsOnly
        options.rowsFile = rowsFile
        options.runID = runID
        return options
    }

    /// Whether this process splits its timing repetitions across forks
    /// rather than measuring them itself (never in a child).
    private var isForking: Bool {
        forks > 1 && rowsFile == nil && !countsOnly
    }

    /// Says under which allocator the summary's numbers were taken.
    static func sourcesNote(pass: AllocationPass, allocator: String, configuration: SuiteConfiguration) -> String {
        let counts = "allocs_*/bytes_per_*: exact jemalloc counts at steady state, one gated batch of "
            + "\(configuration.countingBatch) after warm-up (a fraction is per-batch work spread over the batch)"
        switch pass {
        case .elsewhere:
            return "times: \(allocator) allocator; \(counts)."
        case .here, .only:
            return "times and counts under jemalloc without thread cache (times are slower than under the system "
                + "allocator); \(counts)."
        case .unavailable:
            return "times: \(allocator) allocator; allocation counts not taken."
        }
    }
}

extension InstructionPass.Mode: ExpressibleByArgument {}
