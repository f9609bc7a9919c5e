import Foundation
import XCTest

@testable import Schedulers
import SchedulersTesting

final class TestSchedulerTests: XCTestCase {
    func testInitialClockAndNowFollowTheResolution() {
        let scheduler = TestScheduler(initialClock: 10, resolution: 0.5)
        XCTAssertEqual(scheduler.clock, 10)
        XCTAssertEqual(scheduler.now, Date(timeIntervalSince1970: 5))
    }

    func testScheduleAtRunsAtExactlyThatTime() {
        let scheduler = TestScheduler(initialClock: 0)
        var log: [String] = []
        scheduler.scheduleAt(300) { log.append("c@\(scheduler.clock)") }
        scheduler.scheduleAt(100) { log.append("a@\(scheduler.clock)") }
        scheduler.scheduleAt(200) { log.append("b@\(scheduler.clock)") }
        scheduler.scheduleAt(200) { log.append("b2@\(scheduler.clock)") }
        scheduler.start()
        XCTAssertEqual(log, ["a@100", "b@200", "b2@200", "c@300"])
    }

    func testSimulatedProcessingDelayRunsWorkDueNowOneTickLater() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        scheduler.scheduleAt(10) {
            _ = scheduler.schedule(()) { _ in
                times.append(scheduler.clock)
                return Disposables.create()
            }
            _ = scheduler.scheduleRelative((), dueTime: .seconds(0)) { _ in
                times.append(scheduler.clock)
                return Disposables.create()
            }
            _ = scheduler.scheduleRelative((), dueTime: .seconds(3)) { _ in
                times.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(times, [11, 11, 13])
    }

    func testWithoutProcessingDelayWorkDueNowRunsAtTheCurrentTick() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        var times: [Int] = []
        scheduler.scheduleAt(10) {
            _ = scheduler.schedule(()) { _ in
                times.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(times, [10])
    }

    func testNegativeDueTimeWithProcessingDelayRunsOneTickAfterCurrentClock() {
        let scheduler = TestScheduler(initialClock: 20)
        var ranAt: TestTime?
        _ = scheduler.scheduleRelative((), dueTime: .seconds(-3)) { _ in
            ranAt = scheduler.clock
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(ranAt, 21)
    }

    func testRelativeDueTimesAreRoundedToTheNearestTick() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
        var times: [Int] = []
        for dueTime: RxTimeInterval in [.milliseconds(5), .microseconds(7_400), .microseconds(9_500), .seconds(1)] {
            _ = scheduler.scheduleRelative((), dueTime: dueTime) { _ in
                times.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(times, [5, 7, 10, 1_000])
    }

    func testConverterRoundTripsTicks() {
        let converter = TestSchedulerVirtualTimeConverter(resolution: 0.01)
        for ticks in [-5, 0, 1, 7, 123_456] {
            XCTAssertEqual(converter.convertToVirtualTime(converter.convertFromVirtualTime(ticks)), ticks)
            XCTAssertEqual(
                converter.convertToVirtualTimeInterval(converter.convertFromVirtualTimeInterval(ticks)),
                ticks
            )
        }
        XCTAssertEqual(converter.offsetVirtualTime(10, offset: 5), 15)
        XCTAssertEqual(converter.compareVirtualTime(1, 2), .lessThan)
        XCTAssertEqual(converter.compareVirtualTime(2, 2), .equal)
        XCTAssertEqual(converter.compareVirtualTime(3, 2), .greaterThan)
    }

    func testSleepInsideAnActionDelaysTheActionsDueMeanwhile() {
        let scheduler = TestScheduler(initialClock: 0)
        var log: [String] = []
        scheduler.scheduleAt(10) {
            scheduler.sleep(20)
            log.append("slow@\(scheduler.clock)")
        }
        scheduler.scheduleAt(15) { log.append("waited@\(scheduler.clock)") }
        scheduler.scheduleAt(40) { log.append("onTime@\(scheduler.clock)") }
        scheduler.start()
        XCTAssertEqual(log, ["slow@30", "waited@30", "onTime@40"])
    }

    func testAdvanceToAndStopOnTestScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        var log: [TestTime] = []
        for time in [100, 200, 300, 400] {
            scheduler.scheduleAt(time) {
                log.append(scheduler.clock)
                if time == 300 { scheduler.stop() }
            }
        }
        scheduler.advanceTo(250)
        XCTAssertEqual(log, [100, 200])
        XCTAssertEqual(scheduler.clock, 250)
        scheduler.start()
        XCTAssertEqual(log, [100, 200, 300])
        scheduler.start()
        XCTAssertEqual(log, [100, 200, 300, 400])
    }

    func testMonotonicNanosecondsCountsTicksTimesResolution() {
        let scheduler = TestScheduler(initialClock: 1_000, resolution: 0.001)
        XCTAssertEqual(scheduler.monotonicNanoseconds, 0)
        scheduler.advanceTo(1_003)
        XCTAssertEqual(scheduler.monotonicNanoseconds, 3_000_000)
        scheduler.advanceTo(1_000 + 86_400_000)
        XCTAssertEqual(scheduler.monotonicNanoseconds, 86_400_000_000_000)
    }

    func testPeriodicJobRunsDeterministically() {
        func run() -> [TestTime] {
            let scheduler = TestScheduler(initialClock: 0)
            var times: [TestTime] = []
            // `.skip` explicitly: it keeps every run on the grid (the default
            // catches late ticks up, off the grid).
            let job = scheduler.schedulePeriodicEmulated(
                0, startAfter: .seconds(3), period: .seconds(4), missedTicks: .skip
            ) { run in
                times.append(scheduler.clock)
                scheduler.sleep(run % 6)
                return run + 1
            }
            scheduler.advanceTo(400)
            job.dispose()
            return times
        }
        let first = run()
        XCTAssertEqual(first, run())
        XCTAssertFalse(first.isEmpty)
        XCTAssertTrue(first.allSatisfy { ($0 - 3) % 4 == 0 }, "every tick runs on the grid")
    }

    func testDefaultsAreRxTestsConventionalTimes() {
        XCTAssertEqual(TestScheduler.Defaults.created, 100)
        XCTAssertEqual(TestScheduler.Defaults.subscribed, 200)
        XCTAssertEqual(TestScheduler.Defaults.disposed, 1000)
    }

    func testTestSchedulerIsASerialScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        var order: [Int] = []
        for index in 0..<5 {
            _ = scheduler.scheduleInOrder(index) { value in
                order.append(value)
                return Disposables.create()
            }
        }
        XCTAssertTrue(order.isEmpty)
        scheduler.start()
        XCTAssertEqual(order, [0, 1, 2, 3, 4])
        XCTAssertTrue((scheduler as Any) is any SerialScheduler)
    }
}
