import Schedulers
import SchedulersTesting
import Synchronization
import XCTest

/// The lines sleeping tasks record when they wake.
private final class WakeLog: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] {
        lines.withLock { $0 }
    }
}

final class TestSchedulerClockTests: XCTestCase {
    func testNowFollowsTheSchedulersVirtualTime() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
        let clock = scheduler.asClock()
        XCTAssertEqual(clock.now.offset, .zero)
        XCTAssertEqual(clock.minimumResolution, .milliseconds(1))
        scheduler.advanceTo(1_500)
        XCTAssertEqual(clock.now.offset, .milliseconds(1_500))
        XCTAssertEqual(clock.now, clock.instant(atTick: 1_500))
    }

    func testTheDeadlineTickIsTheFirstAtOrAfterIt() {
        let clock = TestScheduler(initialClock: 0, resolution: 1).asClock()
        XCTAssertEqual(clock.firstTick(atOrAfter: .init(offset: .seconds(5))), 5)
        XCTAssertEqual(clock.firstTick(atOrAfter: .init(offset: .milliseconds(4_001))), 5)
        XCTAssertEqual(clock.firstTick(atOrAfter: .init(offset: .milliseconds(4_999))), 5)
        XCTAssertEqual(clock.firstTick(atOrAfter: .init(offset: .zero)), 0)
        let fine = TestScheduler(initialClock: 0, resolution: 0.001).asClock()
        XCTAssertEqual(fine.firstTick(atOrAfter: .init(offset: .milliseconds(3))), 3)
        XCTAssertEqual(fine.firstTick(atOrAfter: .init(offset: .microseconds(2_001))), 3)
    }

    func testASleeperWakesWhenTimeIsAdvancedPastItsDeadlineAndNotBefore() async throws {
        let scheduler = TestScheduler(initialClock: 0)
        let clock = scheduler.asClock()
        let task = Task {
            try await clock.sleep(for: .seconds(5))
            return clock.now
        }
        try await clock.waitForSleepers(1)
        scheduler.advanceTo(4)
        XCTAssertEqual(clock.sleeperCount, 1, "4 s is before the deadline: still asleep")
        scheduler.advanceTo(5)
        XCTAssertEqual(clock.sleeperCount, 0, "woken inside advanceTo")
        let wokeAt = try await task.value
        XCTAssertEqual(wokeAt.offset, .seconds(5))
    }

    func testADeadlineAlreadyPastReturnsAtOnce() async throws {
        let scheduler = TestScheduler(initialClock: 10)
        let clock = scheduler.asClock()
        try await clock.sleep(until: clock.instant(atTick: 3))
        try await clock.sleep(for: .zero)
        XCTAssertEqual(clock.sleeperCount, 0)
    }

    func testCancellingASleeperThrowsAndUnregistersIt() async throws {
        let scheduler = TestScheduler(initialClock: 0)
        let clock = scheduler.asClock()
        let task = Task {
            try await clock.sleep(for: .seconds(10))
        }
        try await clock.waitForSleepers(1)
        task.cancel()
        XCTAssertEqual(clock.sleeperCount, 0, "unregistered inside cancel()")
        do {
            try await task.value
            XCTFail("sleep returned after cancellation")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
        // Its action left the scheduler: advancing finds nothing to run.
        scheduler.advanceTo(20)
        XCTAssertEqual(clock.now, clock.instant(atTick: 20))
    }

    func testWaitingForSleepersCanBeCancelled() async {
        let clock = TestScheduler(initialClock: 0).asClock()
        let waiter = Task {
            try await clock.waitForSleepers(3)
        }
        waiter.cancel()
        do {
            try await waiter.value
            XCTFail("no sleeper registered, yet the wait returned")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
    }

    func testClocksOfTheSameSchedulerShareTheirSleepers() async throws {
        let scheduler = TestScheduler(initialClock: 0)
        let codeUnderTest = scheduler.asClock()
        let test = scheduler.asClock()
        let task = Task { try await codeUnderTest.sleep(for: .seconds(1)) }
        try await test.waitForSleepers(1)
        XCTAssertEqual(test.sleeperCount, 1)
        scheduler.advanceTo(1)
        try await task.value
    }

    /// Three tasks sleep different spans; the test advances time in steps and
    /// checks, after each, exactly who has woken (each step stops exactly on
    /// a deadline, so the woken task reads that time from the clock). 10,000 runs in a row: a
    /// missed or early wake-up in any run fails the test.
    func testAdvancingTimeWhileTasksSleepWakesExactlyTheDueOnes10000Times() async throws {
        for run in 0..<10_000 {
            let scheduler = TestScheduler(initialClock: 0)
            let clock = scheduler.asClock()
            let woken = WakeLog()
            let short = Task {
                try await clock.sleep(for: .seconds(1))
                woken.append("short at \(clock.now.offset)")
            }
            let medium = Task {
                try await clock.sleep(for: .seconds(3))
                woken.append("medium at \(clock.now.offset)")
                // Sleeps again: registers anew before the next advance.
                try await clock.sleep(for: .seconds(3))
                woken.append("medium again at \(clock.now.offset)")
            }
            let long = Task {
                try await clock.sleep(for: .seconds(5))
                woken.append("long at \(clock.now.offset)")
            }
            try await clock.waitForSleepers(3)

            scheduler.advanceTo(1)
            try await short.value
            XCTAssertEqual(woken.all, ["short at 1.0 seconds"], "run \(run)")
            XCTAssertEqual(clock.sleeperCount, 2, "run \(run)")

            scheduler.advanceTo(3)
            // medium woke and is going back to sleep: wait for it.
            try await clock.waitForSleepers(2)
            XCTAssertEqual(woken.all.last, "medium at 3.0 seconds", "run \(run)")

            scheduler.advanceTo(5)
            try await long.value
            XCTAssertEqual(clock.sleeperCount, 1, "run \(run): medium sleeps until 6")

            scheduler.advanceTo(6)
            try await medium.value
            XCTAssertEqual(woken.all, [
                "short at 1.0 seconds",
                "medium at 3.0 seconds",
                "long at 5.0 seconds",
                "medium again at 6.0 seconds",
            ], "run \(run)")
            if woken.all.count != 4 { return }
        }
    }
}
