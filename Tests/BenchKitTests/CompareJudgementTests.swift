@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import ToolSupport
import XCTest

/// What `BenchRunner compare` may and may not conclude: one-sided tests in the
/// harmful direction, the false discovery rate across a run, `same` as a
/// verdict, exit status 3 for series it could not judge, and calibration
/// against the spread of the committed runs.
final class CompareJudgementTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private var fixture: CompareFixture!

    override func setUpWithError() throws {
        fixture = try CompareFixture()
    }

    override func tearDown() {
        fixture = nil
    }

    private static func cost(_ values: [Double], variant: String = "serial") -> FixtureSeries {
        FixtureSeries(variant: variant, metric: "ns_per_element", unit: "ns", values: values.map { $0 })
    }

    // MARK: - One-sided test

    func testOneSidedExactPValuesMatchReference() {
        // SciPy: mannwhitneyu(x, y, alternative='less', method='exact') for x = first, y = second.
        XCTAssertEqual(MannWhitneyUTest([1, 2, 3], [4, 5, 6], alternative: .secondGreater).pValue, 0.05, accuracy: 1e-12)
        XCTAssertEqual(MannWhitneyUTest([1, 2, 3], [4, 5, 6], alternative: .secondLess).pValue, 1, accuracy: 1e-12)
        XCTAssertEqual(
            MannWhitneyUTest([1, 3, 5, 7], [2, 4, 6, 8], alternative: .secondGreater).pValue, 24.0 / 70.0, accuracy: 1e-12)
        XCTAssertEqual(
            MannWhitneyUTest([1, 3, 5, 7], [2, 4, 6, 8], alternative: .secondLess).pValue, 53.0 / 70.0, accuracy: 1e-12)
        // Ties: mannwhitneyu([1,2,2,3,5], [2,3,3,4,5,6], alternative='less', method='asymptotic') = 0.095948.
        let tied = MannWhitneyUTest([1, 2, 2, 3, 5], [2, 3, 3, 4, 5, 6], alternative: .secondGreater)
        XCTAssertEqual(tied.method, .normalApproximation)
        XCTAssertEqual(tied.pValue, 0.09594795166197784, accuracy: 1e-9)
    }

    func testSmallestOneSidedPValuesAndTheRepetitionsTheyNeed() {
        XCTAssertEqual(MannWhitneyUTest.minimumAchievablePValue(m: 3, n: 3, alternative: .secondGreater), 0.05, accuracy: 1e-15)
        XCTAssertEqual(MannWhitneyUTest.minimumAchievablePValue(m: 2, n: 3, alternative: .secondLess), 0.1, accuracy: 1e-15)
        XCTAssertEqual(MannWhitneyUTest.minimumAchievablePValue(m: 7, n: 7, alternative: .secondGreater), 1.0 / 3432, accuracy: 1e-15)
        XCTAssertEqual(MannWhitneyUTest.repetitionsNeeded(forOneSidedLevel: 0.05), 3)
        XCTAssertEqual(MannWhitneyUTest.repetitionsNeeded(forOneSidedLevel: 0.05 / 91), 7)
        XCTAssertEqual(MannWhitneyUTest.repetitionsNeeded(forOneSidedLevel: 0.05 / 40), 6)
        XCTAssertNil(MannWhitneyUTest.repetitionsNeeded(forOneSidedLevel: 0))
    }

    func testThreeAgainstThreeEveryNewWorseBeyondTheThresholdIsARegressionAtFivePercent() throws {
        // Every new repetition is slower than every base one by more than 5 % of the base median.
        let outcome = try fixture.compare(base: [Self.cost([100, 101, 102])], new: [Self.cost([110, 111, 112])])
        let comparison = try XCTUnwrap(outcome.report?.comparisons.first)
        XCTAssertEqual(try XCTUnwrap(comparison.worseTest).pValue, 0.05, accuracy: 1e-12, "1/20, exactly alpha")
        XCTAssertEqual(comparison.verdict, .worse)
        XCTAssertEqual(outcome.status, .regression)
        XCTAssertTrue(outcome.output.contains("Regression: observeOn/serial elements=100000 ns_per_element"), outcome.output)
    }

    func testThreeAgainstThreeWorseByLessThanTheThresholdIsNotARegression() throws {
        // Every new repetition is slower, but only by 2-6 %: not "worse by more than 5 %".
        let outcome = try fixture.compare(base: [Self.cost([100, 101, 102])], new: [Self.cost([104, 105, 106])])
        let comparison = try XCTUnwrap(outcome.report?.comparisons.first)
        XCTAssertGreaterThan(try XCTUnwrap(comparison.worseTest).pValue, 0.05)
        XCTAssertEqual(comparison.verdict, .notShownEqual)
        XCTAssertEqual(outcome.status, .noRegression)
    }

    func testTheTestLooksInTheMetricsHarmfulDirection() throws {
        // A rate falling is harmful, a cost falling is not: the same numbers, opposite verdicts.
        let high: [Double?] = [110, 111, 112]
        let low: [Double?] = [100, 101, 102]
        let rate = try fixture.compare(base: [FixtureSeries(values: high)], new: [FixtureSeries(values: low)])
        XCTAssertEqual(rate.report?.comparisons.first?.verdict, .worse)
        XCTAssertEqual(rate.status, .regression)
        let cost = try fixture.compare(
            base: [FixtureSeries(metric: "ns_per_element", unit: "ns", values: high)],
            new: [FixtureSeries(metric: "ns_per_element", unit: "ns", values: low)])
        let comparison = try XCTUnwrap(cost.report?.comparisons.first)
        XCTAssertEqual(comparison.verdict, .better)
        XCTAssertEqual(try XCTUnwrap(comparison.worseTest).pValue, 1, accuracy: 1e-12)
        XCTAssertEqual(cost.status, .noRegression)
    }

    // MARK: - Could not be judged

    func testTwoAgainstThreeIsNotJudgedAndTheSummarySaysWhatIsMissing() throws {
        let outcome = try fixture.compare(base: [Self.cost([100, 101, 102])], new: [Self.cost([140, 141])])
        XCTAssertEqual(outcome.report?.comparisons.first?.verdict, .tooFewRepetitions)
        XCTAssertEqual(outcome.status, .notJudged)
        XCTAssertEqual(CompareExitStatus.notJudged.rawValue, 3)
        for expected in [
            "Could not judge 1 series:",
            "1 with 3 base / 2 new repetitions (smallest possible p 0.1)",
            "A verdict needs at least 3 repetitions a side",
            "observeOn/serial elements=100000 ns_per_element [system]: too few repetitions, 3/2 repetitions",
            "exit status 3, not a pass",
        ] {
            XCTAssertTrue(outcome.output.contains(expected), "lacks \(expected):\n\(outcome.output)")
        }
        XCTAssertFalse(outcome.output.contains("No regression: exit status 0"))
    }

    func testARegressionOutranksSeriesThatCouldNotBeJudged() throws {
        let outcome = try fixture.compare(
            base: [Self.cost([100, 101, 102], variant: "a"), Self.cost([100, 101], variant: "b")],
            new: [Self.cost([130, 131, 132], variant: "a"), Self.cost([100, 101, 102], variant: "b")])
        XCTAssertEqual(outcome.report?.comparisons.map(\.verdict), [.worse, .tooFewRepetitions])
        XCTAssertEqual(outcome.status, .regression)
        XCTAssertTrue(outcome.output.contains("Could not judge 1 series"), outcome.output)
    }

    func testSeriesNotJudgedByDesignDoNotMakeTheStatusThree() throws {
        // An anchor, a single-run tail and a per-tick sample, one repetition each.
        let base = [
            FixtureSeries(benchmark: "observeOn.throughput", variant: "peer.dispatch-async", metric: "ns_per_element", unit: "ns", values: [5]),
            FixtureSeries(benchmark: "observeOn.latency", variant: "fast-path", metric: "latency_p999_ns", unit: "ns", values: [600]),
            FixtureSeries(benchmark: "periodic.drift", variant: "serial-dispatch.native", params: "tick=3", metric: "lateness_at_tick_us", unit: "us", values: [60]),
        ]
        let outcome = try fixture.compare(base: base, new: base)
        XCTAssertEqual(outcome.report?.comparisons.map(\.verdict), [.shownOnly, .shownOnly, .shownOnly])
        XCTAssertEqual(outcome.report?.unjudged.count, 0)
        XCTAssertEqual(outcome.status, .noRegression)
    }

    func testGateExactIgnoresTimingsWithFewerRepetitionsInTheBaseline() throws {
        // CI: results/baseline-quick.csv has 3 timing repetitions, a fresh quick run 7;
        // allocation counts decide, and they are exact from one repetition.
        var generator = SeededGenerator(seed: 31)
        let allocations = FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [1, 1, 1])
        let base = [Self.cost([100, 101, 102], variant: "a"), Self.cost([100], variant: "b"), allocations]
        let new = [
            FixtureSeries(
                variant: "a", metric: "ns_per_element", unit: "ns",
                values: CompareFixture.noisy(around: 150, spread: 0.02, count: 7, using: &generator)),
            FixtureSeries(
                variant: "b", metric: "ns_per_element", unit: "ns",
                values: CompareFixture.noisy(around: 100, spread: 0.02, count: 7, using: &generator)),
            allocations,
        ]
        let exact = try fixture.compare(base: base, new: new, options: CompareOptions(gate: .exact))
        XCTAssertEqual(exact.report?.comparisons.map(\.verdict), [.worse, .tooFewRepetitions, .same])
        XCTAssertEqual(exact.status, .noRegression)
        XCTAssertTrue(exact.output.contains("worse (not gated)"), exact.output)
        XCTAssertTrue(exact.output.contains("too few repetitions (not gated)"), exact.output)
        XCTAssertEqual(try fixture.compare(base: base, new: new).status, .regression)
        XCTAssertEqual(
            try fixture.compare(base: Array(base.dropFirst()), new: Array(new.dropFirst())).status, .notJudged)
        var grown = new
        grown[2] = FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [2, 2, 2])
        XCTAssertEqual(try fixture.compare(base: base, new: grown, options: CompareOptions(gate: .exact)).status, .regression)
    }

    // MARK: - Same

    func testSameWhenTheIntervalLiesWithinTheThresholdAndCannotTellWhenItDoesNot() throws {
        var generator = SeededGenerator(seed: 32)
        func series(spread: Double) -> FixtureSeries {
            FixtureSeries(
                metric: "ns_per_element", unit: "ns",
                values: CompareFixture.noisy(around: 100, spread: spread, count: 7, using: &generator))
        }
        let tight = try fixture.compare(base: [series(spread: 0.01)], new: [series(spread: 0.01)])
        let tightComparison = try XCTUnwrap(tight.report?.comparisons.first)
        let interval = try XCTUnwrap(tightComparison.interval)
        XCTAssertGreaterThanOrEqual(interval.lowerBound, -0.05)
        XCTAssertLessThanOrEqual(interval.upperBound, 0.05)
        XCTAssertEqual(tightComparison.verdict, .same)
        XCTAssertTrue(tight.output.contains("same"))

        let loose = try fixture.compare(base: [series(spread: 0.3)], new: [series(spread: 0.3)])
        let looseComparison = try XCTUnwrap(loose.report?.comparisons.first)
        let looseInterval = try XCTUnwrap(looseComparison.interval)
        XCTAssertTrue(looseInterval.lowerBound < -0.05 || looseInterval.upperBound > 0.05)
        XCTAssertEqual(looseComparison.verdict, .notShownEqual)
        XCTAssertEqual(loose.status, .noRegression, "cannot tell is judged: no evidence of a regression")
    }

    // MARK: - False discovery rate

    func testBenjaminiHochbergAdjustedPValuesMatchReference() {
        // SciPy: false_discovery_control(p) (method 'bh').
        XCTAssertEqual(
            FalseDiscoveryRate.benjaminiHochbergAdjusted([0.01, 0.04, 0.03, 0.005, 0.5]),
            [0.025, 0.05, 0.05, 0.025, 0.5], accuracy: 1e-12)
        XCTAssertEqual(
            FalseDiscoveryRate.benjaminiHochbergAdjusted([0.2, 0.2, 0.01, 0.9, 0.04, 0.03]),
            [0.24, 0.24, 0.06, 0.9, 0.08, 0.08], accuracy: 1e-12)
        XCTAssertEqual(FalseDiscoveryRate.benjaminiHochbergAdjusted([]), [])
        XCTAssertTrue(FalseDiscoveryRate.isSignificant(1.0 / 20, at: 0.05))
        XCTAssertFalse(FalseDiscoveryRate.isSignificant(0.0501, at: 0.05))
    }

    /// Ninety unchanged series with 1 % noise and series v90, whose every
    /// new repetition is `shift` times its base, compared with default options.
    private static func reportWithALoneChange(shift: Double, repetitions: Int) throws -> ComparisonReport {
        var generator = SeededGenerator(seed: 33)
        let base = CompareSelfCheck.noisyRun(count: 91, repetitions: repetitions, using: &generator)
        var new = CompareSelfCheck.noisyRun(count: 90, repetitions: repetitions, using: &generator)
        new += CompareSelfCheck.noisyRun(count: 91, repetitions: repetitions, using: &generator, shift: shift).suffix(1)
        return try ComparisonReport(
            base: ResultFile(path: "base.csv", series: base), new: ResultFile(path: "new.csv", series: new),
            options: CompareOptions())
    }

    func testALoneClearImprovementAmongNinetySeriesIsLikelyBetterWithFiveRepetitionsAndNeverFailsTheRun() throws {
        for (repetitions, expected) in [(7, CompareVerdict.better), (5, .possiblyBetter)] {
            // Series v90 takes 30 % less time in every repetition.
            let report = try Self.reportWithALoneChange(shift: 0.7, repetitions: repetitions)
            let changed = try XCTUnwrap(report.comparisons.first { $0.key.variant == "v90" })
            XCTAssertEqual(changed.verdict, expected, "\(repetitions) repetitions")
            XCTAssertEqual(report.exitStatus, .noRegression, "\(repetitions) repetitions")
            XCTAssertEqual(
                report.comparisons.filter { $0.verdict == .better || $0.verdict == .possiblyBetter }.map(\.key.variant),
                ["v90"])
            if repetitions == 5 {
                let summary = CompareReportFormatter(report: report).summary()
                XCTAssertTrue(summary.contains("better?, 1 series"), summary)
                XCTAssertTrue(summary.contains("No regression: exit status 0"), summary)
            }
        }
    }

    func testALoneClearChangeAmongNinetySeriesNeedsSevenRepetitionsASide() throws {
        for (repetitions, expected) in [(7, CompareExitStatus.regression), (5, .notJudged), (3, .notJudged)] {
            // Series v90 is 20 % slower in every repetition.
            let report = try Self.reportWithALoneChange(shift: 1.2, repetitions: repetitions)
            XCTAssertEqual(report.testedCount, 91)
            XCTAssertEqual(report.exitStatus, expected, "\(repetitions) repetitions")
            let changed = try XCTUnwrap(report.comparisons.first { $0.key.variant == "v90" })
            XCTAssertEqual(changed.verdict, repetitions == 7 ? .worse : .possiblyWorse, "\(repetitions) repetitions")
            XCTAssertEqual(
                report.comparisons.filter { $0.verdict == .worse || $0.verdict.isUnjudged }.map(\.key.variant), ["v90"])
            XCTAssertEqual(report.repetitionsForALoneChange, 7)
            if repetitions < 7 {
                let summary = CompareReportFormatter(report: report).summary()
                XCTAssertTrue(summary.contains("Repetitions needed: 7 a side"), summary)
                XCTAssertTrue(summary.contains("v90 ns_per_element [system]: worse?"), summary)
                // The line a CI log shows first names the suspected regression.
                let last = try XCTUnwrap(summary.split(separator: "\n").last.map(String.init))
                XCTAssertTrue(last.hasPrefix("Suspected regression: "), last)
                XCTAssertTrue(last.hasPrefix("Suspected regression: elementPath/v90 ns_per_element [system] +"), last)
                XCTAssertTrue(last.contains("% (worse?), not confirmed; "), last)
                XCTAssertTrue(last.hasSuffix("1 gated series could not be judged: exit status 3, not a pass."), last)
            }
        }
    }

    // MARK: - Calibration on the committed runs

    /// The package's `results/` folder.
    private static var resultsFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("results")
    }

    // MARK: - Quick runs

    func testTwoQuickRunsTellAClearTwentyPercentChangeOfOneSeries() throws {
        // The series and spread of a committed run on a quiet machine (the
        // first default run of baafc87; a fixed file, so the test does not
        // change when the CI baseline is regenerated); two simulated quick
        // runs with the quick suite's repetitions, the second with the
        // trampoline's cost per schedule 20 % higher (its repetitions spread
        // by about 2 % there, so the change is clear; the fast path's
        // throughput spreads by 20 % in a quick run, where 20 % is not clear).
        let baseline = try ResultFile.load(
            path: Self.resultsFolder.appendingPathComponent("20261121T112142Z-baafc877e541.csv").path)
        let spread = CompareSelfCheck.withinRunSpread([baseline])
        let counts = CompareSelfCheck.observedCounts([baseline])
        let repetitions = SuiteConfiguration.quick(recursionProbe: nil).repetitions
        func isChanged(_ key: ResultSeriesKey) -> Bool {
            key.benchmark == "trampoline.recursion" && key.variant == "current-thread" && key.metric == "ns_per_schedule"
        }
        func slower(_ key: ResultSeriesKey, _ value: Double) -> Double {
            isChanged(key) ? value * 1.2 : value
        }
        for count in [repetitions, 3] {
            var generator = SeededGenerator(seed: 36)
            let base = CompareSelfCheck.simulatedRun(
                like: baseline, spread: spread, counts: counts, repetitions: count, using: &generator)
            let new = CompareSelfCheck.simulatedRun(
                like: baseline, spread: spread, counts: counts, repetitions: count, using: &generator, adjust: slower)
            let report = try ComparisonReport(base: base, new: new, options: CompareOptions())
            let flagged = report.comparisons.filter { $0.verdict == .worse || $0.verdict.isUnjudged }
            let changed = try XCTUnwrap(report.comparisons.first { isChanged($0.key) })
            if count == repetitions {
                XCTAssertEqual(changed.verdict, .worse)
                XCTAssertEqual(report.exitStatus, .regression)
                XCTAssertEqual(report.regressions.map(\.key), [changed.key], "nothing else is worse")
                // Noise may move another median beyond the threshold: that one
                // is left unjudged ("moved worse?", or for a series read at its
                // usual level, too few repetitions there), never called worse.
                for other in flagged where other.key != changed.key {
                    XCTAssertTrue(
                        [.movedWorse, .tooFewRepetitions].contains(other.verdict), "\(other.key): \(other.verdict)")
                }
            } else {
                // 3 a side: p = 0.05 at best, which no correction across ~80 series lets
                // through; the change is flagged "worse?" and the run is not a pass.
                XCTAssertEqual(changed.verdict, .possiblyWorse)
                XCTAssertEqual(report.exitStatus, .notJudged)
                XCTAssertEqual(report.regressions.count, 0)
            }
        }
        XCTAssertGreaterThanOrEqual(repetitions, 7)
    }
}

