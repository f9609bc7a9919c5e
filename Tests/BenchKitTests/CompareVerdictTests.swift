@testable import BenchAnalysis
import ToolSupport
import BenchKit
import XCTest

/// Verdicts and exit statuses of `BenchRunner compare` on generated result files.
final class CompareVerdictTests: XCTestCase {
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

    private func only(_ outcome: CompareOutcome, file: StaticString = #filePath, line: UInt = #line) -> SeriesComparison? {
        guard let report = outcome.report else {
            XCTFail("no report: \(outcome.diagnostics)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(report.comparisons.count, 1, file: file, line: line)
        return report.comparisons.first
    }

    // MARK: - Noisy metrics

    func testClearThroughputDropUnderThirtyPercentNoiseIsWorseAndExitsOne() throws {
        var generator = SeededGenerator(seed: 1)
        let base = FixtureSeries(values: CompareFixture.noisy(around: 1e7, spread: 0.3, count: 10, using: &generator))
        let new = FixtureSeries(values: CompareFixture.noisy(around: 6e6, spread: 0.3, count: 10, using: &generator))
        let outcome = try fixture.compare(base: [base], new: [new])
        let comparison = try XCTUnwrap(only(outcome))
        XCTAssertEqual(comparison.verdict, .worse)
        XCTAssertEqual(outcome.status, .regression)
        XCTAssertLessThan(try XCTUnwrap(comparison.worseTest).pValue, 0.05)
        XCTAssertLessThan(try XCTUnwrap(comparison.change), -0.2)
        let interval = try XCTUnwrap(comparison.interval)
        XCTAssertLessThan(interval.upperBound, 0, "the interval of a clear drop excludes zero")
        XCTAssertTrue(outcome.output.contains("worse"))
        XCTAssertTrue(outcome.output.contains("exit status 1"))
    }

    func testClearThroughputGainIsBetterAndExitsZero() throws {
        var generator = SeededGenerator(seed: 2)
        let base = FixtureSeries(values: CompareFixture.noisy(around: 6e6, spread: 0.3, count: 10, using: &generator))
        let new = FixtureSeries(values: CompareFixture.noisy(around: 1e7, spread: 0.3, count: 10, using: &generator))
        let outcome = try fixture.compare(base: [base], new: [new])
        XCTAssertEqual(only(outcome)?.verdict, .better)
        XCTAssertEqual(outcome.status, .noRegression)
    }

    func testPureNoiseOfTenToThirtyPercentIsNotReportedAsAChange() throws {
        // 60 pairs drawn from the same distribution: at alpha 0.05 about 5 % of
        // pairs are significant by chance, and the threshold removes some more.
        var generator = SeededGenerator(seed: 3)
        var base: [FixtureSeries] = []
        var new: [FixtureSeries] = []
        for index in 0..<60 {
            let spread = [0.1, 0.2, 0.3][index % 3]
            let center = 1e6 * Double(index + 1)
            let variant = "v\(index)"
            base.append(FixtureSeries(
                variant: variant,
                values: CompareFixture.noisy(around: center, spread: spread, count: 10, using: &generator)))
            new.append(FixtureSeries(
                variant: variant,
                values: CompareFixture.noisy(around: center, spread: spread, count: 10, using: &generator)))
        }
        let outcome = try fixture.compare(base: base, new: new)
        let report = try XCTUnwrap(outcome.report)
        let changed = report.comparisons.filter { $0.verdict == .worse || $0.verdict == .better }
        XCTAssertEqual(changed.count, 0, "noise flagged as change: \(changed.map(\.key))")
        // A median that noise moved beyond the 5 % threshold in the harmful
        // direction is not judged (a harmful move never passes quietly); any
        // other is same or ~.
        for comparison in report.comparisons {
            if (comparison.change ?? 0) < -comparison.threshold {
                XCTAssertEqual(comparison.verdict, .movedWorse, "\(comparison.key)")
            } else {
                XCTAssertTrue([.same, .notShownEqual].contains(comparison.verdict), "\(comparison.key): \(comparison.verdict)")
            }
        }
        let moved = report.count(of: .movedWorse)
        XCTAssertGreaterThan(moved, 0, "30 % noise moves some medians beyond 5 %")
        XCTAssertEqual(report.count(of: .same) + report.count(of: .notShownEqual) + moved, 60)
        XCTAssertEqual(outcome.status, .notJudged)
        // With a threshold the noise does not reach, the same runs pass.
        let wide = try fixture.compare(base: base, new: new, options: CompareOptions(threshold: 0.3))
        XCTAssertEqual(wide.report?.unjudged.count, 0)
        XCTAssertEqual(wide.status, .noRegression)
        // And a naive percentage difference would have flagged many of them.
        let naive = report.comparisons.filter { abs($0.change ?? 0) >= 0.05 }
        XCTAssertGreaterThan(naive.count, 15)
    }

    func testThirtyPercentNoiseWithoutAChangeIsCannotTellNotSame() throws {
        // No change, but ±30 % noise: the interval reaches beyond ±5 %, so
        // sameness is not shown either.
        var generator = SeededGenerator(seed: 4)
        let base = FixtureSeries(values: CompareFixture.noisy(around: 1e6, spread: 0.3, count: 10, using: &generator))
        let new = FixtureSeries(values: CompareFixture.noisy(around: 1e6, spread: 0.3, count: 10, using: &generator))
        let outcome = try fixture.compare(base: [base], new: [new])
        XCTAssertEqual(only(outcome)?.verdict, .notShownEqual)
        XCTAssertEqual(outcome.status, .noRegression)
        XCTAssertTrue(outcome.output.contains("~"))
    }

    func testLatencyIncreaseIsWorseBecauseLowerIsBetter() throws {
        var generator = SeededGenerator(seed: 5)
        let base = FixtureSeries(
            metric: "latency_p50_ns", unit: "ns",
            values: CompareFixture.noisy(around: 1000, spread: 0.2, count: 8, using: &generator))
        let new = FixtureSeries(
            metric: "latency_p50_ns", unit: "ns",
            values: CompareFixture.noisy(around: 2000, spread: 0.2, count: 8, using: &generator))
        let outcome = try fixture.compare(base: [base], new: [new])
        XCTAssertEqual(only(outcome)?.verdict, .worse)
        XCTAssertEqual(outcome.status, .regression)
        let reversed = try fixture.compare(base: [new], new: [base])
        XCTAssertEqual(only(reversed)?.verdict, .better)
        XCTAssertEqual(reversed.status, .noRegression)
    }

    func testSameRiseIsBetterForRatesWorseForCostsAndNotJudgedForMachineFacts() throws {
        var generator = SeededGenerator(seed: 6)
        let low = CompareFixture.noisy(around: 100, spread: 0.1, count: 6, using: &generator)
        let high = CompareFixture.noisy(around: 150, spread: 0.1, count: 6, using: &generator)
        for (metric, expected) in [
            ("elements_per_s", CompareVerdict.better), ("depth", .better), ("plain_recursion_limit", .shownOnly),
            ("ns_per_element", .worse), ("lateness_p50_us", .worse), ("lateness_p99_us", .shownOnly),
            ("final_drift_us", .worse),
            ("stack_growth_bytes", .worse), ("some_future_rate_per_s", .shownOnly),
        ] {
            let outcome = try fixture.compare(
                base: [FixtureSeries(metric: metric, values: low)], new: [FixtureSeries(metric: metric, values: high)])
            XCTAssertEqual(only(outcome)?.verdict, expected, metric)
        }
    }

    func testDepthDecreaseIsARegressionWithoutATest() throws {
        let outcome = try fixture.compare(
            base: [FixtureSeries(benchmark: "trampoline", metric: "depth", values: [1_000_000])],
            new: [FixtureSeries(benchmark: "trampoline", metric: "depth", values: [999_999])])
        XCTAssertEqual(only(outcome)?.verdict, .worse)
        XCTAssertEqual(outcome.status, .regression)
    }

    func testInformationalMetricIsNeverJudgedAndOnlyListedInCSV() throws {
        let outcome = try fixture.compare(
            base: [FixtureSeries(metric: "plain_recursion_limit", values: [90_000, 91_000, 90_500, 90_800])],
            new: [FixtureSeries(metric: "plain_recursion_limit", values: [10_000, 11_000, 10_500, 10_800])])
        let comparison = try XCTUnwrap(only(outcome))
        XCTAssertEqual(comparison.verdict, .shownOnly)
        XCTAssertNotNil(comparison.change)
        XCTAssertEqual(outcome.status, .noRegression)
        XCTAssertTrue(outcome.output.contains("1 series are shown, not judged, by design"), outcome.output)
        XCTAssertFalse(outcome.output.contains("plain_recursion_limit"), "the table leaves it out")
        let csv = try fixture.compare(
            base: [FixtureSeries(metric: "plain_recursion_limit", values: [90_000])],
            new: [FixtureSeries(metric: "plain_recursion_limit", values: [10_000])],
            options: CompareOptions(format: .csv))
        XCTAssertTrue(csv.output.contains("plain_recursion_limit"), "CSV lists every series")
    }

    func testTwoAgainstThreeRepetitionsAreTooFewForAVerdictAtAlphaFivePercent() throws {
        let outcome = try fixture.compare(
            base: [FixtureSeries(values: [100, 101])], new: [FixtureSeries(values: [10, 11, 12])])
        let comparison = try XCTUnwrap(only(outcome))
        XCTAssertEqual(comparison.verdict, .tooFewRepetitions)
        XCTAssertNil(comparison.worseTest, "no test is reported when it cannot reach alpha")
        XCTAssertEqual(outcome.status, .notJudged, "a series that could not be judged is not a pass")
        XCTAssertTrue(outcome.output.contains("too few repetitions"))
    }

    func testFourRepetitionsEachCanReachAlphaFivePercent() throws {
        let outcome = try fixture.compare(
            base: [FixtureSeries(values: [100, 101, 102, 103])], new: [FixtureSeries(values: [10, 11, 12, 13])])
        XCTAssertEqual(only(outcome)?.verdict, .worse)
        XCTAssertEqual(outcome.status, .regression)
    }

    func testStricterAlphaNeedsMoreRepetitions() throws {
        // 4 against 4 reach a one-sided p = 1/70 ≈ 0.014 at best: enough for 0.05, not for 0.01.
        let outcome = try fixture.compare(
            base: [FixtureSeries(values: [100, 101, 102, 103])], new: [FixtureSeries(values: [10, 11, 12, 13])],
            options: CompareOptions(alpha: 0.01))
        XCTAssertEqual(only(outcome)?.verdict, .tooFewRepetitions)
        XCTAssertEqual(outcome.status, .notJudged)
    }

    func testSignificantChangeBelowThresholdIsNotARegression() throws {
        var generator = SeededGenerator(seed: 8)
        let base = FixtureSeries(values: CompareFixture.noisy(around: 1000, spread: 0.002, count: 10, using: &generator))
        let new = FixtureSeries(values: CompareFixture.noisy(around: 970, spread: 0.002, count: 10, using: &generator))
        let outcome = try fixture.compare(base: [base], new: [new])
        let comparison = try XCTUnwrap(only(outcome))
        let baseValues = try XCTUnwrap(comparison.baseValues)
        let newValues = try XCTUnwrap(comparison.newValues)
        XCTAssertLessThan(
            MannWhitneyUTest(baseValues, newValues, alternative: .secondLess).pValue, 0.05,
            "the 3 % drop is significant")
        XCTAssertEqual(comparison.verdict, .same, "but inside the default 5 % threshold, and shown to be")
        XCTAssertEqual(outcome.status, .noRegression)

        let strict = try fixture.compare(base: [base], new: [new], options: CompareOptions(threshold: 0.01))
        XCTAssertEqual(only(strict)?.verdict, .worse)
        XCTAssertEqual(strict.status, .regression)
    }

    func testLargeHarmfulChangeThatIsNotSignificantIsNotJudgedAndAGoodOneIsCannotTell() throws {
        // Medians differ by 10 % but the samples overlap completely: no test
        // confirms the drop, yet the median fell beyond the 5 % threshold, so
        // the series is not judged (never a pass).
        let outcome = try fixture.compare(
            base: [FixtureSeries(values: [100, 60, 140, 90, 110, 70, 130])],
            new: [FixtureSeries(values: [90, 55, 150, 80, 100, 65, 135])])
        let comparison = try XCTUnwrap(only(outcome))
        XCTAssertEqual(comparison.verdict, .movedWorse)
        XCTAssertEqual(outcome.status, .notJudged)
        XCTAssertGreaterThan(try XCTUnwrap(comparison.worseTest).pValue, 0.05)
        // The same overlap with the median 10 % higher (the good direction) is ~.
        let good = try fixture.compare(
            base: [FixtureSeries(values: [90, 55, 150, 80, 100, 65, 135])],
            new: [FixtureSeries(values: [100, 60, 140, 90, 110, 70, 130])])
        XCTAssertEqual(only(good)?.verdict, .notShownEqual)
        XCTAssertEqual(good.status, .noRegression)
    }

    // MARK: - Exact metrics

    func testAllocationIncreaseOfOnePerElementIsARegression() throws {
        let base = FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [2, 2, 2, 2, 2])
        let new = FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [3, 3, 3, 3, 3])
        let outcome = try fixture.compare(base: [base], new: [new])
        let comparison = try XCTUnwrap(only(outcome))
        XCTAssertEqual(comparison.verdict, .worse)
        XCTAssertNil(comparison.worseTest, "exact metrics need no test")
        XCTAssertEqual(outcome.status, .regression)
        XCTAssertTrue(outcome.output.contains("Regression: observeOn/serial elements=100000 allocs_per_element"))
    }

