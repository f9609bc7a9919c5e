import Foundation

/// Sampling across processes, as JMH's forks do: a hop's level moves between
/// processes as well as within one (processes running the same serial
/// flood settle at medians further apart than the spread inside each),
/// so repetitions taken in one process understate the
/// spread a second run will show and two runs of one revision disagree
/// beyond what their repetitions admit.
///
/// With `--forks n` the run's timing repetitions are split across `n`
/// processes run one after another (this executable again, each with its
/// own warm-up): fork k runs ``repetitions(total:forks:)``[k] repetitions of
/// every variant, interleaved as in one process. Their rows are merged into
/// one series per variant, numbered on (``merge(_:keepingCountsOf:)``), so
/// compare's rank tests see the spread between processes as part of the
/// repetitions. Allocation counts still come from the one counting pass.
package enum ForkedRun {
    /// How many repetitions each of `forks` processes runs so that together
    /// they run `total`: as even as possible, the earlier forks one more.
    /// Never more forks than repetitions (each fork runs at least one).
    package static func repetitions(total: Int, forks: Int) -> [Int] {
        let count = max(1, min(forks, total))
        let total = max(total, 1)
        return (0..<count).map { index in total / count + (index < total % count ? 1 : 0) }
    }

    /// The options of a fork that runs `repetitions` of the run's timing
    /// repetitions: the parent's `options` with what the parent decides
    /// for it set: one process (`--forks 1`), that many repetitions, timed
    /// only under the system allocator (not the counting child, not one
    /// benchmark of the parent's), its rows written to `rowsFile`, and the
    /// parent's run id.
    package static func childOptions(_ options: RunOptions, repetitions: Int, rowsFile: String, runID: String)
        -> RunOptions
    {
        var child = options
        child.forks = 1
        child.repetitions = repetitions
        child.allocator = .system
        child.onlyBenchmark = nil
        child.countsOnly = false
        child.rowsFile = rowsFile
        child.runID = runID
        return child
    }

    /// The options of process `repetitions` of `benchmark` timed across
    /// processes of its own: a fork's (``childOptions(_:repetitions:rowsFile:runID:)``)
    /// that runs only `benchmark` and times only (its parent counts).
    package static func benchmarkProcessOptions(
        _ options: RunOptions, benchmark: String, repetitions: Int, rowsFile: String, runID: String
    ) -> RunOptions {
        var child = childOptions(options, repetitions: repetitions, rowsFile: rowsFile, runID: runID)
        child.onlyBenchmark = benchmark
        child.timingOnly = true
        return child
    }

    /// The forks' rows as one run: each fork's repetitions numbered on from
    /// the previous fork's (fork 2's repetition 1 after fork 1's last).
    /// Allocation-count rows (empty in a fork, which times only) are dropped,
    /// except fork `keepingCountsOf`'s when given (a run without any
    /// counting pass keeps its empty count rows, as one process writes them).
    package static func merge(_ forks: [[CSVRow]], keepingCountsOf kept: Int? = nil) -> [CSVRow] {
        var merged: [CSVRow] = []
        var offset = 0
        for (index, rows) in forks.enumerated() {
            var highest = 0
            for var row in rows {
                let isCount = CSVSchema.metric(named: row.metric)?.isAllocationCount ?? false
                if isCount && index != kept { continue }
                highest = max(highest, row.repetition)
                row.repetition += offset
                merged.append(row)
            }
            offset += highest
        }
        return merged
    }

    /// Runs `forks` processes one after another with the parent's
    /// `options` (``childOptions(_:repetitions:rowsFile:runID:)``) and
    /// returns their merged rows. Throws when a fork fails or leaves no
    /// readable rows.
    package static func run(forks: Int, total: Int, options: RunOptions, runID: String, keepEmptyCounts: Bool) throws
        -> [CSVRow]
    {
        let results = try runShares(
            repetitions(total: total, forks: forks), name: { "fork \($0 + 1)" }, standardOutput: .inherit
        ) { share, rowsFile in
            childOptions(options, repetitions: share, rowsFile: rowsFile, runID: runID).arguments()
        }
        return merge(results, keepingCountsOf: keepEmptyCounts ? 0 : nil)
    }

    /// Runs `benchmark`'s timing repetitions (`total`) in `processes` fresh
    /// processes one after another, each given the parent's `options` for
    /// `benchmark` and its share
    /// (``benchmarkProcessOptions(_:benchmark:repetitions:rowsFile:runID:)``),
    /// and returns their merged timing rows (no counts: the parent counts).
    /// The processes' own output is discarded (their
    /// estimates would speak of their share only); `progress` gets a line
    /// per process, with the time left estimated from the processes done.
    /// Throws when a process fails.
    package static func runBenchmark(
        _ benchmark: String, processes: Int, total: Int, options: RunOptions, runID: String,
        progress: (String) -> Void = { _ in }
    ) throws -> [CSVRow] {
        let shares = repetitions(total: total, forks: processes)
        let started = MeasureContext.now()
        let results = try runShares(
            shares, name: { "\(benchmark): process \($0 + 1)" }, standardOutput: .discard,
            willStart: { index in
                var line = "  \(benchmark) process \(index + 1)/\(shares.count), \(shares[index]) repetitions"
                if index > 0 {
                    let perProcess = Double(MeasureContext.now() &- started) / 1e9 / Double(index)
                    line += ", ~\(Int((perProcess * Double(shares.count - index)).rounded()))s left for its "
                        + "processes (from the \(index) done)"
                }
                progress(line)
            }
        ) { share, rowsFile in
            benchmarkProcessOptions(
                options, benchmark: benchmark, repetitions: share, rowsFile: rowsFile, runID: runID
            ).arguments()
        }
        return merge(results)
    }

    /// One child process per share, one after another, each told its share
    /// (`arguments(share, rowsFile)`); their rows, in order. Throws naming
    /// the process (`name(index)`) when one fails or leaves no readable rows.
    private static func runShares(
        _ shares: [Int], name: (Int) -> String, standardOutput: ChildProcess.Stream,
        willStart: (Int) -> Void = { _ in }, arguments: (_ share: Int, _ rowsFile: String) -> [String]
    ) throws -> [[CSVRow]] {
        var results: [[CSVRow]] = []
        for (index, share) in shares.enumerated() {
            willStart(index)
            let (result, rows) = try ChildProcess.runRowsChild(
                tag: "share\(index + 1)", standardOutput: standardOutput
            ) { rowsFile in arguments(share, rowsFile) }
            guard !result.endedBySignal, result.status == 0, let text = rows else {
                throw BenchmarkFailure("\(name(index)) of \(shares.count) failed (status \(result.status))")
            }
            results.append(try AllocationChild.rows(fromCSV: text))
        }
        return results
    }
}
