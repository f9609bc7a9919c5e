@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import XCTest

/// Each step of gathering a series' evidence on its own, with inputs chosen
/// so the expected outcome follows from the rule by hand (the verdict
/// table's rows: BenchAnalysisTests' `VerdictTableTests`).
final class EvidenceStepsTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    // Computed, not stored: XCTest makes the test case objects before
    // `setUp()` installs the catalogue the rules are read from.
    private var timing: MetricComparisonRule { rule("ns_per_element", "observeOn.throughput", "generic") }
    private var rate: MetricComparisonRule { rule("elements_per_s", "observeOn.throughput", "generic") }
    private var wakeUp: MetricComparisonRule { rule("latency_p50_ns", "observeOn.latency", "generic") }
    private var count: MetricComparisonRule { rule("allocs_per_element", "observeOn.throughput", "generic") }
    private var depth: MetricComparisonRule { rule("depth", "trampoline.recursion", "current-thread") }
    private var machineFact: MetricComparisonRule { rule("plain_recursion_limit", "trampoline.recursion", "current-thread") }

    private func rule(_ metric: String, _ benchmark: String, _ variant: String) -> MetricComparisonRule {
        MetricComparisonRule(metric: metric, benchmark: benchmark, variant: variant)
    }

    func testRelativeChangeIsAgainstTheBaseMagnitude() throws {
        XCTAssertEqual(try XCTUnwrap(EvidenceSteps.relativeChange(base: 100, new: 110)), 0.1, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(EvidenceSteps.relativeChange(base: -50, new: -25)), 0.5, accuracy: 1e-12)
        XCTAssertEqual(EvidenceSteps.relativeChange(base: 0, new: 0), 0)
        XCTAssertNil(EvidenceSteps.relativeChange(base: 0, new: 1))
    }

    func testWakeUpBoundTimesGetTheLargerThreshold() {
        let options = CompareOptions(threshold: 0.05, wakeUpThreshold: 0.4)
        XCTAssertEqual(EvidenceSteps.threshold(rule: timing, options: options), 0.05)
        XCTAssertEqual(EvidenceSteps.threshold(rule: wakeUp, options: options), 0.4)
        // The larger of the two, never a loosening below the general threshold.
        XCTAssertEqual(EvidenceSteps.threshold(rule: wakeUp, options: CompareOptions(threshold: 0.5, wakeUpThreshold: 0.4)), 0.5)
    }

    func testOnlyTestedMetricsAreCorrectedForTheMachinesDrift() {
        let wholeRunTiming = MetricComparisonRule(metric: "ns_per_element", benchmark: "elementPath", variant: "current-thread")
        XCTAssertEqual(EvidenceSteps.drift(rule: wholeRunTiming, machineDrift: 1.1), 1.1)
        // Read at its usual level, a hop leaves the machine's levels out: no
        // correction from the peers' medians.
        XCTAssertTrue(timing.readsUsualLevel)
        XCTAssertNil(EvidenceSteps.drift(rule: timing, machineDrift: 1.1))
        XCTAssertNil(EvidenceSteps.drift(rule: timing, machineDrift: nil))
        XCTAssertNil(EvidenceSteps.drift(rule: count, machineDrift: 1.1))
        XCTAssertNil(EvidenceSteps.drift(rule: machineFact, machineDrift: 1.1))
    }

    func testExactToleranceIsTheUsersOrTheCSVRounding() {
        XCTAssertEqual(
            EvidenceSteps.exactTolerance(metric: "allocs_per_element", baseMedian: 1000, newMedian: 2000, options: CompareOptions()),
            2e-6, accuracy: 1e-15)
        let tolerant = CompareOptions(exactTolerances: [ExactTolerance(scope: .metric("allocs_per_element"), amount: 0.5)])
        XCTAssertEqual(
            EvidenceSteps.exactTolerance(metric: "allocs_per_element", baseMedian: 3, newMedian: 3, options: tolerant), 0.5)
        XCTAssertEqual(
            EvidenceSteps.exactTolerance(metric: "depth", baseMedian: 1, newMedian: 1, options: tolerant), 1e-9,
            accuracy: 1e-18)
    }

    func testExactCountsAreWorseOrBetterByDirectionBeyondTheTolerance() {
        func verdict(_ base: Double, _ new: Double, tolerance: Double, _ rule: MetricComparisonRule) -> CompareVerdict {
            var evidence = SeriesEvidence(presence: .both, reading: .exactCount)
            evidence.countChange = EvidenceSteps.countChange(baseMedian: base, newMedian: new, tolerance: tolerance, rule: rule)
            return VerdictTable.verdict(for: evidence)
        }
        XCTAssertEqual(verdict(3, 3.2, tolerance: 0.5, count), .same)
        XCTAssertEqual(verdict(3, 4, tolerance: 0, count), .worse)
        XCTAssertEqual(verdict(3, 2.999, tolerance: 0, count), .better)
        XCTAssertEqual(verdict(10, 9, tolerance: 0, depth), .worse)
        XCTAssertEqual(verdict(10, 11, tolerance: 0, depth), .better)
    }

    func testRepetitionsSufficeOnlyWhenSeparatedSamplesCouldReachAlpha() throws {
        let three = EvidenceSteps.repetitionsSuffice(m: 3, n: 3, alpha: 0.05)
        XCTAssertEqual(three.minimumP, 1.0 / 20, accuracy: 1e-12)
        XCTAssertTrue(three.suffice)
        let two = EvidenceSteps.repetitionsSuffice(m: 2, n: 3, alpha: 0.05)
        XCTAssertEqual(two.minimumP, 1.0 / 10, accuracy: 1e-12)
        XCTAssertFalse(two.suffice)
    }

    func testDriftCorrectionDividesTheNewValuesOrDoesNotApply() {
        XCTAssertNil(EvidenceSteps.corrected([10, 20], drift: nil))
        XCTAssertNil(EvidenceSteps.corrected([10, 20], drift: 1))
        XCTAssertEqual(EvidenceSteps.corrected([10, 20], drift: 2), [5, 10])
    }

    func testThresholdTestsAskWhetherTheChangeExceedsTheShiftInTheMetricsDirection() {
        let base: [Double] = [100, 101, 102]
        let slower: [Double] = [120, 121, 122]
        // A cost that rose by ~20 against a shift of 5: worse at the smallest p 3 against 3 allow.
        let cost = EvidenceSteps.thresholdTests(base: base, new: slower, corrected: nil, shift: 5, preference: .lowerIsBetter)
        XCTAssertEqual(cost.worse.pValue, 1.0 / 20, accuracy: 1e-12)
        XCTAssertEqual(cost.better.pValue, 1, accuracy: 1e-12)
        // The same numbers as a rate: higher is better, so they are the better test's.
        let gain = EvidenceSteps.thresholdTests(base: base, new: slower, corrected: nil, shift: 5, preference: .higherIsBetter)
        XCTAssertEqual(gain.better.pValue, 1.0 / 20, accuracy: 1e-12)
        XCTAssertEqual(gain.worse.pValue, 1, accuracy: 1e-12)
        // A rise of 20 does not exceed a shift of 30.
        let small = EvidenceSteps.thresholdTests(base: base, new: slower, corrected: nil, shift: 30, preference: .lowerIsBetter)
        XCTAssertGreaterThan(small.worse.pValue, 0.05)
        // The machine slowed by 20 % too: corrected, nothing changed, and the
        // correction may excuse the rise (the larger p-value of the two is kept).
        let excused = EvidenceSteps.thresholdTests(
            base: base, new: slower, corrected: slower.map { $0 / 1.2 }, shift: 5, preference: .lowerIsBetter)
        XCTAssertGreaterThan(excused.worse.pValue, 0.05)
        // A drift the other way cannot make the unchanged series worse.
        let unchanged: [Double] = [100, 101, 102]
        let notAccused = EvidenceSteps.thresholdTests(
            base: base, new: unchanged, corrected: unchanged.map { $0 / 0.8 }, shift: 5, preference: .lowerIsBetter)
        XCTAssertGreaterThan(notAccused.worse.pValue, 0.05)
    }

    func testEquivalenceNeedsTheIntervalInsideTheThreshold() throws {
        let base: [Double] = [100, 101, 102, 100, 101, 102, 101]
        let close = EvidenceSteps.equivalence(
            base: base, new: [100.5, 101, 101.5, 100.5, 101, 101.5, 101], scale: 101, threshold: 0.05, alpha: 0.05)
        let interval = try XCTUnwrap(close.interval)
        XCTAssertTrue(close.isWithinThreshold)
        XCTAssertGreaterThanOrEqual(interval.lowerBound, -0.05)
        XCTAssertLessThanOrEqual(interval.upperBound, 0.05)
        let far = EvidenceSteps.equivalence(base: base, new: base.map { $0 + 20 }, scale: 101, threshold: 0.05, alpha: 0.05)
        XCTAssertFalse(far.isWithinThreshold)
        XCTAssertGreaterThan(try XCTUnwrap(far.interval).lowerBound, 0.05)
        // No scale: no interval, sameness only when every value is equal.
        XCTAssertNil(EvidenceSteps.equivalence(base: [0, 0], new: [0, 0], scale: 0, threshold: 0.05, alpha: 0.05).interval)
        XCTAssertTrue(EvidenceSteps.equivalence(base: [0, 0], new: [0, 0], scale: 0, threshold: 0.05, alpha: 0.05).isWithinThreshold)
        XCTAssertFalse(EvidenceSteps.equivalence(base: [0, 0], new: [0, 1], scale: 0, threshold: 0.05, alpha: 0.05).isWithinThreshold)
    }

    /// The exponent rows compare reads a sweep's growth from are the ones a sweep writes.
    func testTheGrowthExponentMetricsAreTheOnesASweepWrites() {
        XCTAssertEqual(CSVSchema.growthExponentMetrics, Metric.growthExponentNames)
    }

    func testBothAgreeKeepsTheLargerPValue() throws {
        let strong = MannWhitneyUTest([1, 2, 3], [4, 5, 6], alternative: .secondGreater)
        let weak = MannWhitneyUTest([1, 3, 5], [2, 4, 6], alternative: .secondGreater)
        XCTAssertLessThan(strong.pValue, weak.pValue)
        XCTAssertEqual(try XCTUnwrap(EvidenceSteps.bothAgree(strong, weak)).pValue, weak.pValue)
        XCTAssertEqual(try XCTUnwrap(EvidenceSteps.bothAgree(weak, strong)).pValue, weak.pValue)
        XCTAssertEqual(try XCTUnwrap(EvidenceSteps.bothAgree(nil, strong)).pValue, strong.pValue)
        XCTAssertEqual(try XCTUnwrap(EvidenceSteps.bothAgree(strong, nil)).pValue, strong.pValue)
        XCTAssertNil(EvidenceSteps.bothAgree(nil, nil))
    }
}