    func testAllocationIncreaseIsARegressionWithOneRepetitionAndAHugeThreshold() throws {
        let base = FixtureSeries(metric: "allocs_per_schedule", unit: "allocs", values: [4])
        let new = FixtureSeries(metric: "allocs_per_schedule", unit: "allocs", values: [4.01])
        let outcome = try fixture.compare(base: [base], new: [new], options: CompareOptions(threshold: 10))
        XCTAssertEqual(only(outcome)?.verdict, .worse)
        XCTAssertEqual(outcome.status, .regression)
    }

    func testAllocationGrowthFromZeroIsARegression() throws {
        let base = FixtureSeries(metric: "bytes_per_element", unit: "bytes", values: [0, 0, 0])
        let new = FixtureSeries(metric: "bytes_per_element", unit: "bytes", values: [48, 48, 48])
        let outcome = try fixture.compare(base: [base], new: [new])
        let comparison = try XCTUnwrap(only(outcome))
        XCTAssertEqual(comparison.verdict, .worse)
        XCTAssertNil(comparison.change, "a change from zero has no percentage")
        XCTAssertTrue(outcome.output.contains("from 0"))
        XCTAssertEqual(outcome.status, .regression)
    }

    func testAllocationDecreaseIsBetterAndEqualCountsAreSame() throws {
        let three = FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [3, 3, 3])
        let two = FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [2, 2, 2])
        let decrease = try fixture.compare(base: [three], new: [two])
        XCTAssertEqual(only(decrease)?.verdict, .better)
        XCTAssertEqual(decrease.status, .noRegression)
        let same = try fixture.compare(base: [two], new: [two])
        XCTAssertEqual(only(same)?.verdict, .same)
        XCTAssertEqual(same.status, .noRegression)
    }

    // MARK: - Gate

    func testGateExactPrintsTimingRegressionsButDoesNotFailOnThem() throws {
        var generator = SeededGenerator(seed: 9)
        let base = FixtureSeries(values: CompareFixture.noisy(around: 1e7, spread: 0.1, count: 10, using: &generator))
        let new = FixtureSeries(values: CompareFixture.noisy(around: 5e6, spread: 0.1, count: 10, using: &generator))
        let outcome = try fixture.compare(base: [base], new: [new], options: CompareOptions(gate: .exact))
        let comparison = try XCTUnwrap(only(outcome))
        XCTAssertEqual(comparison.verdict, .worse)
        XCTAssertFalse(comparison.isGated)
        XCTAssertEqual(outcome.status, .noRegression)
        XCTAssertTrue(outcome.output.contains("worse (not gated)"))
    }

    func testGateExactFailsOnAnAllocationIncrease() throws {
        var generator = SeededGenerator(seed: 10)
        let timing = FixtureSeries(values: CompareFixture.noisy(around: 1e7, spread: 0.3, count: 10, using: &generator))
        let base = [timing, FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [1, 1, 1])]
        let new = [timing, FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [2, 2, 2])]
        let outcome = try fixture.compare(base: base, new: new, options: CompareOptions(gate: .exact))
        XCTAssertEqual(outcome.status, .regression)
        XCTAssertEqual(outcome.report?.regressions.map(\.key.metric), ["allocs_per_element"])
    }

    // MARK: - Pairing

    func testSeriesOnOneSideOnlyAreListedAsAddedOrRemoved() throws {
        let kept = FixtureSeries(variant: "kept", values: [1, 2, 3, 4])
        let gone = FixtureSeries(variant: "gone", values: [1, 2, 3, 4])
        let fresh = FixtureSeries(variant: "fresh", values: [1, 2, 3, 4])
        let outcome = try fixture.compare(base: [kept, gone], new: [kept, fresh])
        let report = try XCTUnwrap(outcome.report)
        XCTAssertEqual(report.comparisons.map(\.key.variant), ["kept", "gone", "fresh"])
        XCTAssertEqual(report.comparisons.map(\.verdict), [.notShownEqual, .removed, .added])
        XCTAssertEqual(outcome.status, .noRegression)
        XCTAssertTrue(outcome.output.contains("removed"))
        XCTAssertTrue(outcome.output.contains("added"))
    }

    func testPerTickSamplesOnOneSideOnlyAreNotListedAsAddedOrRemoved() throws {
        // Which ticks a drift run samples depends on the run; such rows describe
        // the run, they are not benchmarks that appeared or disappeared.
        let sampledInBase = FixtureSeries(
            benchmark: "periodic.drift", variant: "serial-dispatch.native", params: "period_ms=1;tick=14",
            metric: "lateness_at_tick_us", unit: "us", values: [63])
        let sampledInNew = FixtureSeries(
            benchmark: "periodic.drift", variant: "serial-dispatch.native", params: "period_ms=1;tick=15",
            metric: "lateness_at_tick_us", unit: "us", values: [70])
        let outcome = try fixture.compare(base: [sampledInBase], new: [sampledInNew])
        let report = try XCTUnwrap(outcome.report)
        XCTAssertEqual(report.comparisons.map(\.verdict), [.shownOnly, .shownOnly])
        XCTAssertTrue(outcome.output.contains("added 0, removed 0"), outcome.output)
        XCTAssertEqual(outcome.status, .noRegression)
    }

    func testAShiftThatThePeersShareIsTheMachineNotTheCode() throws {
        // Every series of the new run is 12 % slower: the machine drifted.
        func cost(_ variant: String, _ values: [Double]) -> FixtureSeries {
            FixtureSeries(benchmark: "elementPath", variant: variant, metric: "ns_per_element", unit: "ns", values: values.map { $0 })
        }
        let base = [
            cost("fast-path", [100, 101, 102, 99, 100]),
            cost("peer.dispatch-async", [200, 201, 199, 202, 200]),
            cost("reference.batched-handoff", [50, 51, 49, 50, 52]),
        ]
        let new = [
            cost("fast-path", [112, 113, 114, 111, 112]),
            cost("peer.dispatch-async", [224, 225, 223, 226, 224]),
            cost("reference.batched-handoff", [56, 57, 55, 56, 58]),
        ]
        let outcome = try fixture.compare(base: base, new: new)
        let report = try XCTUnwrap(outcome.report)
        XCTAssertEqual(report.comparisons.map(\.verdict), [.same, .shownOnly, .shownOnly])
        XCTAssertEqual(outcome.status, .noRegression)
    }

    func testAShiftOnlyTheLibraryShowsIsWorseDespiteSteadyPeers() throws {
        func cost(_ variant: String, _ values: [Double]) -> FixtureSeries {
            FixtureSeries(benchmark: "elementPath", variant: variant, metric: "ns_per_element", unit: "ns", values: values.map { $0 })
        }
        let peer = cost("peer.dispatch-async", [200, 201, 199, 202, 200])
        let outcome = try fixture.compare(
            base: [cost("fast-path", [100, 101, 102, 99, 100]), peer],
            new: [cost("fast-path", [112, 113, 114, 111, 112]), peer])
        let report = try XCTUnwrap(outcome.report)
        XCTAssertEqual(report.comparisons.first?.verdict, .worse)
        XCTAssertEqual(outcome.status, .regression)
    }

    /// Median lateness of a periodic variant at 1 ms: a wake-up-bound time.
    private static func lateness(_ values: [Double]) -> FixtureSeries {
        FixtureSeries(
            benchmark: "periodic.drift", variant: "serial-dispatch.native", params: "period_ms=1;ticks=500",
            metric: "lateness_p50_us", unit: "us", values: values.map { $0 })
    }

    func testAWakeUpBoundShiftWithinTheWakeUpThresholdIsNoise() throws {
        // Same-revision runs on the shared VM moved timer lateness this much,
        // every repetition agreeing: significant, yet the machine's scheduling.
        let outcome = try fixture.compare(
            base: [Self.lateness([70, 72, 74, 71, 73])], new: [Self.lateness([90, 92, 94, 91, 93])])
        let comparison = try XCTUnwrap(outcome.report?.comparisons.first)
        XCTAssertLessThan(MannWhitneyUTest([70, 72, 74, 71, 73], [90, 92, 94, 91, 93], alternative: .secondGreater).pValue, 0.05)
        XCTAssertTrue(comparison.rule.isWakeUpBound)
        XCTAssertEqual(comparison.threshold, 0.40)
        XCTAssertEqual(comparison.verdict, .same, "+27 %, every repetition agreeing, is inside ±40 %")
        XCTAssertEqual(outcome.status, .noRegression)
    }

    func testAWakeUpBoundTimeIsNotMadeWorseByItsPeers() throws {
        // Seen between two runs of one revision: the peer's lateness fell by
        // a quarter while the library's rose by a quarter. Divided by the
        // peer's factor that would be +68 %, a regression; it is noise. The
        // correction may only excuse a change, never make one.
        func series(_ variant: String, _ values: [Double]) -> FixtureSeries {
            FixtureSeries(
                benchmark: "periodic.drift", variant: variant, params: "period_ms=10;ticks=100",
                metric: "lateness_p50_us", unit: "us", values: values.map { $0 })
        }
        let outcome = try fixture.compare(
            base: [series("serial-dispatch.native", [120, 121, 122, 123, 124]), series("peer.dispatch-timer", [140, 141, 143, 144, 145])],
            new: [series("serial-dispatch.native", [151, 152, 153, 155, 156]), series("peer.dispatch-timer", [105, 106, 107, 108, 109])])
        let comparison = try XCTUnwrap(outcome.report?.comparisons.first { $0.key.variant == "serial-dispatch.native" })
        XCTAssertEqual(try XCTUnwrap(comparison.machineDrift), 107.0 / 143.0, accuracy: 1e-9)
        XCTAssertEqual(comparison.verdict, .same)
        XCTAssertEqual(outcome.status, .noRegression)
    }

    /// A cost per element of `variant` in a benchmark judged on all its repetitions (the drift tests; a series read at its usual level gets no drift correction).
    private func throughputCost(_ variant: String, _ values: [Double]) -> FixtureSeries {
        FixtureSeries(
            benchmark: "elementPath", variant: variant, params: "elements=100000",
            metric: "ns_per_element", unit: "ns", values: values)
    }

    func testThePeersCannotTurnAnUnchangedTimeIntoARegression() throws {
        // Seen between two quick runs of one revision: the peers sped up by a
        // third while the library's time stayed; corrected, the library looks
        // 25 % slower. As measured it did not change: not worse.
        let outcome = try fixture.compare(
            base: [throughputCost("generic", [30, 30.5, 31, 31.5, 32, 32.5, 33]), throughputCost("peer.dispatch-async", [800, 805, 810, 815, 820, 825, 830])],
            new: [throughputCost("generic", [30.2, 30.7, 31.2, 31.7, 32.2, 32.7, 33.2]), throughputCost("peer.dispatch-async", [600, 604, 608, 611, 615, 619, 623])])
        let comparison = try XCTUnwrap(outcome.report?.comparisons.first { $0.key.variant == "generic" })
        XCTAssertEqual(try XCTUnwrap(comparison.machineDrift), 611.0 / 815.0, accuracy: 1e-9)
        // Corrected alone, every new repetition is far beyond the threshold.
        let corrected = comparison.newValues!.map { $0 / comparison.machineDrift! }
        XCTAssertGreaterThan(corrected.min()!, comparison.baseValues!.max()! * 1.05)
        XCTAssertNotEqual(comparison.verdict, .worse)
        XCTAssertNotEqual(comparison.verdict, .possiblyWorse)
        XCTAssertEqual(outcome.status, .noRegression)
    }

    func testAMachineSlowdownExcusesASlowerTimeButARealRegressionStaysWorse() throws {
        let base = [30, 30.5, 31, 31.5, 32, 32.5, 33]
        let peerBase = [800, 805, 810, 815, 820, 825, 830].map { Double($0) }
        let peerSlower = peerBase.map { $0 * 1.3 }
        // The machine 30 % slower, the library 30 % slower: excused.
        let excused = try fixture.compare(
            base: [throughputCost("generic", base), throughputCost("peer.dispatch-async", peerBase)],
            new: [throughputCost("generic", base.map { $0 * 1.3 }), throughputCost("peer.dispatch-async", peerSlower)])
        XCTAssertNotEqual(excused.report?.comparisons.first { $0.key.variant == "generic" }?.verdict, .worse)
        XCTAssertEqual(excused.status, .noRegression)
        // The machine 30 % slower, the library twice as slow: still worse.
        let regressed = try fixture.compare(
            base: [throughputCost("generic", base), throughputCost("peer.dispatch-async", peerBase)],
            new: [throughputCost("generic", base.map { $0 * 2 }), throughputCost("peer.dispatch-async", peerSlower)])
        XCTAssertEqual(regressed.report?.comparisons.first { $0.key.variant == "generic" }?.verdict, .worse)
        XCTAssertEqual(regressed.status, .regression)
    }

    func testCountsOfAVariantWhoseRunLoopAllocatesAreShownNotJudged() throws {
        let main = MetricComparisonRule(metric: "allocs_per_lifecycle", benchmark: "observeOn.subscription", variant: "main")
        XCTAssertEqual(main.preference, .informational)
        XCTAssertFalse(main.isExact)
        let fastPath = MetricComparisonRule(metric: "allocs_per_lifecycle", benchmark: "observeOn.subscription", variant: "fast-path")
        XCTAssertTrue(fastPath.isExact)
        XCTAssertEqual(fastPath.preference, .lowerIsBetter)
    }

    func testAWakeUpBoundShiftBeyondTheWakeUpThresholdIsWorse() throws {
        // An extra thread hop: lateness doubles.
        let outcome = try fixture.compare(
            base: [Self.lateness([70, 72, 74, 71, 73])], new: [Self.lateness([140, 142, 146, 141, 139])])
        XCTAssertEqual(outcome.report?.comparisons.first?.verdict, .worse)
        XCTAssertEqual(outcome.status, .regression)
    }

    func testTheSameShiftOfACPUBoundTimeIsWorse() throws {
        // +27 % on a CPU-bound time is far beyond its run-to-run swing.
        func cost(_ values: [Double]) -> FixtureSeries {
            FixtureSeries(
                benchmark: "trampoline.recursion", variant: "current-thread", params: "depth=1000",
                metric: "ns_per_schedule", unit: "ns", values: values.map { $0 })
        }
        let outcome = try fixture.compare(base: [cost([70, 72, 74, 71, 73])], new: [cost([90, 92, 94, 91, 93])])
        let comparison = try XCTUnwrap(outcome.report?.comparisons.first)
        XCTAssertFalse(comparison.rule.isWakeUpBound)
        XCTAssertEqual(comparison.verdict, .worse)
    }

    func testTheMainQueueVariantsTimesAreWakeUpBoundButTheirCountsAreExact() {
        XCTAssertTrue(MetricComparisonRule(metric: "elements_per_s", benchmark: "observeOn.throughput", variant: "main").isWakeUpBound)
        XCTAssertFalse(MetricComparisonRule(metric: "elements_per_s", benchmark: "observeOn.throughput", variant: "fast-path").isWakeUpBound)
        XCTAssertFalse(MetricComparisonRule(metric: "allocs_per_element", benchmark: "observeOn.throughput", variant: "main").isWakeUpBound)
        XCTAssertTrue(MetricComparisonRule(metric: "final_drift_us", benchmark: "periodic.drift", variant: "serial-dispatch.emulated").isWakeUpBound)
    }

    func testALowerWakeUpThresholdJudgesTheSameShift() throws {
        let outcome = try fixture.compare(
            base: [Self.lateness([70, 72, 74, 71, 73])], new: [Self.lateness([90, 92, 94, 91, 93])],
            options: CompareOptions(wakeUpThreshold: 0.10))
        XCTAssertEqual(outcome.report?.comparisons.first?.verdict, .worse)
    }

    func testTailLatencyIsShownButNotJudged() throws {
        let tail = FixtureSeries(
            benchmark: "observeOn.latency", variant: "fast-path", metric: "latency_p999_ns", unit: "ns",
            values: [600, 610, 620, 630, 640])
        var worse = tail
        worse.values = [3000, 3100, 3200, 3300, 3400]
        let outcome = try fixture.compare(base: [tail], new: [worse])
        XCTAssertEqual(outcome.report?.comparisons.map(\.verdict), [.shownOnly])
        XCTAssertEqual(outcome.status, .noRegression)
    }

    func testAllocatorAndParamsArePartOfThePairing() throws {
        let system = FixtureSeries(metric: "allocs_per_element", unit: "allocs", allocator: "system", values: [1])
        let jemalloc = FixtureSeries(metric: "allocs_per_element", unit: "allocs", allocator: "jemalloc", values: [5])
        let otherParams = FixtureSeries(
            params: "elements=1000", metric: "allocs_per_element", unit: "allocs", allocator: "system", values: [9])
        let outcome = try fixture.compare(base: [system, jemalloc, otherParams], new: [jemalloc, system, otherParams])
        let report = try XCTUnwrap(outcome.report)
        XCTAssertEqual(report.comparisons.map(\.verdict), [.same, .same, .same])
        XCTAssertEqual(outcome.status, .noRegression)
    }

    func testEmptyValuesAreSkippedNotErrors() throws {
        let base = [
            FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [nil, nil, nil]),
            FixtureSeries(metric: "bytes_per_element", unit: "bytes", values: [nil, 16, nil, 16]),
        ]
        let new = [
            FixtureSeries(metric: "allocs_per_element", unit: "allocs", values: [nil, nil, nil]),
            FixtureSeries(metric: "bytes_per_element", unit: "bytes", values: [16, nil]),
        ]
        let outcome = try fixture.compare(base: base, new: new)
        let report = try XCTUnwrap(outcome.report)
        XCTAssertEqual(report.comparisons.map(\.verdict), [.noValues, .same])
        XCTAssertEqual(report.comparisons[1].baseValues, [16, 16])
        XCTAssertEqual(outcome.status, .noRegression)
        XCTAssertTrue(outcome.output.contains("no values"))
    }

    func testColumnOrderExtraColumnsAndQuotedCommasDoNotMatter() throws {
        let columns = CompareFixture.standardColumns.reversed() + ["comment"]
        let base = FixtureSeries(params: "elements=100000,batch=\"8\"", metric: "allocs_per_element", values: [2, 2])
        let new = FixtureSeries(params: "elements=100000,batch=\"8\"", metric: "allocs_per_element", values: [3, 3])
        let basePath = try fixture.writeResults([base], to: "base.csv", columns: Array(columns))
        let newPath = try fixture.writeResults([new], to: "new.csv")
        let outcome = CompareTool.run(basePath: basePath, newPath: newPath, options: CompareOptions())
        let comparison = try XCTUnwrap(only(outcome))
        XCTAssertEqual(comparison.key.params, "elements=100000,batch=\"8\"")
        XCTAssertEqual(comparison.verdict, .worse)
    }

    func testRepetitionsFromSeveralRunsInOneFileArePooled() throws {
        let text = CompareFixture.csv([FixtureSeries(values: [1, 2])]) + CompareFixture.csv([FixtureSeries(values: [3])])
            .split(separator: "\n").dropFirst().joined(separator: "\n") + "\n"
        let file = try ResultFile.parse(text: text, path: "pooled.csv")
        XCTAssertEqual(file.series.count, 1)
        XCTAssertEqual(file.series.first?.values, [1, 2, 3])
    }
}
