@testable import BenchAnalysis
@testable import BenchKit
import Synchronization
import XCTest

/// The default suite takes repetitions of a benchmark until each judged
/// series is as narrow as compare needs, within the benchmark's budget, and
/// says which series hit it. Every stop here is decided by counts (a budget
/// of 0 or of a day), never by how long a repetition took.
final class AdaptiveRepetitionsTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// `elementPath`'s fast path as a stand-in benchmark: each repetition
    /// writes the next of `values` as its ns per element (`elementPath`'s
    /// declared time, judged against the 5 % threshold), and a peer beside
    /// it writes wildly spread values that must not keep it going.
    private struct Scripted: NamedBenchmark {
        static let name = ElementPathBenchmark.name
        static var schema: BenchmarkSchema { ElementPathBenchmark.schema }
        let values: [Double]
        let counter = Counter()

        final class Counter: Sendable {
            let count = Atomic<Int>(0)
            func next() -> Int { count.add(1, ordering: .relaxed).oldValue }
        }

        func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
            let values = self.values
            let counter = self.counter
            let peerCounter = Counter()
            return [
                MeasurementPlan(
                    benchmark: Self.name, variant: .fastPath, params: "elements=1", estimatedSeconds: 0,
                    warmUp: { _ in },
                    measure: { _ in
                        let index = counter.next()
                        return [MetricValue(.perElement.time, values[index % values.count])]
                    }),
                MeasurementPlan(
                    benchmark: Self.name, variant: .peer("spread"), params: "elements=1", estimatedSeconds: 0,
                    warmUp: { _ in },
                    measure: { _ in
                        [MetricValue(.perElement.time, peerCounter.next() % 2 == 0 ? 1 : 100)]
                    }),
            ]
        }
    }

    private func run(_ values: [Double], policy: AdaptiveRepetitions, override: Int? = nil) throws -> [CSVRow] {
        var configuration = SuiteConfiguration.tiny(recursionProbe: nil)
        configuration.adaptive = policy
        configuration.repetitionsOverride = override
        return try SuiteRunner(configuration: configuration, benchmarks: [Scripted(values: values)], counter: .disabled)
            .run(progress: ProgressReporter(style: .silent))
    }

    private func timed(_ rows: [CSVRow], _ variant: String = "fast-path") -> [Double] {
        rows.filter { $0.variant == variant && $0.metric == "ns_per_element" }.compactMap(\.value)
    }

    private func budgetFlag(_ rows: [CSVRow]) -> [String: Double] {
        var flags: [String: Double] = [:]
        for row in rows where row.metric == CSVSchema.budgetReached.name {
            flags["\(row.variant) \(row.params)"] = row.value
        }
        return flags
    }

    /// Narrow from the start: the fewest repetitions, then it stops, and its
    /// row says it did not need the budget. The peer's spread does not count.
    func testANarrowSeriesStopsAtTheFewestRepetitions() throws {
        let rows = try run(
            [100, 101, 100.5, 99.5, 100.2, 100.1, 99.9], policy: AdaptiveRepetitions(minimum: 5, maximum: 30, budgetSeconds: 86_400))
        XCTAssertEqual(timed(rows).count, 5)
        XCTAssertEqual(timed(rows, "peer.spread").count, 5, "every variant takes every round")
        XCTAssertEqual(budgetFlag(rows), ["fast-path elements=1;of=ns_per_element": 0])
    }

    /// Wide at first, narrow once more repetitions come: it stops as soon
    /// as compare's interval fits the threshold, before the most.
    func testAWideSeriesTakesRepetitionsUntilItIsNarrowEnough() throws {
        // Two outliers, then values within ±1 %: the interval narrows as they come.
        let values: [Double] = [100, 140, 60] + Array(repeating: [100.0, 101, 99, 100.5, 99.5], count: 8).flatMap { $0 }
        let rows = try run(values, policy: AdaptiveRepetitions(minimum: 5, maximum: 40, budgetSeconds: 86_400))
        let count = timed(rows).count
        XCTAssertGreaterThan(count, 5)
        XCTAssertLessThan(count, 40)
        // It stopped at the first count that is narrow enough.
        for made in 5..<count {
            XCTAssertFalse(
                RepetitionTarget.isNarrowEnough(
                    Array(values.prefix(made)), metric: "ns_per_element", benchmark: Scripted.name, variant: "fast-path"),
                "\(made) repetitions were already narrow enough")
        }
        XCTAssertTrue(
            RepetitionTarget.isNarrowEnough(
                Array(values.prefix(count)), metric: "ns_per_element", benchmark: Scripted.name, variant: "fast-path"))
        XCTAssertEqual(budgetFlag(rows), ["fast-path elements=1;of=ns_per_element": 0])
    }

    /// Never narrow: it stops at the most repetitions with a day's budget,
    /// at the fewest with none left, and either way its row says it hit
    /// the budget.
    func testANoisySeriesStopsAtTheBudgetAndSaysSo() throws {
        let noisy: [Double] = [50, 150, 80, 120, 60, 140, 90, 200]
        let capped = try run(noisy, policy: AdaptiveRepetitions(minimum: 5, maximum: 12, budgetSeconds: 86_400))
        XCTAssertEqual(timed(capped).count, 12)
        XCTAssertEqual(budgetFlag(capped), ["fast-path elements=1;of=ns_per_element": 1])
        let spent = try run(noisy, policy: AdaptiveRepetitions(minimum: 5, maximum: 30, budgetSeconds: 0))
        XCTAssertEqual(timed(spent).count, 5, "the fewest always run")
        XCTAssertEqual(budgetFlag(spent), ["fast-path elements=1;of=ns_per_element": 1])
        // The summary names it.
        let summary = SummaryTable.render(spent)
        XCTAssertTrue(summary.contains("hit the time budget, 1 of 1 judged series"), summary)
        XCTAssertTrue(summary.contains("elementPath/fast-path [elements=1] ns_per_element: 5 repetitions"), summary)
    }

    /// `--repetitions` is a fixed count: no adaptive rounds, no budget rows.
    func testTheRepetitionsOptionIsAFixedCount() throws {
        let rows = try run(
            [50, 150, 80, 120, 60], policy: AdaptiveRepetitions(minimum: 5, maximum: 30, budgetSeconds: 86_400), override: 3)
        XCTAssertEqual(timed(rows).count, 3)
        XCTAssertTrue(budgetFlag(rows).isEmpty)
    }

    /// `scale.trampoline`'s sweep, read at its usual level, as a stand-in:
    /// each round writes the next of `values` as the current-thread
    /// scheduler's ns per action at one point.
    private struct ScriptedSweep: NamedBenchmark {
        static let name = TrampolineScaleBenchmark.name
        static var schema: BenchmarkSchema { TrampolineScaleBenchmark.schema }
        let values: [Double]
        let counter = Scripted.Counter()

        func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
            let values = self.values
            let counter = self.counter
            return [
                MeasurementPlan(
                    benchmark: Self.name, variant: .currentThread, params: "points=1;n=1", estimatedSeconds: 0,
                    warmUp: { _ in },
                    measure: { _ in [MetricValue(.nanosecondsPerAction, values[counter.next() % values.count])] })
            ]
        }
    }

    /// A run of `20261207T160210Z-d9879a1ecbbe` on an Intel Xeon host: the
    /// trampoline's sweep at the machine's usual level (184 ns at its first
    /// point) in its first and last rounds, 1.5 times it in the twelve
    /// between, and the run stopped at its budget with 4 of 18 at the
    /// level, so compare judged none of its points. Narrow at its usual
    /// level from three repetitions, the series would stop at the fewest
    /// rounds; while fewer than a quarter are at the level, the benchmark
    /// takes rounds on, and stops at the first that reaches a quarter.
    func testABenchmarkThatMissedItsUsualLevelTakesRoundsOnUntilItHasIt() throws {
        let values: [Double] = [184, 184.1, 184.05] + Array(repeating: 282, count: 10) + Array(repeating: 184, count: 10)
        var configuration = SuiteConfiguration.tiny(recursionProbe: nil)
        configuration.adaptive = AdaptiveRepetitions(minimum: 13, maximum: 30, budgetSeconds: 86_400)
        let rows = try SuiteRunner(configuration: configuration, benchmarks: [ScriptedSweep(values: values)], counter: .disabled)
            .run(progress: ProgressReporter(style: .silent))
        let timed = rows.filter { $0.metric == "ns_per_action" }.compactMap(\.value)
        XCTAssertEqual(timed.count, 14, "3 of 13 at the usual level go on; 4 of 14 are a quarter")
        XCTAssertLessThan(ResultFile.usualLevelShares(of: Array(rows.prefix(13)))[ScriptedSweep.name] ?? 1, 0.25)
        XCTAssertTrue(
            RepetitionTarget.isNarrowEnough(
                Array(values.prefix(13)), metric: "ns_per_action", benchmark: ScriptedSweep.name, variant: "current-thread"),
            "narrow at thirteen: the usual level alone kept it going")
        XCTAssertGreaterThanOrEqual(ResultFile.usualLevelShares(of: rows)[ScriptedSweep.name] ?? 0, 0.25)
    }

    func testTheRuleOfContinuing() {
        let policy = AdaptiveRepetitions(minimum: 3, maximum: 6, budgetSeconds: 10)
        XCTAssertTrue(policy.continues(after: 2, elapsed: 100, anySeriesTooWide: false), "the fewest run whatever they take")
        XCTAssertFalse(policy.continues(after: 3, elapsed: 1, anySeriesTooWide: false), "narrow: done")
        XCTAssertTrue(policy.continues(after: 3, elapsed: 6, anySeriesTooWide: true), "a fourth round of 2 s ends at 8 s")
        XCTAssertFalse(policy.continues(after: 4, elapsed: 9, anySeriesTooWide: true), "a fifth would end past 10 s")
        XCTAssertFalse(policy.continues(after: 6, elapsed: 0, anySeriesTooWide: true), "the most")
        // A benchmark read at its usual level that missed it goes on, narrow
        // or not, within twice its budget and its most rounds.
        XCTAssertTrue(policy.continues(after: 3, elapsed: 1, anySeriesTooWide: false, missedUsualLevel: true))
        XCTAssertTrue(policy.continues(after: 4, elapsed: 9, anySeriesTooWide: true, missedUsualLevel: true), "ends at 11.25 s")
        XCTAssertFalse(policy.continues(after: 5, elapsed: 17, anySeriesTooWide: false, missedUsualLevel: true), "20.4 s")
        XCTAssertFalse(policy.continues(after: 6, elapsed: 0, anySeriesTooWide: false, missedUsualLevel: true), "the most")
        XCTAssertTrue(policy.mayExceedMinimum)
        let fixed = AdaptiveRepetitions(minimum: 3, maximum: 30, budgetSeconds: 0)
        XCTAssertFalse(fixed.mayExceedMinimum)
        XCTAssertFalse(fixed.continues(after: 3, elapsed: 0, anySeriesTooWide: true), "no budget: the fewest only")
        XCTAssertFalse(fixed.continues(after: 3, elapsed: 0, anySeriesTooWide: false, missedUsualLevel: true), "no budget")
        XCTAssertEqual(
            SuiteConfiguration.standard(recursionProbe: nil).adaptiveRepetitions(of: PeriodicDriftBenchmark())?.mayExceedMinimum,
            false)
        // The default suite's: the fewest compare judges, 3 against 3.
        XCTAssertEqual(AdaptiveRepetitions.standard.minimum, 3)
        XCTAssertEqual(
            SuiteConfiguration.standard(recursionProbe: nil).repetitions(of: TrampolineBenchmark()), 6,
            "the trampoline's paired ratios need 6 pairs")
        XCTAssertEqual(SuiteConfiguration.standard(recursionProbe: nil).repetitions(of: PeriodicDriftBenchmark()), 3)
        XCTAssertEqual(SuiteConfiguration.standard(recursionProbe: nil).adaptive, .standard)
        XCTAssertNil(SuiteConfiguration.quick(recursionProbe: nil).adaptive)
        // observeOn.throughput keeps its thirty in five processes.
        XCTAssertNil(SuiteConfiguration.standard(recursionProbe: nil).adaptiveRepetitions(of: ObserveOnThroughputBenchmark()))
        XCTAssertEqual(SuiteConfiguration.standard(recursionProbe: nil).repetitions(of: ObserveOnThroughputBenchmark()), 30)
    }
}

