@testable import BenchAnalysis
@testable import BenchKit
import ToolSupport
import XCTest

/// The statistics behind `BenchRunner compare`, against values from R / SciPy.
final class CompareStatisticsTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    func testExactUTestMatchesReferenceForInterleavedSamples() {
        // R: wilcox.test(c(1,3,5,7), c(2,4,6,8)) gives W = 6, p = 0.6857.
        let test = MannWhitneyUTest([1, 3, 5, 7], [2, 4, 6, 8])
        XCTAssertEqual(test.u, 6)
        XCTAssertEqual(test.method, .exact)
        XCTAssertEqual(test.pValue, 48.0 / 70.0, accuracy: 1e-12)
    }

    func testExactUTestOfSeparatedSamplesReachesTheMinimumPValue() {
        let test = MannWhitneyUTest([1, 2, 3, 4], [5, 6, 7, 8])
        XCTAssertEqual(test.u, 0)
        XCTAssertEqual(test.pValue, 2.0 / 70.0, accuracy: 1e-12)
        XCTAssertEqual(MannWhitneyUTest([5, 6, 7, 8], [1, 2, 3, 4]).pValue, 2.0 / 70.0, accuracy: 1e-12)
    }

    func testTiedSamplesUseNormalApproximationWithTieCorrection() {
        // SciPy: mannwhitneyu([1,2,2,3,5], [2,3,3,4,5,6], method='asymptotic') gives U = 7.5, p = 0.19190.
        let test = MannWhitneyUTest([1, 2, 2, 3, 5], [2, 3, 3, 4, 5, 6])
        XCTAssertEqual(test.u, 7.5)
        XCTAssertEqual(test.method, .normalApproximation)
        XCTAssertEqual(test.pValue, 0.19189590332395567, accuracy: 1e-9)
    }

    func testLargeSamplesUseNormalApproximation() {
        // SciPy: x = 1...60, y = x + 15.5 gives U = 990, p = 2.1494e-05.
        let first = (1...60).map(Double.init)
        let test = MannWhitneyUTest(first, first.map { $0 + 15.5 })
        XCTAssertEqual(test.u, 990)
        XCTAssertEqual(test.method, .normalApproximation)
        XCTAssertEqual(test.pValue, 2.149444765493723e-05, accuracy: 1e-9)
    }

    func testAllValuesEqualGivePValueOne() {
        XCTAssertEqual(MannWhitneyUTest([3, 3, 3, 3], [3, 3, 3, 3]).pValue, 1)
    }

    func testExactNullDistributionSumsToOneAndIsSymmetric() {
        let distribution = RankSumNullDistribution(m: 7, n: 5)
        XCTAssertEqual(distribution.probabilities.count, 36)
        XCTAssertEqual(distribution.probabilities.reduce(0, +), 1, accuracy: 1e-12)
        for u in 0...35 {
            XCTAssertEqual(distribution.probabilities[u], distribution.probabilities[35 - u], accuracy: 1e-15)
        }
        XCTAssertEqual(distribution.probabilities[0], 1.0 / 792.0, accuracy: 1e-15)  // 1 / C(12, 5)
    }

    func testMinimumAchievablePValueDecidesTooFewRepetitions() {
        XCTAssertEqual(MannWhitneyUTest.minimumAchievablePValue(m: 3, n: 3), 0.1, accuracy: 1e-12)
        XCTAssertEqual(MannWhitneyUTest.minimumAchievablePValue(m: 3, n: 4), 2.0 / 35.0, accuracy: 1e-12)
        XCTAssertEqual(MannWhitneyUTest.minimumAchievablePValue(m: 4, n: 4), 2.0 / 70.0, accuracy: 1e-12)
        XCTAssertEqual(MannWhitneyUTest.minimumAchievablePValue(m: 3, n: 5), 2.0 / 56.0, accuracy: 1e-12)
        XCTAssertEqual(MannWhitneyUTest.minimumAchievablePValue(m: 1, n: 1), 1)
        XCTAssertEqual(MannWhitneyUTest.minimumAchievablePValue(m: 0, n: 9), 1)
    }

    func testHodgesLehmannIntervalOfSmallSamples() throws {
        // 4 against 4 at 95 %: k = 1, so the interval spans all 16 differences (1 ... 7).
        let interval = try XCTUnwrap(HodgesLehmannInterval([1, 2, 3, 4], [5, 6, 7, 8], confidence: 0.95))
        XCTAssertEqual(interval.lower, 1)
        XCTAssertEqual(interval.upper, 7)
        XCTAssertEqual(interval.estimate, 4)
    }

    func testHodgesLehmannIntervalNeedsEnoughValues() {
        XCTAssertNil(HodgesLehmannInterval([1, 2, 3], [4, 5, 6], confidence: 0.95))
    }

    func testHodgesLehmannIntervalExcludesZeroExactlyWhenTheTestRejects() throws {
        var generator = SeededGenerator(seed: 11)
        for shift in stride(from: 0.0, through: 0.5, by: 0.05) {
            let first = (0..<9).map { _ in 1 + Double.random(in: -0.3...0.3, using: &generator) }
            let second = (0..<8).map { _ in 1 + shift + Double.random(in: -0.3...0.3, using: &generator) }
            let interval = try XCTUnwrap(HodgesLehmannInterval(first, second, confidence: 0.95))
            let rejects = MannWhitneyUTest(first, second).pValue < 0.05
            XCTAssertEqual(interval.lower > 0 || interval.upper < 0, rejects, "shift \(shift)")
        }
    }

    func testHodgesLehmannIntervalOfLargeSamplesCoversTheShift() throws {
        let first = (1...80).map(Double.init)
        let interval = try XCTUnwrap(HodgesLehmannInterval(first, first.map { $0 + 10 }, confidence: 0.95))
        XCTAssertEqual(interval.estimate, 10)
        XCTAssertLessThan(interval.lower, 10)
        XCTAssertGreaterThan(interval.upper, 10)
        XCTAssertGreaterThan(interval.lower, -5)
    }

    func testStandardNormalQuantile() {
        XCTAssertEqual(HodgesLehmannInterval.standardNormalQuantile(0.975), 1.959964, accuracy: 1e-6)
        XCTAssertEqual(HodgesLehmannInterval.standardNormalQuantile(0.5), 0, accuracy: 1e-9)
    }

    func testMetricDirectionRule() {
        let higher = ["elements_per_s", "depth"]
        let lower = [
            "ns_per_element", "latency_p50_ns",
            "ns_per_schedule", "stack_growth_bytes", "lateness_p50_us",
            "final_drift_us", "skipped_ticks", "allocs_per_element", "bytes_per_element",
            "allocs_per_schedule", "bytes_per_schedule",
        ]
        for metric in higher {
            XCTAssertEqual(MetricComparisonRule(metric: metric).preference, .higherIsBetter, metric)
        }
        for metric in lower {
            XCTAssertEqual(MetricComparisonRule(metric: metric).preference, .lowerIsBetter, metric)
        }
        // Single-run tails swing 2-5x between runs of one revision: shown, not judged.
        for metric in [
            "plain_recursion_limit", "lateness_at_tick_us", "latency_p99_ns", "latency_p999_ns", "latency_max_ns",
            "lateness_max_us", "lateness_p99_us",
        ] {
            XCTAssertEqual(MetricComparisonRule(metric: metric).preference, .informational, metric)
        }
    }

    func testAllocationCountsAndDepthAreExactButMeasurementsAreNot() {
        for metric in ["allocs_per_element", "bytes_per_element", "allocs_per_schedule", "depth"] {
            XCTAssertTrue(MetricComparisonRule(metric: metric).isExact, metric)
        }
        for metric in ["stack_growth_bytes", "elements_per_s", "skipped_ticks", "ns_per_element"] {
            XCTAssertFalse(MetricComparisonRule(metric: metric).isExact, metric)
        }
    }

    func testEveryMetricBenchRunnerWritesIsJudgedAsItsSchemaDeclares() {
        for benchmark in CSVSchema.benchmarks {
            for spec in benchmark.metrics {
                let rule = MetricComparisonRule(metric: spec.name, benchmark: benchmark.name)
                XCTAssertEqual(rule.isExact, spec.isExactCount, spec.name)
                if spec.isSingleRunTail {
                    XCTAssertEqual(rule.preference, .informational, spec.name)
                    continue
                }
                switch spec.direction {
                case .higherIsBetter: XCTAssertEqual(rule.preference, .higherIsBetter, spec.name)
                case .lowerIsBetter: XCTAssertEqual(rule.preference, .lowerIsBetter, spec.name)
                case .informational: XCTAssertEqual(rule.preference, .informational, spec.name)
                }
            }
        }
    }

    func testAMetricTheSchemaDoesNotDeclareIsShownNotJudgedWhateverItsName() {
        // No rule from the name: a rate-like, a count-like or a time-like
        // name of an undeclared metric gets no verdict rather than a guess.
        for metric in ["ticks_per_s", "allocs_per_tick", "p99_ns", "unknown_metric", "instructions_per_tick"] {
            let rule = MetricComparisonRule(metric: metric)
            XCTAssertNil(rule.kind, metric)
            XCTAssertEqual(rule.preference, .informational, metric)
            XCTAssertFalse(rule.isExact, metric)
        }
    }

    func testTheRuleFollowsTheKindAndPolarityOfTheDeclaration() {
        for benchmark in CSVSchema.benchmarks {
            for spec in benchmark.metrics {
                let rule = MetricComparisonRule(metric: spec.name, benchmark: benchmark.name)
                XCTAssertEqual(rule.kind, spec.kind, spec.name)
                XCTAssertEqual(rule.isExact, [.allocations, .allocatedBytes, .exactCount, .instructions].contains(spec.kind))
            }
        }
    }

    func testMedian() {
        XCTAssertNil(Statistics.median([]))
        XCTAssertEqual(Statistics.median([3, 1, 2]), 2)
        XCTAssertEqual(Statistics.median([4, 1, 3, 2]), 2.5)
    }
}
