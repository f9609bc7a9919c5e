import Foundation
import ToolSupport

/// How a run measures: under which allocator this process times, where the
/// allocation counts come from, and the counter to use; decided once, before
/// anything is measured, by ``prepare(_:)``.
package struct MeasurementSetup {
    /// `jemalloc` or `system`: the allocator of this process (the CSV's `allocator` column).
    package let allocatorName: String
    /// Whether this process counts allocations, a child does, or nobody.
    package let pass: AllocationPass
    /// The jemalloc child to run after this process's repetitions, if any.
    package let child: AllocationStrategy.Child?
    /// The counter the benchmarks of this process use.
    package let counter: AllocationCounter

    /// Puts this process on the allocator `options.allocator` asks for and
    /// decides where counts come from (`options.countsOnly`: this is the
    /// counting child). When the process must change allocator it is
    /// re-executed with `options` (``RunOptions/arguments(spellingOut:)``)
    /// and this call does not return; if re-execution fails, a note goes to
    /// standard error and the run measures on the current allocator.
    package static func prepare(_ options: RunOptions) -> MeasurementSetup {
        let allocator = options.allocator, countsOnly = options.countsOnly
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
            let failure = AllocatorLauncher.reexecute(arguments: options.arguments(), environment: environment)
            FileHandle.standardError.write(Data("note: \(failure); measuring on the current allocator.\n".utf8))
        }
        let reason = countsUnavailableReason ?? AllocatorLauncher.howToEnable
        let counter: AllocationCounter =
            switch strategy.pass {
            case .here, .only: AllocatorLauncher.jemallocIsLoaded ? AllocationCounter() : .unavailable(reason: reason)
            case .unavailable: .unavailable(reason: reason)
            case .elsewhere: .disabled
            }
        return MeasurementSetup(
            allocatorName: AllocatorLauncher.jemallocIsLoaded ? "jemalloc" : "system", pass: strategy.pass,
            child: strategy.child, counter: counter)
    }
}

/// The child process of a run that measures under jemalloc (allocation counts,
/// or with `--allocator both` everything): this executable run again with the
/// parent's options, writing its rows to a temporary CSV the parent reads back.
package enum AllocationChild {
    /// The options of the child of `kind`: the parent's `options` with what
    /// the parent decides for it set: under jemalloc, counting only for
    /// ``AllocationStrategy/Child/counts``, in one process (a counting child
    /// counts once), its rows written to `rowsFile`, and the parent's run id.
    package static func childOptions(
        _ options: RunOptions, kind: AllocationStrategy.Child, rowsFile: String, runID: String
    ) -> RunOptions {
        var child = options
        child.allocator = .jemalloc
        child.countsOnly = kind == .counts
        child.forks = 1
        child.rowsFile = rowsFile
        child.runID = runID
        return child
    }

    /// Runs the child of `kind` with the parent's `options`
    /// (``childOptions(_:kind:rowsFile:runID:)``) and run id; returns its
    /// rows, each with its `allocator`. Throws when the child fails or
    /// leaves no readable rows.
    package static func run(_ kind: AllocationStrategy.Child, options: RunOptions, runID: String) throws -> [CSVRow] {
        let rowsPath = NSTemporaryDirectory() + ".bench-rows-\(getpid())-jemalloc.csv"
        defer { try? FileManager.default.removeItem(atPath: rowsPath) }
        let arguments = childOptions(options, kind: kind, rowsFile: rowsPath, runID: runID).arguments()
        // The child decides its allocator afresh, even if this process was itself re-executed.
        var environment = ProcessInfo.processInfo.environment
        environment[AllocatorLauncher.guardVariable] = nil
        let result = try ChildProcess.run(
            AllocatorLauncher.executablePath, arguments: ToolInvocation.childArguments(arguments),
            environment: environment)
        guard !result.endedBySignal, result.status == 0,
            let text = try? String(contentsOfFile: rowsPath, encoding: .utf8)
        else {
            throw BenchmarkFailure("the jemalloc process failed (status \(result.status))")
        }
        return try rows(fromCSV: text)
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
}
