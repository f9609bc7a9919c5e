import Dispatch
import Foundation
import Schedulers
import SchedulersTesting
import XCTest

/// Guarantee 9: bad input gets a clear answer, never a hang or a silent wrong
/// one. Negative due times and `.never` are documented behaviour (run at once;
/// never run); a zero period is accepted as RxSwift accepts it (ticks as often
/// as the scheduler allows); a negative or `.never` period is a programming
/// error that stops the program with a message naming `period`
/// (`BadInputStopTests`).
final class BadInputTests: XCTestCase {
    // MARK: - Due times: documented behaviour

    func testMinimumNegativeDueTimeDoesNotOverflow() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        var ran = false
        _ = scheduler.scheduleRelative((), dueTime: .seconds(Int.min)) { _ in
            ran = true
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertTrue(ran)
        XCTAssertEqual(scheduler.clock, 0)
    }

    func testNeverDueTimeNeverRunsAndDoesNotHangVirtualTime() {
        let scheduler = TestScheduler(initialClock: 0)
        var ran = false
        _ = scheduler.scheduleRelative((), dueTime: .never) { _ in
            ran = true
            return Disposables.create()
        }
        scheduler.start()  // returns: nothing is due, ever
        XCTAssertFalse(ran)
        XCTAssertEqual(scheduler.clock, 0, "`.never` does not drag the clock to the end of time")
    }

    func testNeverDueTimeNeverRunsOnADispatchScheduler() {
        let scheduler = SerialDispatchQueueScheduler(qos: .default)
        let neverRan = ConcurrentCounter()
        _ = scheduler.scheduleRelative((), dueTime: .never) { _ in
            neverRan.increment()
            return Disposables.create()
        }
        let later = expectation(description: "work due later than any finite due time so far")
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(20)) { _ in
            later.fulfill()
            return Disposables.create()
        }
        wait(for: [later], timeout: 10)
        XCTAssertEqual(neverRan.count, 0)
    }

    func testNeverStartAfterMeansNoTickEver() {
        let scheduler = TestScheduler(initialClock: 0)
        var ticks = 0
        let periodic = scheduler.schedulePeriodic(0, startAfter: .never, period: .seconds(1)) { state in
            ticks += 1
            return state
        }
        scheduler.advanceTo(1_000)
        XCTAssertEqual(ticks, 0)
        periodic.dispose()
    }

    func testHugeDueTimeSaturatesInsteadOfWrappingIntoThePast() {
        let scheduler = TestScheduler(initialClock: 0)
        var ran = false
        _ = scheduler.scheduleRelative((), dueTime: .seconds(Int.max)) { _ in
            ran = true
            return Disposables.create()
        }
        scheduler.advanceTo(1_000_000)
        XCTAssertFalse(ran, "an overflowing due time must not wrap around to a time that is due")
    }

    func testHugePeriodSaturatesInsteadOfWrappingIntoATightLoop() {
        let scheduler = TestScheduler(initialClock: 0)
        var ticks = 0
        let periodic = scheduler.schedulePeriodic(0, startAfter: .seconds(5), period: .seconds(Int.max)) { state in
            ticks += 1
            return state
        }
        scheduler.advanceTo(1_000_000)
        XCTAssertEqual(ticks, 1)
        periodic.dispose()
    }

    // MARK: - Periods (the stops: BadInputStopTests; zero periods on real queues: DispatchSchedulerGuaranteeTests)

    func testZeroPeriodOfEmulatedPeriodicWorkTicksOncePerVirtualTick() {
        // Was a stop: RxSwift accepts a zero period, so this library does too.
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let periodic = scheduler.schedulePeriodic(0, startAfter: .seconds(1), period: .seconds(0)) { state in
            times.append(scheduler.clock)
            return state + 1
        }
        scheduler.advanceTo(6)
        XCTAssertEqual(times, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual((periodic as? PeriodicDisposable)?.skippedTicks, 0)
        periodic.dispose()
    }
}
