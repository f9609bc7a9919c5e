@testable import BenchAnalysis
import BenchKit
import Foundation
import ToolSupport
import XCTest

/// The A/A simulation of the repetition model compare judges by: every
/// timing series with a level per process and a spread within it (and, for
/// a benchmark read at its usual level, a share of repetitions the
/// machine slows to its second level), each
/// benchmark timed in the processes it declares (`observeOn.throughput`: 5
/// of 6 repetitions; the others: 1 of 7), a resolution table calibrated
/// from simulated runs as `BenchRunner calibrate` does it, then pairs of
/// simulated runs of one binary (A/A) and pairs whose fast path is 20 %
/// slower, compared with that table.
///
/// The spreads come from the committed quick runs the committed table was
/// calibrated from, so they cannot go stale; the test also checks that
/// `results/resolution.csv` is what `calibrate` makes of those runs, and
/// that docs/AtAGlance.md and docs/Compare.md print the line this simulation prints.
final class CompareRepetitionModelTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The quick runs of one binary `results/resolution.csv` comes from
    /// (docs/Compare.md, "Calibrating the resolution").
    static let calibrationRuns = [
        "20261126T092931Z-787b90b3c765",
        "20261126T093146Z-787b90b3c765",
        "20261126T093359Z-787b90b3c765",
        "20261126T093609Z-787b90b3c765",
        "20261126T093817Z-787b90b3c765",
        "20261126T094028Z-787b90b3c765",
        "20261126T094234Z-787b90b3c765",
    ]

    private static func loadCalibrationRuns() throws -> [ResultFile] {
        try calibrationRuns.map { name in
            try ResultFile.load(path: root.appendingPathComponent("results/\(name).csv").path)
        }
    }

    func testTheCommittedResolutionTableIsWhatCalibrateMakesOfTheCommittedRuns() throws {
        let runs = try Self.loadCalibrationRuns()
        let path = Self.root.appendingPathComponent(ResolutionTable.defaultPath).path
        let committed = try ResolutionTable.load(path: path)
        let recomputed = try ResolutionTable.calibrate(runs: runs, path: path)
        XCTAssertEqual(
            committed, recomputed,
            "results/resolution.csv is stale: BenchRunner calibrate " + Self.calibrationRuns.map { "results/\($0).csv" }
                .joined(separator: " "))
    }

    /// A judged timing series: its median, and the log-scale standard
    /// deviations of its level between processes and of its repetitions
    /// within one, in the processes its benchmark declares.
    private struct Model {
        let key: ResultSeriesKey
        let unit: String
        let median: Double
        let processes: Int
        let perProcess: Int
        let within: Double
        let between: Double
        /// For a series read at its usual level
        /// (``MetricComparisonRule/readsUsualLevel``): the share of
        /// repetitions the machine put in its slow level, and that level's
        /// log distance from the usual one in the harmful direction; the
        /// spreads above are then those of the usual level alone. 0 otherwise.
        var slowShare = 0.0
        var slowLog = 0.0
    }

    /// How far beyond its run's best repetition a repetition of a series
    /// read at its usual level lies to count as another level: as far as
    /// compare's band (`BenchmarkSchema.usualLevelBand`).
    private static let slowLevelCut = Foundation.log(BenchmarkSchema.usualLevelBand)

    /// Per series, from the calibration runs: each run's repetitions in
    /// `processes` consecutive chunks (a forked run's rows come process by
    /// process). Within: the pooled standard deviation of log values around
    /// their chunk's mean. Between: the variance of the chunk means less
    /// what the within-process spread explains of it (never below 0).
    private static func models(_ runs: [ResultFile]) -> [Model] {
        var models: [Model] = []
        guard let template = runs.first else { return [] }
        for series in template.series {
            let rule = MetricComparisonRule(
                metric: series.key.metric, benchmark: series.key.benchmark, variant: series.key.variant)
            guard !rule.isExact, rule.preference != .informational,
                !series.key.variant.hasPrefix("peer."), !series.key.variant.hasPrefix("reference."),
                let median = Statistics.median(series.values), median > 0
            else { continue }
            let processes =
                BenchmarkCatalog.all.first { $0.schema.name == series.key.benchmark }?.processes(in: .quick) ?? 1
            let harmful = rule.preference == .higherIsBetter ? -1.0 : 1.0
            var chunkMeans: [Double] = []
            var squares = 0.0
            var degrees = 0
            var perProcess = 0
            var slowLogs: [Double] = []
            var repetitions = 0
            for run in runs {
                guard let values = run.series.first(where: { $0.key == series.key })?.values,
                    values.count >= processes, values.allSatisfy({ $0 > 0 }),
                    let usual = Statistics.median(rule.judgedValues(values)),
                    let best = rule.preference == .higherIsBetter ? values.max() : values.min()
                else { continue }
                let size = values.count / processes
                perProcess = size
                repetitions += values.count
                for chunk in 0..<processes {
                    var logs: [Double] = []
                    for value in values[(chunk * size)..<((chunk + 1) * size)] {
                        if rule.readsUsualLevel && harmful * Foundation.log(value / best) > slowLevelCut {
                            slowLogs.append(harmful * Foundation.log(value / usual))
                        } else {
                            logs.append(Foundation.log(value))
                        }
                    }
                    guard !logs.isEmpty else { continue }
                    let mean = logs.reduce(0, +) / Double(logs.count)
                    chunkMeans.append(mean)
                    squares += logs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
                    degrees += logs.count - 1
                }
            }
            guard degrees > 0, chunkMeans.count >= 2, perProcess > 0 else { continue }
            let within = (squares / Double(degrees)).squareRoot()
            let grand = chunkMeans.reduce(0, +) / Double(chunkMeans.count)
            let spread = chunkMeans.reduce(0) { $0 + ($1 - grand) * ($1 - grand) } / Double(chunkMeans.count - 1)
            let between = max(0, spread - within * within / Double(perProcess)).squareRoot()
            var model = Model(
                key: series.key, unit: series.unit, median: median, processes: processes, perProcess: perProcess,
                within: within, between: between)
            if !slowLogs.isEmpty, repetitions > 0 {
                model.slowShare = Double(slowLogs.count) / Double(repetitions)
                model.slowLog = harmful * (Statistics.median(slowLogs) ?? 0)
            }
            models.append(model)
        }
        return models
    }

    /// How a simulated run takes its repetitions: as the quick suite does,
    /// or a design it could have (the question "what would show more series
    /// equal?").
    private struct Design {
        /// Repetitions of every series timed in the run's own process; nil:
        /// the suite's.
        var repetitions: Int?
        /// Whether a process's level moves its repetitions (as measured);
        /// false: as if no series moved between processes.
        var processLevels = true

        static let suite = Design()
    }

    /// A simulated run of one binary, every series times `factor(key)`.
    private static func simulatedRun(
        _ models: [Model], index: Int, using generator: inout SeededGenerator, design: Design = .suite,
        factor: (ResultSeriesKey) -> Double = { _ in 1 }
    ) -> ResultFile {
        let series = models.map { model in
            var values: [Double] = []
            let perProcess = model.processes == 1 ? design.repetitions ?? model.perProcess : model.perProcess
            for _ in 0..<model.processes {
                let level = design.processLevels ? model.between * generator.nextGaussian() : 0
                for _ in 0..<perProcess {
                    let slow = model.slowShare > 0 && Double.random(in: 0..<1, using: &generator) < model.slowShare ? model.slowLog : 0
                    values.append(
                        model.median * factor(model.key) * exp(level + slow + model.within * generator.nextGaussian()))
                }
            }
            return ResultSeries(key: model.key, unit: model.unit, values: values, firstLine: 2)
        }
        return ResultFile(path: "simulated-\(index).csv", series: series, revisions: ["simulated"])
    }

    private static func isFastPathThroughput(_ key: ResultSeriesKey) -> Bool {
        key.benchmark == "observeOn.throughput" && key.variant == "fast-path"
    }

    /// What the simulation prints (and docs/Compare.md repeats).
    private struct Outcome {
        var passes = 0
        var notJudged = 0
        var falseRegressions = 0
        var same = 0
        var judged = 0
        var slowerWorse = 0
        let comparisons: Int

        var line: String {
            let share = Double(same) / Double(max(judged, 1)) * 100
            return "A/A: exit 0 in \(passes) of \(comparisons), exit 3 in \(notJudged), exit 1 in \(falseRegressions); "
                + "same \(String(format: "%.0f", share)) % of the judged timing series; "
                + "a 20 % slower fast path: worse (exit 1) in \(slowerWorse) of \(comparisons)"
        }
    }

    private static func simulate(
        _ models: [Model], calibrationRuns: Int, comparisons: Int, seed: UInt64, design: Design = .suite,
        withSlowerFastPath: Bool = true
    ) throws -> Outcome {
        var generator = SeededGenerator(seed: seed)
        let calibration = (0..<calibrationRuns).map {
            simulatedRun(models, index: $0, using: &generator, design: design)
        }
        let table = try ResolutionTable.calibrate(runs: calibration, path: "simulated-resolution.csv")
        let options = CompareOptions(resolution: table)
        var outcome = Outcome(comparisons: comparisons)
        for index in 0..<comparisons {
            let base = simulatedRun(models, index: 2 * index, using: &generator, design: design)
            let new = simulatedRun(models, index: 2 * index + 1, using: &generator, design: design)
            let report = try ComparisonReport(base: base, new: new, options: options)
            switch report.exitStatus {
            case .noRegression: outcome.passes += 1
            case .notJudged: outcome.notJudged += 1
            default: outcome.falseRegressions += 1
            }
            outcome.same += report.count(of: .same)
            outcome.judged += report.testedCount
            guard withSlowerFastPath else { continue }
            let slower = simulatedRun(models, index: 2 * index + 1, using: &generator, design: design) { key in
                guard isFastPathThroughput(key) else { return 1 }
                let rule = MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant)
                return rule.preference == .higherIsBetter ? 1 / 1.2 : 1.2
            }
            let judged = try ComparisonReport(base: base, new: slower, options: options)
            if judged.exitStatus == .regression
                && judged.comparisons.filter({ isFastPathThroughput($0.key) }).allSatisfy({ $0.verdict == .worse })
            {
                outcome.slowerWorse += 1
            }
        }
        return outcome
    }

    func testFalseAlarmsStayWithinAlphaAndThePowerForATwentyPercentSlowerFastPathIsTheOneDocumented() throws {
        try SlowTests.require("600 simulated pairs of runs of seventy series, twice")
        let runs = try Self.loadCalibrationRuns()
        let models = Self.models(runs)
        XCTAssertGreaterThan(models.count, 60)
        let comparisons = 600
        let outcome = try Self.simulate(
            models, calibrationRuns: runs.count, comparisons: comparisons, seed: 24)
        print(outcome.line)
        for model in models where Self.isFastPathThroughput(model.key) {
            print("fast path \(model.key.metric): within a process \(String(format: "%.1f", model.within * 100)) %, "
                + "between processes \(String(format: "%.1f", model.between * 100)) % (log-scale standard deviations), "
                + "\(model.processes) processes of \(model.perProcess); "
                + "slow level in \(String(format: "%.0f", model.slowShare * 100)) % of the repetitions, "
                + "\(String(format: "%.2f", exp(abs(model.slowLog)))) times slower")
        }
        // Runs of one binary fail to pass (exit 1 or 3) in at most alpha of
        // the comparisons: the resolution's Bonferroni bound, with its
        // upper confidence bound on each spread.
        XCTAssertLessThanOrEqual(outcome.falseRegressions + outcome.notJudged, comparisons / 20, outcome.line)
        for name in ["docs/AtAGlance.md", "docs/Compare.md"] {
            let document = try String(contentsOf: Self.root.appendingPathComponent(name), encoding: .utf8)
            XCTAssertTrue(
                document.contains(outcome.line), "\(name) must print the simulation's line as it is now:\n\(outcome.line)")
        }
    }

    /// Why most timing series of an A/A pair are `~`, not `same`, on this
    /// machine: `same` needs the interval of the change within ±threshold,
    /// and the simulation with the calibration runs' spreads shows how far
    /// more repetitions, or processes that never differ, would take it.
    func testTheSameShareTheMeasuredSpreadsAllowIsTheOneDocumented() throws {
        try SlowTests.require("simulated pairs of runs of seventy series for each of several designs")
        let runs = try Self.loadCalibrationRuns()
        let models = Self.models(runs)
        let comparisons = 100
        func share(_ design: Design) throws -> Int {
            let outcome = try Self.simulate(
                models, calibrationRuns: runs.count, comparisons: comparisons, seed: 28, design: design,
                withSlowerFastPath: false)
            return Int((Double(outcome.same) / Double(max(outcome.judged, 1)) * 100).rounded())
        }
        let suite = try share(.suite)
        let noProcessLevels = try share(Design(processLevels: false))
        let thirty = try share(Design(repetitions: 30, processLevels: false))
        // Taking a source of noise away, or adding repetitions, can only
        // narrow the intervals.
        XCTAssertLessThan(suite, noProcessLevels)
        XCTAssertLessThan(noProcessLevels, thirty)
        let line =
            "same in A/A pairs, with the calibration runs' spreads: \(suite) % of the judged timing series as the "
            + "quick suite measures them; \(noProcessLevels) % if no process differed from another; \(thirty) % "
            + "with 30 repetitions a series as well"
        print(line)
        let document = try String(contentsOf: Self.root.appendingPathComponent("docs/Compare.md"), encoding: .utf8)
        XCTAssertTrue(document.contains(line), "docs/Compare.md must print the simulation's line as it is now:\n\(line)")
    }
}
