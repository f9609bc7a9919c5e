@testable import BenchKit
import XCTest

/// Each step of `SeriesComparison`'s judgement on its own, with inputs
/// chosen so the expected outcome follows from the rule by hand.
final class SeriesVerdictsTests: XCTestCase {
    private let timing = MetricComparisonRule(metric: "ns_per_element", benchmark: "observeOn.throughput", variant: "generic")
    private let rate = MetricComparisonRule(metric: "elements_per_s", benchmark: "observeOn.throughput", variant: "generic")
    private let wakeUp = MetricComparisonRule(metric: "latency_p50_ns", benchmark: "observeOn.latency", variant: "generic")
    private let count = MetricComparisonRule(
        metric: "allocs_per_element", benchmark: "observeOn.throughput", variant: "generic")
    private let depth = MetricComparisonRule(metric: "depth", benchmark: "trampoline.recursion", variant: "current-thread")
    private let machineFact = MetricComparisonRule(
        metric: "plain_recursion_limit", benchmark: "trampoline.recursion", variant: "current-thread")

    func testASeriesInOneFileOnlyIsAddedOrRemovedUnlessItIsInformational() {
        XCTAssertEqual(SeriesVerdicts.oneSided(inBase: true, rule: timing), .removed)
        XCTAssertEqual(SeriesVerdicts.oneSided(inBase: false, rule: timing), .added)
        XCTAssertEqual(SeriesVerdicts.oneSided(inBase: true, rule: machineFact), .informational)
        XCTAssertEqual(SeriesVerdicts.oneSided(inBase: false, rule: machineFact), .informational)
    }

    func testRelativeChangeIsAgainstTheBaseMagnitude() throws {
        XCTAssertEqual(try XCTUnwrap(SeriesVerdicts.relativeChange(base: 100, new: 110)), 0.1, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(SeriesVerdicts.relativeChange(base: -50, new: -25)), 0.5, accuracy: 1e-12)
        XCTAssertEqual(SeriesVerdicts.relativeChange(base: 0, new: 0), 0)
        XCTAssertNil(SeriesVerdicts.relativeChange(base: 0, new: 1))
    }

    func testWakeUpBoundTimesGetTheLargerThreshold() {
        let options = CompareOptions(threshold: 0.05, wakeUpThreshold: 0.4)
        XCTAssertEqual(SeriesVerdicts.threshold(rule: timing, options: options), 0.05)
        XCTAssertEqual(SeriesVerdicts.threshold(rule: wakeUp, options: options), 0.4)
        // The larger of the two, never a loosening below the general threshold.
        XCTAssertEqual(SeriesVerdicts.threshold(rule: wakeUp, options: CompareOptions(threshold: 0.5, wakeUpThreshold: 0.4)), 0.5)
    }

    func testOnlyTestedMetricsAreCorrectedForTheMachinesDrift() {
        let wholeRunTiming = MetricComparisonRule(metric: "ns_per_element", benchmark: "elementPath", variant: "current-thread")
        XCTAssertEqual(SeriesVerdicts.drift(rule: wholeRunTiming, machineDrift: 1.1), 1.1)
        // Read at its usual level, a hop leaves the machine's levels out: no
        // correction from the peers' medians.
        XCTAssertTrue(timing.readsUsualLevel)
        XCTAssertNil(SeriesVerdicts.drift(rule: timing, machineDrift: 1.1))
        XCTAssertNil(SeriesVerdicts.drift(rule: timing, machineDrift: nil))
        XCTAssertNil(SeriesVerdicts.drift(rule: count, machineDrift: 1.1))
        XCTAssertNil(SeriesVerdicts.drift(rule: machineFact, machineDrift: 1.1))
    }

    func testExactToleranceIsTheUsersOrTheCSVRounding() {
        XCTAssertEqual(
            SeriesVerdicts.exactTolerance(metric: "allocs_per_element", baseMedian: 1000, newMedian: 2000, options: CompareOptions()),
            2e-6, accuracy: 1e-15)
        let tolerant = CompareOptions(exactTolerances: [ExactTolerance(scope: .metric("allocs_per_element"), amount: 0.5)])
        XCTAssertEqual(
            SeriesVerdicts.exactTolerance(metric: "allocs_per_element", baseMedian: 3, newMedian: 3, options: tolerant), 0.5)
        XCTAssertEqual(
            SeriesVerdicts.exactTolerance(metric: "depth", baseMedian: 1, newMedian: 1, options: tolerant), 1e-9,
            accuracy: 1e-18)
    }

    func testExactCountsAreWorseOrBetterByDirectionBeyondTheTolerance() {
        XCTAssertEqual(SeriesVerdicts.exact(baseMedian: 3, newMedian: 3.2, tolerance: 0.5, rule: count), .same)
        XCTAssertEqual(SeriesVerdicts.exact(baseMedian: 3, newMedian: 4, tolerance: 0, rule: count), .worse)
        XCTAssertEqual(SeriesVerdicts.exact(baseMedian: 3, newMedian: 2.999, tolerance: 0, rule: count), .better)
        XCTAssertEqual(SeriesVerdicts.exact(baseMedian: 10, newMedian: 9, tolerance: 0, rule: depth), .worse)
        XCTAssertEqual(SeriesVerdicts.exact(baseMedian: 10, newMedian: 11, tolerance: 0, rule: depth), .better)
    }

