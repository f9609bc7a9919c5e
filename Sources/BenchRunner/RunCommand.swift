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
            The CSV appears only when the run completes (never partially, never over an older file).
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

    /// Internal: a child process writes its rows here instead of into the output folder.
    @Option(help: .hidden)
    var rowsFile: String?

    /// Internal: the run id the parent chose.
    @Option(help: .hidden)
    var runID: String?

    /// Internal: the counting child of a default run: count allocations, time nothing.
    @Flag(help: .hidden)
    var countsOnly = false

    func run() throws {
        let resultFile = ResultsFolder(directory: output)
        if rowsFile == nil {
            do {
                try resultFile.checkWritable()
            } catch let error as ResultsFolderError {
                throw ValidationError(error.description)
            }
        }
        // Resolve the filter before anything runs, so a typo fails at once.
        do {
            _ = try SuiteRunner(
                configuration: suite.configuration(recursionProbe: nil), filter: BenchmarkFilter(suite.patterns),
                counter: .disabled
            ).selectedPlans()
        } catch let error as BenchmarkFilterError {
            throw ValidationError(error.description)
        }
        let libraryPath = AllocatorLauncher.jemallocLibraryPath()
        let strategy = AllocationStrategy.choose(
            allocator: allocator, countsOnly: countsOnly, jemallocInstalled: libraryPath != nil)
        var countsUnavailableReason = strategy.countsUnavailableReason
        switch AllocatorLauncher.decide(
            allocator: strategy.processAllocator, environment: ProcessInfo.processInfo.environment,
            jemallocLoaded: AllocatorLauncher.jemallocIsLoaded, tcacheEnabled: AllocationCounter().availability != .exact,
            libraryPath: libraryPath)
        {
        case .proceed:
            break
        case .proceedWithoutJemalloc:
            countsUnavailableReason = countsUnavailableReason ?? AllocatorLauncher.howToEnable
        case .reexecute(let environment):
            let failure = AllocatorLauncher.reexecute(
                arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
            FileHandle.standardError.write(Data("note: \(failure); measuring on the current allocator.\n".utf8))
        }
        let allocatorName = AllocatorLauncher.jemallocIsLoaded ? "jemalloc" : "system"
        let pass = strategy.pass
        let child = strategy.child
        let counter: AllocationCounter =
            switch pass {
            case .here, .only: AllocatorLauncher.jemallocIsLoaded ? AllocationCounter() : .unavailable(
                reason: countsUnavailableReason ?? AllocatorLauncher.howToEnable)
            case .unavailable: .unavailable(reason: countsUnavailableReason ?? AllocatorLauncher.howToEnable)
            case .elsewhere: .disabled
            }
        var environment = RunEnvironment.current(allocator: allocatorName)
        if let runID { environment.runID = runID }
        let probe = PlainRecursionProbe(executable: Self.executablePath, arguments: ["probe-recursion"])
        let configuration = suite.configuration(recursionProbe: probe)
        let runner = SuiteRunner(
            configuration: configuration, filter: BenchmarkFilter(suite.patterns), counter: counter,
            allocationPass: pass)
        if countsOnly {
            print("BenchRunner: counting allocations under \(allocatorName) (thread cache off), "
                + "\(configuration.countingRepetitions) repetitions of \(configuration.countingBatch) operations")
        } else {
            let counting =
                switch pass {
                case .elsewhere: "counts in a jemalloc child"
                case .here, .only: "counts here"
                case .unavailable: "no allocation counts"
                }
            print("BenchRunner: \(configuration.name) suite, \(configuration.repetitions) repetitions, "
                + "times under \(allocatorName), \(counting), \(environment.cores) cores, git \(environment.gitRevision)")
        }
        fflush(nil)
        let progress = ProgressReporter.automatic()
        var rows = try MainQueueDriver.runWhileDrainingMainQueue { try runner.run(progress: progress) }
        if let child {
            do {
                rows += try runChild(child, runID: environment.runID)
            } catch {
                progress.note("note: allocation counts are missing: \(error)")
            }
        }
        let document = CSVWriter(environment: environment).document(rows)
        if let rowsFile {
            try document.write(toFile: rowsFile, atomically: true, encoding: .utf8)
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
        print("wrote \(rows.count) rows to \(path)")
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

    /// Runs this executable again under jemalloc and returns the rows it measured.
    private func runChild(_ kind: AllocationStrategy.Child, runID: String) throws -> [CSVRow] {
        let rowsPath = NSTemporaryDirectory() + ".bench-rows-\(getpid())-jemalloc.csv"
        defer { try? FileManager.default.removeItem(atPath: rowsPath) }
        var arguments = Self.argumentsWithoutAllocator(Array(CommandLine.arguments.dropFirst()))
        if arguments.first != "run" { arguments.insert("run", at: 0) }
        arguments += ["--allocator", "jemalloc", "--rows-file", rowsPath, "--run-id", runID]
        if kind == .counts { arguments.append("--counts-only") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executablePath)
        process.arguments = arguments
        // The child decides its allocator afresh, even if this process was itself re-executed.
        var environment = ProcessInfo.processInfo.environment
        environment[AllocatorLauncher.guardVariable] = nil
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0,
            let text = try? String(contentsOfFile: rowsPath, encoding: .utf8)
        else {
            throw BenchmarkFailure("the jemalloc process failed (status \(process.terminationStatus))")
        }
        return try Self.rows(fromCSV: text)
    }

    static func argumentsWithoutAllocator(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var skipNext = false
        for argument in arguments {
            if skipNext { skipNext = false; continue }
            if ["--allocator", "--rows-file", "--run-id"].contains(argument) { skipNext = true; continue }
            if ["--allocator=", "--rows-file=", "--run-id="].contains(where: { argument.hasPrefix($0) }) { continue }
            if argument == "--counts-only" { continue }
            result.append(argument)
        }
        return result
    }

    /// The rows of a CSV this tool wrote, each with its `allocator`; throws
    /// when the text is not such a CSV (a broken child must not pass for no rows).
    static func rows(fromCSV text: String) throws -> [CSVRow] {
        let columns = ["allocator", "benchmark", "variant", "params", "metric", "unit", "repetition", "value"]
        guard let table = try CSVTable(text: text) else { return [] }
        let missing = table.missingColumns(columns)
        guard missing.isEmpty else {
            throw BenchmarkFailure("the rows lack the columns \(missing.joined(separator: ", "))")
        }
        return try table.records.map { record in
            let row = try table.row(record)
            return CSVRow(
                benchmark: row["benchmark"], variant: row["variant"], params: row["params"], metric: row["metric"],
                unit: row["unit"], repetition: Int(row["repetition"]) ?? 0, value: Double(row["value"]),
                allocator: row["allocator"])
        }
    }

    /// This executable, for re-executing and for child processes.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