/// What compare needs of one run's series (`RepetitionTarget`).
final class RepetitionTargetTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    func testNarrowMeansCompareCouldShowTheSeriesUnchanged() throws {
        let tight: [Double] = [100, 101, 99, 100.5, 99.5]
        let loose: [Double] = [100, 110, 90, 105, 95]
        XCTAssertTrue(RepetitionTarget.isNarrowEnough(tight, metric: "ns_per_element", benchmark: "elementPath", variant: "fast-path"))
        XCTAssertFalse(RepetitionTarget.isNarrowEnough(loose, metric: "ns_per_element", benchmark: "elementPath", variant: "fast-path"))
        // The same as compare: the run against itself is `same` exactly when narrow enough.
        for values in [tight, loose] {
            let series = FixtureSeries(
                benchmark: "elementPath", variant: "fast-path", params: "elements=1", metric: "ns_per_element", unit: "ns",
                values: values)
            let outcome = try CompareFixture().compare(base: [series], new: [series])
            let narrow = RepetitionTarget.isNarrowEnough(
                values, metric: "ns_per_element", benchmark: "elementPath", variant: "fast-path")
            XCTAssertEqual(outcome.report?.comparisons.first?.verdict == .same, narrow, outcome.output)
        }
        // A wake-up-bound time is held to the 40 % threshold.
        let lateness: [Double] = [100, 120, 85, 110, 95]
        XCTAssertTrue(
            RepetitionTarget.isNarrowEnough(
                lateness, metric: "latency_p50_ns", benchmark: "observeOn.latency", variant: "fast-path"))
        // Anchors, exact counts and shown-only series ask for nothing.
        XCTAssertFalse(RepetitionTarget.isJudgedTime(metric: "ns_per_element", benchmark: "elementPath", variant: "peer.x"))
        XCTAssertFalse(RepetitionTarget.isJudgedTime(metric: "allocs_per_element", benchmark: "elementPath", variant: "fast-path"))
        XCTAssertFalse(
            RepetitionTarget.isJudgedTime(metric: "quiet_cpu_ns_per_element", benchmark: "observeOn.busyQueue", variant: "fast-path"))
        XCTAssertEqual(RepetitionTarget.fewestJudged(), 3)
    }
}