/// Element-wise equality within `accuracy`.
private func XCTAssertEqual(
    _ actual: [Double], _ expected: [Double], accuracy: Double, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertEqual(actual.count, expected.count, file: file, line: line)
    for (a, e) in zip(actual, expected) {
        XCTAssertEqual(a, e, accuracy: accuracy, "\(actual) vs \(expected)", file: file, line: line)
    }
}

/// A series whose level is set by the process's state (`BenchmarkSchema.timesBoundToProcess`):
/// the busy-queue floods of one binary read 13.3 and 33.3 ns per element in two
/// processes (docs/Compare.md), which no rank test over one process's repetitions
/// may call a regression.
final class ProcessBoundVerdictTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// One run: `benchmark`'s fast path, seven repetitions of `ns` per element.
    private func run(_ benchmark: String, _ ns: [Double], path: String) throws -> ResultFile {
        var lines = ["benchmark,variant,params,metric,unit,repetition,value"]
        for (index, value) in ns.enumerated() {
            lines.append("\(benchmark),fast-path,elements=100000,ns_per_element,ns,\(index + 1),\(value)")
        }
        return try ResultFile.parse(text: lines.joined(separator: "\n") + "\n", path: path)
    }

    private let first: [Double] = [13.1, 13.2, 13.3, 13.3, 13.4, 13.5, 13.6]
    private let second: [Double] = [32.5, 32.9, 33.1, 33.3, 33.6, 34.0, 34.4]

    /// `compare` of `base` against `new` as `benchmark`'s fast path.
    private func compare(_ benchmark: String, _ base: [Double], _ new: [Double]) throws -> ComparisonReport {
        try ComparisonReport(
            base: run(benchmark, base, path: "base.csv"), new: run(benchmark, new, path: "new.csv"), options: CompareOptions())
    }

    func testTheBusyQueueFloodsMovingBetweenProcessesAreNotJudgedNotAFalseAlarm() throws {
        let report = try compare("observeOn.busyQueue", first, second)
        XCTAssertEqual(report.comparisons.first?.rule.isProcessBound, true)
        XCTAssertEqual(report.comparisons.first?.verdict, .movedWorse)
        XCTAssertEqual(report.exitStatus, .notJudged)
        XCTAssertTrue(CompareReportFormatter(report: report).summary().contains("moved worse? (process-bound), 1 series"))
        // Improved as clearly, it is not called better either; within the threshold it is the same.
        XCTAssertEqual(try compare("observeOn.busyQueue", second, first).comparisons.first?.verdict, .notShownEqual)
        XCTAssertEqual(try compare("observeOn.busyQueue", first, first).comparisons.first?.verdict, .same)
    }

    func testTheSameMoveOfAQuietFloodIsARegression() throws {
        let report = try compare("observeOn.throughput", first, second)
        XCTAssertEqual(report.comparisons.first?.rule.isProcessBound, false)
        XCTAssertEqual(report.comparisons.first?.verdict, .worse)
        XCTAssertEqual(report.exitStatus, .regression)
    }
}
