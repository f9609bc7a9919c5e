import Foundation

/// `--isolate`: each benchmark in a process of its own (this executable
/// again, `--only-benchmark <name>`, its rows into a file), so that a
/// scheduler that traps costs the rows of its benchmark only; every other
/// benchmark's rows are kept. A failing measurement needs no child (the
/// runner drops it and goes on: ``SuiteFailure``); a crash does.
package enum IsolatedRun {
    /// What the children left: their rows, and one line per child that failed.
    package struct Outcome: Sendable {
        package var rows: [CSVRow] = []
        package var failures: [String] = []
    }

    /// The options of the child measuring `benchmark`: the parent's
    /// `options` with what the parent decides for it set: in this process
    /// (not isolated again), only `benchmark`, its rows written to
    /// `rowsFile`, and the parent's run id.
    package static func childOptions(_ options: RunOptions, benchmark: String, rowsFile: String, runID: String)
        -> RunOptions
    {
        var child = options
        child.isolate = false
        child.onlyBenchmark = benchmark
        child.rowsFile = rowsFile
        child.runID = runID
        return child
    }

    /// Runs one child per benchmark, one after another, each given the
    /// parent's `options` (``childOptions(_:benchmark:rowsFile:runID:)``),
    /// and collects their rows.
    package static func run(benchmarks: [String], options: RunOptions, runID: String) throws -> Outcome {
        var outcome = Outcome()
        for benchmark in benchmarks {
            let (result, text) = try ChildProcess.runRowsChild(tag: benchmark) { rowsFile in
                childOptions(options, benchmark: benchmark, rowsFile: rowsFile, runID: runID).arguments()
            }
            var kept = false
            if let text, let rows = try? AllocationChild.rows(fromCSV: text) {
                outcome.rows += rows
                kept = true
            }
            if result.endedBySignal || result.status != 0 {
                let how =
                    result.endedBySignal
                    ? "was killed by signal \(result.status)" : "exited with status \(result.status)"
                let rows = kept ? "the rows of its measurements that completed are kept" : "its rows are missing"
                outcome.failures.append("\(benchmark): its process \(how); \(rows)")
            }
        }
        return outcome
    }
}
