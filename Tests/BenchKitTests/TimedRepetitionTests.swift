@testable import BenchKit
import XCTest

/// Time-based repetitions: a short measurement runs again until the
/// repetition's minimum time is spent, and the repetition reports medians.
final class TimedRepetitionTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// A clock that moves `step` nanoseconds at every measurement.
    private final class FakeClock {
        var now: UInt64 = 0
    }

    func testAShortMeasurementRunsUntilTheMinimumTimeAndReportsTheMedianPerMetricAndTick() {
        let clock = FakeClock()
        var runs = 0
        let throughputs: [Double] = [20, 48, 37, 41, 39]
        let values = SuiteRunner.timedRepetition(minimumSeconds: 0.05, maximumRuns: 25, clock: { clock.now }) {
            clock.now += 10_000_000 // 10 ms a run
            defer { runs += 1 }
            return [
                MetricValue(.elementsPerSecond, throughputs[runs]),
                MetricValue(.latenessAtTick, Double(runs), extraParams: "tick=1"),
                MetricValue(.perElement.allocations, nil),
            ]
        }
        XCTAssertEqual(runs, 5, "five 10 ms runs fill 50 ms")
        XCTAssertEqual(values.map(\.metric.name), ["elements_per_s", "lateness_at_tick_us", "allocs_per_element"])
        XCTAssertEqual(values[0].value, 39, "the median of 20, 48, 37, 41, 39")
        XCTAssertEqual(values[1].value, 2)
        XCTAssertEqual(values[1].extraParams, "tick=1")
        XCTAssertNil(values[2].value, "no run had a value")
    }

    func testALongMeasurementRunsOnceAndTheCapHoldsForAFastOne() {
        let clock = FakeClock()
        var runs = 0
        let once = SuiteRunner.timedRepetition(minimumSeconds: 0.05, maximumRuns: 25, clock: { clock.now }) {
            clock.now += 80_000_000
            runs += 1
            return [MetricValue(.elementsPerSecond, 7)]
        }
        XCTAssertEqual(runs, 1)
        XCTAssertEqual(once, [MetricValue(.elementsPerSecond, 7)])
        runs = 0
        _ = SuiteRunner.timedRepetition(minimumSeconds: 0.05, maximumRuns: 25, clock: { clock.now }) {
            runs += 1
            return [MetricValue(.elementsPerSecond, 7)]
        }
        XCTAssertEqual(runs, 25, "a measurement that takes no time stops at the cap")
        runs = 0
        _ = SuiteRunner.timedRepetition(minimumSeconds: 0, maximumRuns: 25, clock: { clock.now }) {
            runs += 1
            return [MetricValue(.elementsPerSecond, 7)]
        }
        XCTAssertEqual(runs, 1, "0 turns it off")
    }

    func testTheSuitesTakeFiftyMillisecondRepetitionsAndTheTestSuiteNone() {
        XCTAssertEqual(SuiteConfiguration.quick(recursionProbe: nil).minimumRepetitionSeconds, 0.05)
        XCTAssertEqual(SuiteConfiguration.standard(recursionProbe: nil).minimumRepetitionSeconds, 0.05)
        XCTAssertEqual(SuiteConfiguration.tiny(recursionProbe: nil).minimumRepetitionSeconds, 0)
    }
}
