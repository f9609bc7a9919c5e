import BenchKit
import Foundation
import ToolSupport
import XCTest

/// The A/A simulation of the repetition model: runs of one revision whose
/// repetitions come from one process, or from forks, with a level that
/// moves between processes as well as within one. The spreads are read from
/// the committed runs (two default runs of one revision, three times over),
/// so they cannot go stale; the figures printed here are the README's.
final class CompareRepetitionModelTests: XCTestCase {
    private static var resultsFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("results")
    }

    /// Pairs of committed default runs of one revision each.
    private static let pairs = [
        ("20261121T112142Z-baafc877e541", "20261121T112544Z-baafc877e541"),
        ("20261123T212442Z-de156c0ffb35", "20261123T213151Z-de156c0ffb35"),
        ("20261124T031038Z-e8d19b8ac21d", "20261124T031637Z-e8d19b8ac21d"),
    ]

    /// A judged or anchor timing series of the template, with its log-scale
    /// spread within a process and between processes.
    private struct Model {
        let key: ResultSeriesKey
        let unit: String
        let median: Double
        let within: Double
        let between: Double
    }

    /// Within: the pooled standard deviation of log values around each
    /// run's own mean. Between: from the pairs' log ratio of medians, whose
    /// variance is 2·between² + 2·within²/n; what the within-process spread
    /// does not explain is the processes' (never below 0).
    private static func models() throws -> (template: ResultFile, models: [Model]) {
        var runs: [(ResultFile, ResultFile)] = []
        for (first, second) in pairs {
            runs.append((
                try ResultFile.load(path: resultsFolder.appendingPathComponent(first + ".csv").path),
                try ResultFile.load(path: resultsFolder.appendingPathComponent(second + ".csv").path)))
        }
        var withinSquares: [ResultSeriesKey: (Double, Int)] = [:]
        var ratios: [ResultSeriesKey: [Double]] = [:]
        var counts: [ResultSeriesKey: Int] = [:]
        for (first, second) in runs {
            var secondByKey: [ResultSeriesKey: ResultSeries] = [:]
            for series in second.series { secondByKey[series.key] = series }
            for series in first.series {
                guard let other = secondByKey[series.key] else { continue }
                for side in [series, other] where side.values.count >= 2 && side.values.allSatisfy({ $0 > 0 }) {
                    let logs = side.values.map { Foundation.log($0) }
                    let mean = logs.reduce(0, +) / Double(logs.count)
                    let squares = logs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
                    let previous = withinSquares[series.key] ?? (0, 0)
                    withinSquares[series.key] = (previous.0 + squares, previous.1 + logs.count - 1)
                    counts[series.key] = side.values.count
                }
                if let a = Statistics.median(series.values), let b = Statistics.median(other.values), a > 0, b > 0 {
                    ratios[series.key, default: []].append(Foundation.log(b / a))
                }
            }
        }
        let template = runs[0].0
        var models: [Model] = []
        for series in template.series {
            let rule = MetricComparisonRule(
                metric: series.key.metric, benchmark: series.key.benchmark, variant: series.key.variant)
            guard !rule.isExact, rule.preference != .informational, let median = Statistics.median(series.values),
                median > 0, let (squares, degrees) = withinSquares[series.key], degrees > 0,
                let logRatios = ratios[series.key], !logRatios.isEmpty
            else { continue }
            let within = (squares / Double(degrees)).squareRoot()
            let n = Double(counts[series.key] ?? 5)
            let ratioVariance = logRatios.reduce(0) { $0 + $1 * $1 } / Double(logRatios.count)
            let between = max(0, (ratioVariance - 2 * within * within / n) / 2).squareRoot()
            models.append(Model(key: series.key, unit: series.unit, median: median, within: within, between: between))
        }
        return (template, models)
    }

    /// A simulated run: `repetitions` repetitions of every modelled series
    /// from `forks` processes (each its own level), times `factor(key)`.
    private static func simulatedRun(
        _ models: [Model], repetitions: Int, forks: Int, using generator: inout SeededGenerator,
        factor: (ResultSeriesKey) -> Double = { _ in 1 }
    ) -> ResultFile {
        let shares = ForkedRun.repetitions(total: repetitions, forks: forks)
        // One level per process, shared by every series of that process
        // (the machine's state), and one of each series' own.
        let machine = shares.map { _ in generator.nextGaussian() }
        var series: [ResultSeries] = []
        for model in models {
            var values: [Double] = []
            for (fork, share) in shares.enumerated() {
                let level = model.between * (0.5 * machine[fork] + 0.866 * generator.nextGaussian())
                for _ in 0..<share {
                    values.append(model.median * factor(model.key) * exp(level + model.within * generator.nextGaussian()))
                }
            }
            series.append(ResultSeries(key: model.key, unit: model.unit, values: values, firstLine: 2))
        }
        return ResultFile(path: "simulated.csv", series: series)
    }

    private struct Tally {
        var regression = 0
        var notJudged = 0
        var pass = 0
        var same = 0
        var judgedSeries = 0
        var worseOfTheChanged = 0
        /// Runs where the changed series passed quietly (same, ~, better, better?).
        var quietOfTheChanged = 0
    }

    private static func simulate(
        _ models: [Model], repetitions: Int, forks: Int, comparisons: Int, seed: UInt64,
        changed: ((ResultSeriesKey) -> Bool)? = nil
    ) throws -> Tally {
        var generator = SeededGenerator(seed: seed)
        var tally = Tally()
        for _ in 0..<comparisons {
            let base = simulatedRun(models, repetitions: repetitions, forks: forks, using: &generator)
            let new = simulatedRun(models, repetitions: repetitions, forks: forks, using: &generator) { key in
                changed?(key) == true ? (MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant).preference == .higherIsBetter ? 1 / 1.2 : 1.2) : 1
            }
            let report = try ComparisonReport(base: base, new: new, options: CompareOptions())
            switch report.exitStatus {
            case .regression: tally.regression += 1
            case .notJudged: tally.notJudged += 1
            default: tally.pass += 1
            }
            tally.same += report.count(of: .same)
            tally.judgedSeries += report.testedCount
            if let changed {
                let hit = report.comparisons.filter { changed($0.key) }
                if !hit.isEmpty && hit.allSatisfy({ $0.verdict == .worse }) { tally.worseOfTheChanged += 1 }
                if hit.contains(where: { [.same, .cannotTell, .better, .unconfirmedBetter].contains($0.verdict) }) {
                    tally.quietOfTheChanged += 1
                }
            }
        }
        return tally
    }

    private static func isFastPathThroughput(_ key: ResultSeriesKey) -> Bool {
        key.benchmark == "observeOn.throughput" && key.variant == "fast-path"
    }

    func testForksHoldFalseAlarmsToAlphaWhereOneProcessDoesNotAndPrintThePowerForATwentyPercentSlowdown() throws {
        let (_, models) = try Self.models()
        XCTAssertGreaterThan(models.count, 60)
        let comparisons = 200
        let single = try Self.simulate(models, repetitions: 7, forks: 1, comparisons: comparisons, seed: 41)
        let forked = try Self.simulate(models, repetitions: 9, forks: 3, comparisons: comparisons, seed: 41)
        let singleSlow = try Self.simulate(
            models, repetitions: 7, forks: 1, comparisons: comparisons, seed: 42, changed: Self.isFastPathThroughput)
        let forkedSlow = try Self.simulate(
            models, repetitions: 9, forks: 3, comparisons: comparisons, seed: 42, changed: Self.isFastPathThroughput)
        func line(_ name: String, _ aa: Tally, _ slow: Tally) -> String {
            let share = Double(aa.same) / Double(max(aa.judgedSeries, 1))
            return "\(name): A/A exit 1 in \(aa.regression)/\(comparisons), exit 3 in \(aa.notJudged), exit 0 in "
                + "\(aa.pass); same \(String(format: "%.0f", share * 100)) % of judged series; 20 % slower fast path "
                + "worse in \(slow.worseOfTheChanged)/\(comparisons), passed quietly in \(slow.quietOfTheChanged), "
                + "exit 1 in \(slow.regression), exit 3 in \(slow.notJudged)"
        }
        let wide = try Self.simulate(models, repetitions: 15, forks: 5, comparisons: comparisons, seed: 41)
        let wideSlow = try Self.simulate(
            models, repetitions: 15, forks: 5, comparisons: comparisons, seed: 42, changed: Self.isFastPathThroughput)
        print(line("one process, 7 repetitions", single, singleSlow))
        print(line("3 forks x 3 repetitions", forked, forkedSlow))
        print(line("5 forks x 3 repetitions", wide, wideSlow))
        // Forks hold false alarms (exit 1 between runs of one revision) to
        // alpha; one process does not, because its repetitions share one
        // level the next process does not have.
        XCTAssertLessThanOrEqual(forked.regression, comparisons / 20)
        XCTAssertLessThanOrEqual(wide.regression, comparisons / 20)
        XCTAssertGreaterThan(single.regression, comparisons / 20)
        // The power for a 20 % slowdown of the fast path is printed, not
        // asserted: with the spread between processes the committed default
        // runs show for it (printed below), no repetition count the suite can
        // afford makes it `worse` after the correction across the run.
        for model in models where Self.isFastPathThroughput(model.key) {
            print("fast path \(model.key.metric): within a process \(String(format: "%.1f", model.within * 100)) %, "
                + "between processes \(String(format: "%.1f", model.between * 100)) % (log-scale standard deviations)")
        }
    }
}