    func testRepetitionsSufficeOnlyWhenSeparatedSamplesCouldReachAlpha() throws {
        let three = SeriesVerdicts.repetitionsSuffice(m: 3, n: 3, alpha: 0.05)
        XCTAssertEqual(three.minimumP, 1.0 / 20, accuracy: 1e-12)
        XCTAssertTrue(three.suffice)
        let two = SeriesVerdicts.repetitionsSuffice(m: 2, n: 3, alpha: 0.05)
        XCTAssertEqual(two.minimumP, 1.0 / 10, accuracy: 1e-12)
        XCTAssertFalse(two.suffice)
    }

    func testDriftCorrectionDividesTheNewValuesOrDoesNotApply() {
        XCTAssertNil(SeriesVerdicts.corrected([10, 20], drift: nil))
        XCTAssertNil(SeriesVerdicts.corrected([10, 20], drift: 1))
        XCTAssertEqual(SeriesVerdicts.corrected([10, 20], drift: 2), [5, 10])
    }

    func testThresholdTestsAskWhetherTheChangeExceedsTheShiftInTheMetricsDirection() {
        let base: [Double] = [100, 101, 102]
        let slower: [Double] = [120, 121, 122]
        // A cost that rose by ~20 against a shift of 5: worse at the smallest p 3 against 3 allow.
        let cost = SeriesVerdicts.thresholdTests(base: base, new: slower, corrected: nil, shift: 5, preference: .lowerIsBetter)
        XCTAssertEqual(cost.worse.pValue, 1.0 / 20, accuracy: 1e-12)
        XCTAssertEqual(cost.better.pValue, 1, accuracy: 1e-12)
        // The same numbers as a rate: higher is better, so they are the better test's.
        let gain = SeriesVerdicts.thresholdTests(base: base, new: slower, corrected: nil, shift: 5, preference: .higherIsBetter)
        XCTAssertEqual(gain.better.pValue, 1.0 / 20, accuracy: 1e-12)
        XCTAssertEqual(gain.worse.pValue, 1, accuracy: 1e-12)
        // A rise of 20 does not exceed a shift of 30.
        let small = SeriesVerdicts.thresholdTests(base: base, new: slower, corrected: nil, shift: 30, preference: .lowerIsBetter)
        XCTAssertGreaterThan(small.worse.pValue, 0.05)
        // The machine slowed by 20 % too: corrected, nothing changed, and the
        // correction may excuse the rise (the larger p-value of the two is kept).
        let excused = SeriesVerdicts.thresholdTests(
            base: base, new: slower, corrected: slower.map { $0 / 1.2 }, shift: 5, preference: .lowerIsBetter)
        XCTAssertGreaterThan(excused.worse.pValue, 0.05)
        // A drift the other way cannot make the unchanged series worse.
        let unchanged: [Double] = [100, 101, 102]
        let notAccused = SeriesVerdicts.thresholdTests(
            base: base, new: unchanged, corrected: unchanged.map { $0 / 0.8 }, shift: 5, preference: .lowerIsBetter)
        XCTAssertGreaterThan(notAccused.worse.pValue, 0.05)
    }

    func testEquivalenceNeedsTheIntervalInsideTheThreshold() throws {
        let base: [Double] = [100, 101, 102, 100, 101, 102, 101]
        let close = SeriesVerdicts.equivalence(
            base: base, new: [100.5, 101, 101.5, 100.5, 101, 101.5, 101], scale: 101, threshold: 0.05, alpha: 0.05)
        let interval = try XCTUnwrap(close.interval)
        XCTAssertTrue(close.isWithinThreshold)
        XCTAssertGreaterThanOrEqual(interval.lowerBound, -0.05)
        XCTAssertLessThanOrEqual(interval.upperBound, 0.05)
        let far = SeriesVerdicts.equivalence(base: base, new: base.map { $0 + 20 }, scale: 101, threshold: 0.05, alpha: 0.05)
        XCTAssertFalse(far.isWithinThreshold)
        XCTAssertGreaterThan(try XCTUnwrap(far.interval).lowerBound, 0.05)
        // No scale: no interval, sameness only when every value is equal.
        XCTAssertNil(SeriesVerdicts.equivalence(base: [0, 0], new: [0, 0], scale: 0, threshold: 0.05, alpha: 0.05).interval)
        XCTAssertTrue(SeriesVerdicts.equivalence(base: [0, 0], new: [0, 0], scale: 0, threshold: 0.05, alpha: 0.05).isWithinThreshold)
        XCTAssertFalse(SeriesVerdicts.equivalence(base: [0, 0], new: [0, 1], scale: 0, threshold: 0.05, alpha: 0.05).isWithinThreshold)
    }

