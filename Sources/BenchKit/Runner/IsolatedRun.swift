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

    /// The command line of the child measuring `benchmark`: the parent's
    /// `arguments` (without the program name) less `--isolate`, then the
    /// benchmark, the rows file and the run id.
    static func childArguments(_ arguments: [String], benchmark: String, rowsFile: String, runID: String) -> [String] {
        var result = arguments.filter { $0 != "--isolate" }
        if result.first != "run" { result.insert("run", at: 0) }
        return result + ["--only-benchmark", benchmark, "--rows-file", rowsFile, "--run-id", runID]
    }

    /// Runs one child per benchmark, one after another, and collects their rows.
    package static func run(benchmarks: [String], arguments: [String], runID: String) throws -> Outcome {
        var outcome = Outcome()
        for benchmark in benchmarks {
            let (result, text) = try ChildProcess.runRowsChild(tag: benchmark) { rowsFile in
                childArguments(arguments, benchmark: benchmark, rowsFile: rowsFile, runID: runID)
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
