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

    func testNegativeDueTimeRunsAtOnceOnVirtualTime() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        var ranAt: [Int] = []
        _ = scheduler.scheduleRelative((), dueTime: .seconds(-30)) { _ in
            ranAt.append(scheduler.clock)
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(ranAt, [0], "a negative due time counts as zero, not as a time in the past")
    }

    func testNegativeDueTimeRunsAtOnceOnADispatchScheduler() {
        let scheduler = SerialDispatchQueueScheduler(qos: .default)
        let ran = expectation(description: "negative due time runs at once")
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(-500)) { _ in
            ran.fulfill()
            return Disposables.create()
        }
        wait(for: [ran], timeout: 10)
    }

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

    // MARK: - Periods: programming errors that stop with a message

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

    func testZeroPeriodOnSerialDispatchQueueSchedulerTicksBackToBack() {
        // Was a stop: as in RxSwift, the timer repeats at libdispatch's
        // shortest interval; ticks come one per turn of the queue.
        let scheduler = SerialDispatchQueueScheduler(qos: .default)
        assertZeroPeriodTicks(on: scheduler)
    }

    func testZeroPeriodOnOperationQueueSchedulerTicksBackToBack() {
        // Was a stop: a zero period is accepted, one operation per fire.
        let scheduler = OperationQueueScheduler(operationQueue: OperationQueue())
        assertZeroPeriodTicks(on: scheduler)
    }

    func testZeroPeriodOnConcurrentDispatchQueueSchedulerTicksBackToBack() {
        assertZeroPeriodTicks(on: ConcurrentDispatchQueueScheduler(qos: .default))
    }

    /// Waits for 20 zero-period ticks on a real scheduler: they run in order,
    /// never overlap, count nothing as skipped, and stop at `dispose()`.
    private func assertZeroPeriodTicks(
        on scheduler: SchedulerType, file: StaticString = #filePath, line: UInt = #line
    ) {
        let record = ZeroPeriodRecord()
        let periodic = scheduler.schedulePeriodic(0, startAfter: .seconds(0), period: .seconds(0)) { state in
            record.enter(state)
            return state + 1
        }
        XCTAssertTrue(dispatchEventually { record.states.count >= 20 }, "zero-period ticks did not come", file: file, line: line)
        periodic.dispose()
        let states = record.states
        XCTAssertEqual(states, Array(0..<states.count), "each tick gets the state the previous one returned", file: file, line: line)
        XCTAssertEqual(record.overlaps, 0, file: file, line: line)
        XCTAssertEqual((periodic as? PeriodicDisposable)?.skippedTicks, 0, file: file, line: line)
        usleep(10_000)
        XCTAssertEqual(record.states.count, states.count, "no tick after dispose() returned", file: file, line: line)
    }
}

/// What the ticks of a zero-period job saw, from any thread.
private final class ZeroPeriodRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = false
    private var seen: [Int] = []
    private var overlapCount = 0

    func enter(_ state: Int) {
        lock.lock()
        if inside { overlapCount += 1 }
        inside = true
        seen.append(state)
        lock.unlock()
        lock.lock()
        inside = false
        lock.unlock()
    }

    var states: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }

    var overlaps: Int {
        lock.lock()
        defer { lock.unlock() }
        return overlapCount
    }
}