    func testTestedVerdictInItsOrder() {
        let separated = MannWhitneyUTest([1, 2, 3], [4, 5, 6], alternative: .secondGreater)
        XCTAssertTrue(separated.isCompleteSeparation)
        let overlapping = MannWhitneyUTest([1, 3, 5], [2, 4, 6], alternative: .secondGreater)
        XCTAssertFalse(overlapping.isCompleteSeparation)
        func verdict(
            _ test: MannWhitneyUTest, betterTest: MannWhitneyUTest? = nil, worse: Double, better: Double, within: Bool
        ) -> CompareVerdict {
            SeriesVerdicts.tested(
                worseTest: test, betterTest: betterTest, adjustedWorseP: worse, adjustedBetterP: better,
                isWithinThreshold: within, alpha: 0.05)
        }
        XCTAssertEqual(verdict(separated, worse: 0.01, better: 0.01, within: true), .worse)
        XCTAssertEqual(verdict(overlapping, worse: 0.5, better: 0.01, within: true), .better)
        // Separated and significant alone, not after the correction: unconfirmed, not "same".
        XCTAssertEqual(verdict(separated, worse: 0.2, better: 1, within: true), .unconfirmedWorse)
        // The same evidence the good way: likely better, not "cannot tell".
        XCTAssertEqual(verdict(overlapping, betterTest: separated, worse: 1, better: 0.2, within: false), .unconfirmedBetter)
        XCTAssertEqual(verdict(overlapping, betterTest: overlapping, worse: 1, better: 0.2, within: false), .cannotTell)
        XCTAssertEqual(verdict(overlapping, worse: 0.2, better: 0.7, within: true), .same)
        XCTAssertEqual(verdict(overlapping, worse: 0.2, better: 0.7, within: false), .cannotTell)
    }

    /// When a resolution raised the threshold, the tests (asked about the
    /// declared threshold) decide only for a median that also moved beyond
    /// the resolution in the tested direction; a significant test alone is a
    /// move two runs of one binary make by chance.
    func testARaisedThresholdAlsoAsksTheMedianToMoveBeyondTheResolution() {
        let separated = MannWhitneyUTest([1, 2, 3], [4, 5, 6], alternative: .secondGreater)
        let gain = MannWhitneyUTest([4, 5, 6], [1, 2, 3], alternative: .secondLess)
        func verdict(worse: Double, better: Double, harmful: Bool, beneficial: Bool, raised: Bool) -> CompareVerdict {
            SeriesVerdicts.tested(
                worseTest: separated, betterTest: gain, adjustedWorseP: worse, adjustedBetterP: better,
                isWithinThreshold: false, movedHarmfully: harmful, movedBeneficially: beneficial,
                raisedByResolution: raised, alpha: 0.05)
        }
        // Confirmed by the test and beyond the resolution: worse.
        XCTAssertEqual(verdict(worse: 0.001, better: 1, harmful: true, beneficial: false, raised: true), .worse)
        // Confirmed by the test, median within the resolution: not a change.
        XCTAssertEqual(verdict(worse: 0.001, better: 1, harmful: false, beneficial: false, raised: true), .cannotTell)
        // Unconfirmed but separated: worse? only beyond the resolution.
        XCTAssertEqual(verdict(worse: 0.2, better: 1, harmful: true, beneficial: false, raised: true), .unconfirmedWorse)
        XCTAssertEqual(verdict(worse: 0.2, better: 1, harmful: false, beneficial: false, raised: true), .cannotTell)
        // The good direction asks the same of its median.
        XCTAssertEqual(verdict(worse: 1, better: 0.001, harmful: false, beneficial: true, raised: true), .better)
        XCTAssertEqual(verdict(worse: 1, better: 0.001, harmful: false, beneficial: false, raised: true), .cannotTell)
        XCTAssertEqual(verdict(worse: 1, better: 0.2, harmful: false, beneficial: false, raised: true), .cannotTell)
        // Without a raise the tests decide alone, as before.
        XCTAssertEqual(verdict(worse: 0.001, better: 1, harmful: false, beneficial: false, raised: false), .worse)
        XCTAssertEqual(verdict(worse: 1, better: 0.001, harmful: false, beneficial: false, raised: false), .better)
    }

    func testBothAgreeKeepsTheLargerPValue() throws {
        let strong = MannWhitneyUTest([1, 2, 3], [4, 5, 6], alternative: .secondGreater)
        let weak = MannWhitneyUTest([1, 3, 5], [2, 4, 6], alternative: .secondGreater)
        XCTAssertLessThan(strong.pValue, weak.pValue)
        XCTAssertEqual(try XCTUnwrap(SeriesVerdicts.bothAgree(strong, weak)).pValue, weak.pValue)
        XCTAssertEqual(try XCTUnwrap(SeriesVerdicts.bothAgree(weak, strong)).pValue, weak.pValue)
        XCTAssertEqual(try XCTUnwrap(SeriesVerdicts.bothAgree(nil, strong)).pValue, strong.pValue)
        XCTAssertEqual(try XCTUnwrap(SeriesVerdicts.bothAgree(strong, nil)).pValue, strong.pValue)
        XCTAssertNil(SeriesVerdicts.bothAgree(nil, nil))
    }
}
