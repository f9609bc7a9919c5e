import ArgumentParser
import BenchKit
import Foundation

/// `BenchRunner run` (the default): measure, show progress, write the CSV, print the summary.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the benchmark suite (the default command).",
        discussion: """
            Each benchmark warms up every variant once, then measures the variants interleaved \
            (A B C, A B C, ...) for every repetition; each repetition is one CSV row per metric. \
            The CSV appears only when the run completes (never partially, never over an older file).
            """)

    @OptionGroup var suite: SuiteOptions

    @Option(help: ArgumentHelp("Folder for the CSV; created if missing.", valueName: "dir"))
    var output = "results"

    @Option(
        help: ArgumentHelp(
            "Process allocator to measure under: system, jemalloc or both (default: jemalloc when installed, else system).",
            discussion: "jemalloc gives exact allocation counts: BenchRunner re-executes itself with jemalloc preloaded "
                + "and its thread cache off (MALLOC_CONF=tcache:false), so every allocation reaches the counters; "
                + "compare times within one allocator. both runs the suite once per allocator into one CSV.",
            valueName: "system|jemalloc|both"))
    var allocator: AllocatorChoice?

    /// Internal: a child of `--allocator both` writes its rows here instead of into the output folder.
    @Option(help: .hidden)
    var rowsFile: String?

    /// Internal: the run id the parent of `--allocator both` chose.
    @Option(help: .hidden)
    var runID: String?

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
        let requested = allocator ?? (libraryPath == nil ? .system : .jemalloc)
        if requested == .both && rowsFile == nil {
            try runBoth(resultFile: resultFile)
            return
        }
        let chosen = requested == .both ? AllocatorChoice.jemalloc : requested
        var allocatorName = chosen.rawValue
        var missingJemalloc = false
        switch AllocatorLauncher.decide(
            allocator: chosen, environment: ProcessInfo.processInfo.environment,
            jemallocLoaded: AllocatorLauncher.jemallocIsLoaded, tcacheEnabled: AllocationCounter().availability != .exact,
            libraryPath: libraryPath)
        {
        case .proceed:
            break
        case .proceedWithoutJemalloc:
            allocatorName = AllocatorChoice.system.rawValue
            missingJemalloc = true
        case .reexecute(let environment):
            let failure = AllocatorLauncher.reexecute(
                arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
            FileHandle.standardError.write(Data("note: \(failure); measuring on the current allocator.\n".utf8))
            allocatorName = AllocatorLauncher.jemallocIsLoaded ? "jemalloc" : "system"
        }
        if allocatorName == "jemalloc" && !AllocatorLauncher.jemallocIsLoaded {
            allocatorName = "system"
        }

        let counter: AllocationCounter =
            allocatorName == "jemalloc"
            ? AllocationCounter() : missingJemalloc ? .unavailable(reason: AllocatorLauncher.howToEnable) : .disabled
        var environment = RunEnvironment.current(allocator: allocatorName)
        if let runID { environment.runID = runID }
        let probe = PlainRecursionProbe(executable: Self.executablePath, arguments: ["probe-recursion"])
        let configuration = suite.configuration(recursionProbe: probe)
        let runner = SuiteRunner(configuration: configuration, filter: BenchmarkFilter(suite.patterns), counter: counter)
        print("BenchRunner: \(configuration.name) suite, \(configuration.repetitions) repetitions, allocator \(allocatorName), "
            + "\(environment.cores) cores, git \(environment.gitRevision)")
        fflush(nil)
        let progress = ProgressReporter.automatic()
        let rows = try MainQueueDriver.runWhileDrainingMainQueue { try runner.run(progress: progress) }
        let document = CSVWriter(environment: environment).document(rows)

        if let rowsFile {
            try document.write(toFile: rowsFile, atomically: true, encoding: .utf8)
            return
        }
        print(SummaryTable.render(rows))
        let path = try resultFile.write(document, environment: environment)
        print("wrote \(rows.count) rows to \(path)")
    }

    /// Runs the suite once per allocator in child processes and writes one CSV holding both.
    private func runBoth(resultFile: ResultsFolder) throws {
        let environment = RunEnvironment.current(allocator: "both")
        var documents: [String] = []
        for choice in [AllocatorChoice.system, .jemalloc] {
            let rowsPath = NSTemporaryDirectory() + ".bench-rows-\(getpid())-\(choice.rawValue).csv"
            defer { try? FileManager.default.removeItem(atPath: rowsPath) }
            var arguments = Self.argumentsWithoutAllocator(Array(CommandLine.arguments.dropFirst()))
            if arguments.first != "run" { arguments.insert("run", at: 0) }
            arguments += ["--allocator", choice.rawValue, "--rows-file", rowsPath, "--run-id", environment.runID]
            let child = Process()
            child.executableURL = URL(fileURLWithPath: Self.executablePath)
            child.arguments = arguments
            try child.run()
            child.waitUntilExit()
            guard child.terminationReason == .exit, child.terminationStatus == 0,
                let text = try? String(contentsOfFile: rowsPath, encoding: .utf8)
            else {
                throw BenchmarkFailure("the \(choice.rawValue) run failed (status \(child.terminationStatus))")
            }
            documents.append(text)
        }
        let merged = CSVWriter.header + "\n" + documents.map { document in
            document.split(separator: "\n", omittingEmptySubsequences: true).dropFirst().map { $0 + "\n" }.joined()
        }.joined()
        for allocatorName in ["system", "jemalloc"] {
            let rows = Self.rows(fromCSV: merged, allocator: allocatorName)
            print("\n== allocator \(allocatorName) ==")
            print(SummaryTable.render(rows))
        }
        let path = try resultFile.write(merged, environment: environment)
        print("wrote \(path)")
    }

    static func argumentsWithoutAllocator(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var skipNext = false
        for argument in arguments {
            if skipNext { skipNext = false; continue }
            if argument == "--allocator" { skipNext = true; continue }
            if argument.hasPrefix("--allocator=") { continue }
            result.append(argument)
        }
        return result
    }

    static func rows(fromCSV text: String, allocator: String) -> [CSVRow] {
        let records = CSVWriter.parse(text)
        guard let header = records.first else { return [] }
        func column(_ name: String) -> Int? { header.firstIndex(of: name) }
        guard let allocatorColumn = column("allocator"), let benchmark = column("benchmark"), let variant = column("variant"),
            let params = column("params"), let metric = column("metric"), let unit = column("unit"),
            let repetition = column("repetition"), let value = column("value")
        else { return [] }
        return records.dropFirst().compactMap { record in
            guard record.count == header.count, record[allocatorColumn] == allocator else { return nil }
            return CSVRow(
                benchmark: record[benchmark], variant: record[variant], params: record[params], metric: record[metric],
                unit: record[unit], repetition: Int(record[repetition]) ?? 0, value: Double(record[value]))
        }
    }

    /// This executable, for re-executing and for child processes.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
