import Foundation
import XCTest

@testable import Schedulers
import SchedulersTesting

/// A bare `VirtualTimeScheduler` on integer ticks of one second, as a user
/// would build one from the public API.
private func makeScheduler(initialClock: Int = 0) -> VirtualTimeScheduler<TestSchedulerVirtualTimeConverter> {
    VirtualTimeScheduler(
        initialClock: initialClock,
        converter: TestSchedulerVirtualTimeConverter(resolution: 1.0)
    )
}

final class VirtualTimeSchedulerTests: XCTestCase {
    func testActionsRunInDueTimeOrderWithClockAtEachDueTime() {
        let scheduler = makeScheduler()
        var log: [String] = []
        _ = scheduler.scheduleRelativeVirtual("c", dueTime: 30) { name in
            log.append("\(name)@\(scheduler.clock)")
            return Disposables.create()
        }
        _ = scheduler.scheduleRelativeVirtual("a", dueTime: 10) { name in
            log.append("\(name)@\(scheduler.clock)")
            return Disposables.create()
        }
        _ = scheduler.scheduleAbsoluteVirtual("b", time: 20) { name in
            log.append("\(name)@\(scheduler.clock)")
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(log, ["a@10", "b@20", "c@30"])
        XCTAssertEqual(scheduler.clock, 30)
    }

    func testActionsDueAtTheSameTimeRunInSchedulingOrder() {
        let scheduler = makeScheduler()
        var order: [Int] = []
        // Interleave two due times so the heap has to reorder, and check
        // that ties keep scheduling order.
        for index in 0..<200 {
            _ = scheduler.scheduleAbsoluteVirtual(index, time: index.isMultiple(of: 2) ? 50 : 10) { value in
                order.append(value)
                return Disposables.create()
            }
        }
        scheduler.start()
        let odd = (0..<200).filter { !$0.isMultiple(of: 2) }
        let even = (0..<200).filter { $0.isMultiple(of: 2) }
        XCTAssertEqual(order, odd + even)
    }

    func testRandomScheduleAndDisposeRunsSurvivorsInStableTimeOrder() {
        let scheduler = makeScheduler()
        let run = scheduleAtRandomAndDispose(on: scheduler, seed: 42) { $0 % 3 == 0 }
        XCTAssertEqual(scheduler.queuedCount, 2_000 - run.disposed.count)
        scheduler.start()
        XCTAssertEqual(run.ran.values, run.survivors)
    }

    /// What `scheduleAtRandomAndDispose` did: which actions it disposed,
    /// the others in the order they must run, and what ran.
    final class RandomRun {
        final class Ran {
            var values: [Int] = []
        }
        let ran = Ran()
        var disposed = Set<Int>()
        var survivors: [Int] = []
    }

    /// Schedules 2,000 actions at seeded times from 0 to 99, each recording
    /// its index when it runs, then disposes those whose next seeded number
    /// `disposes` picks.
    private func scheduleAtRandomAndDispose(
        on scheduler: VirtualTimeScheduler<TestSchedulerVirtualTimeConverter>, seed: UInt64,
        disposes: (UInt64) -> Bool
    ) -> RandomRun {
        var generator = SeededGenerator(seed: seed)
        let run = RandomRun()
        let ran = run.ran
        var expected: [(time: Int, index: Int)] = []
        var disposables: [Disposable] = []
        for index in 0..<2_000 {
            let time = Int(generator.next() % 100)
            disposables.append(scheduler.scheduleAbsoluteVirtual(index, time: time) { value in
                ran.values.append(value)
                return Disposables.create()
            })
            expected.append((time, index))
        }
        for index in 0..<2_000 where disposes(generator.next()) {
            disposables[index].dispose()
            run.disposed.insert(index)
        }
        run.survivors = expected
            .filter { !run.disposed.contains($0.index) }
            .sorted { ($0.time, $0.index) < ($1.time, $1.index) }
            .map(\.index)
        return run
    }

    func testAdvanceToRunsActionsDueUpToAndIncludingTargetThenSetsClock() {
        let scheduler = makeScheduler()
        var ran: [Int] = []
        for time in [5, 10, 15] {
            _ = scheduler.scheduleAbsoluteVirtual(time, time: time) { value in
                ran.append(value)
                return Disposables.create()
            }
        }
        scheduler.advanceTo(10)
        XCTAssertEqual(ran, [5, 10])
        XCTAssertEqual(scheduler.clock, 10)
        scheduler.advanceTo(12)
        XCTAssertEqual(ran, [5, 10])
        XCTAssertEqual(scheduler.clock, 12)
        scheduler.advanceTo(100)
        XCTAssertEqual(ran, [5, 10, 15])
        XCTAssertEqual(scheduler.clock, 100)
    }

    func testAdvanceToTheCurrentClockRunsWorkDueNow() {
        let scheduler = makeScheduler(initialClock: 7)
        var ran = false
        _ = scheduler.schedule(()) { _ in
            ran = true
            return Disposables.create()
        }
        scheduler.advanceTo(7)
        XCTAssertTrue(ran)
        XCTAssertEqual(scheduler.clock, 7)
    }

    func testStopMakesStartReturnAfterTheRunningActionAndStartResumes() {
        let scheduler = makeScheduler()
        var ran: [Int] = []
        for time in 1...4 {
            _ = scheduler.scheduleAbsoluteVirtual(time, time: time) { value in
                ran.append(value)
                if value == 2 {
                    scheduler.stop()
                }
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(ran, [1, 2])
        XCTAssertEqual(scheduler.clock, 2)
        scheduler.start()
        XCTAssertEqual(ran, [1, 2, 3, 4])
    }

    func testStopDuringAdvanceToLeavesClockAtTheStoppingAction() {
        let scheduler = makeScheduler()
        var ran: [Int] = []
        for time in [3, 6, 9] {
            _ = scheduler.scheduleAbsoluteVirtual(time, time: time) { value in
                ran.append(value)
                if value == 6 {
                    scheduler.stop()
                }
                return Disposables.create()
            }
        }
        scheduler.advanceTo(50)
        XCTAssertEqual(ran, [3, 6])
        XCTAssertEqual(scheduler.clock, 6)
        // The action left at 9 captures the scheduler, whose queue holds it:
        // run it, so the test leaves no cycle behind (LeakSanitizer).
        scheduler.advanceTo(50)
        XCTAssertEqual(ran, [3, 6, 9])
    }

    func testStartCalledFromARunningActionReturnsAtOnce() {
        let scheduler = makeScheduler()
        var ran: [Int] = []
        _ = scheduler.scheduleAbsoluteVirtual(1, time: 1) { value in
            scheduler.start()
            ran.append(value)
            return Disposables.create()
        }
        _ = scheduler.scheduleAbsoluteVirtual(2, time: 2) { value in
            ran.append(value)
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(ran, [1, 2])
    }

    func testSleepMovesTheClockAndLaterWorkRunsLateWithoutMovingTheClockBack() {
        let scheduler = makeScheduler()
        var log: [String] = []
        _ = scheduler.scheduleAbsoluteVirtual("sleeper", time: 10) { name in
            scheduler.sleep(15)
            log.append("\(name)@\(scheduler.clock)")
            return Disposables.create()
        }
        _ = scheduler.scheduleAbsoluteVirtual("late", time: 20) { name in
            log.append("\(name)@\(scheduler.clock)")
            return Disposables.create()
        }
        _ = scheduler.scheduleAbsoluteVirtual("onTime", time: 30) { name in
            log.append("\(name)@\(scheduler.clock)")
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(log, ["sleeper@25", "late@25", "onTime@30"])
    }

    func testRelativeDueTimeIsConvertedToVirtualUnits() {
        let scheduler = makeScheduler(initialClock: 40)
        var ranAt: Int?
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(3_000)) { _ in
            ranAt = scheduler.clock
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(ranAt, 43)
    }

    func testNeverDueTimeQueuesNothing() {
        let scheduler = makeScheduler()
        var ran = false
        _ = scheduler.scheduleRelative((), dueTime: .never) { _ in
            ran = true
            return Disposables.create()
        }
        XCTAssertEqual(scheduler.queuedCount, 0)
        scheduler.advanceTo(1_000_000)
        XCTAssertFalse(ran)
    }

    func testDisposingQueuedItemSkipsItAndRemovesItFromTheQueue() {
        let scheduler = makeScheduler()
        var ran: [Int] = []
        let first = scheduler.scheduleAbsoluteVirtual(1, time: 5) { value in
            ran.append(value)
            return Disposables.create()
        }
        _ = scheduler.scheduleAbsoluteVirtual(2, time: 5) { value in
            ran.append(value)
            return Disposables.create()
        }
        XCTAssertEqual(scheduler.queuedCount, 2)
        first.dispose()
        XCTAssertEqual(scheduler.queuedCount, 1)
        XCTAssertTrue((first as? Cancelable)?.isDisposed ?? false)
        scheduler.start()
        XCTAssertEqual(ran, [2])
    }

    func testDisposingAnItemFromAnEarlierActionSkipsIt() {
        let scheduler = makeScheduler()
        var ran: [String] = []
        var later: Disposable?
        _ = scheduler.scheduleAbsoluteVirtual((), time: 1) { _ in
            ran.append("first")
            later?.dispose()
            return Disposables.create()
        }
        later = scheduler.scheduleAbsoluteVirtual((), time: 1) { _ in
            ran.append("second")
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(ran, ["first"])
    }

    func testScheduledItemIsReleasedAfterItRuns() {
        let scheduler = makeScheduler()
        weak var weakToken: LifetimeToken?
        var disposable: Disposable?
        do {
            let token = LifetimeToken()
            weakToken = token
            disposable = scheduler.scheduleAbsoluteVirtual(token, time: 1) { _ in Disposables.create() }
        }
        XCTAssertNotNil(weakToken)
        scheduler.start()
        XCTAssertNil(weakToken, "state must be released once the action ran")
        XCTAssertEqual(scheduler.queuedCount, 0)
        XCTAssertNotNil(disposable)
    }

    func testScheduledItemIsReleasedAtOnceWhenDisposed() {
        let scheduler = makeScheduler()
        weak var weakState: LifetimeToken?
        weak var weakCaptured: LifetimeToken?
        var disposable: Disposable?
        do {
            let state = LifetimeToken()
            let captured = LifetimeToken()
            weakState = state
            weakCaptured = captured
            disposable = scheduler.scheduleAbsoluteVirtual(state, time: 1_000) { _ in
                _ = captured
                return Disposables.create()
            }
        }
        XCTAssertNotNil(weakState)
        XCTAssertNotNil(weakCaptured)
        disposable?.dispose()
        XCTAssertNil(weakState, "state must be released at dispose, not when its time comes")
        XCTAssertNil(weakCaptured, "action must be released at dispose")
        XCTAssertEqual(scheduler.queuedCount, 0)
    }

    func testSchedulerWithQueuedItemsIsReleased() {
        weak var weakScheduler: VirtualTimeScheduler<TestSchedulerVirtualTimeConverter>?
        weak var weakState: LifetimeToken?
        var disposable: Disposable?
        do {
            let scheduler = makeScheduler()
            let state = LifetimeToken()
            weakScheduler = scheduler
            weakState = state
            disposable = scheduler.scheduleAbsoluteVirtual(state, time: 5) { _ in Disposables.create() }
        }
        XCTAssertNil(weakScheduler, "queued items must not keep the scheduler alive")
        disposable?.dispose()
        XCTAssertNil(weakState)
    }

    func testScheduleInOrderRunsFirstInFirstOutAndNeverInline() {
        let scheduler = makeScheduler()
        var order: [Int] = []
        for index in 0..<10 {
            _ = scheduler.scheduleInOrder(index) { value in
                order.append(value)
                if value == 0 {
                    _ = scheduler.scheduleInOrder(100) { nested in
                        order.append(nested)
                        return Disposables.create()
                    }
                }
                return Disposables.create()
            }
        }
        XCTAssertEqual(order, [], "scheduleInOrder must not run inline")
        scheduler.start()
        XCTAssertEqual(order, Array(0..<10) + [100])
    }

    func testVirtualTimeSchedulerIsASerialScheduler() {
        let scheduler: any SerialScheduler = makeScheduler()
        XCTAssertTrue(scheduler is any Scheduler)
    }

    func testNowIsTheClockThroughTheConverter() {
        let scheduler = makeScheduler(initialClock: 100)
        XCTAssertEqual(scheduler.now, Date(timeIntervalSince1970: 100))
        scheduler.advanceTo(250)
        XCTAssertEqual(scheduler.now, Date(timeIntervalSince1970: 250))
    }

    func testMonotonicNanosecondsIsVirtualTimeElapsedSinceTheInitialClock() {
        let scheduler = makeScheduler(initialClock: 100)
        XCTAssertEqual(scheduler.monotonicNanoseconds, 0)
        scheduler.advanceTo(103)
        XCTAssertEqual(scheduler.monotonicNanoseconds, 3_000_000_000)
        scheduler.advanceTo(1_000_103)
        XCTAssertEqual(scheduler.monotonicNanoseconds, 1_000_003_000_000_000)
    }

    func testRecursiveRelativeSchedulingRunsOnVirtualTime() {
        let scheduler = makeScheduler()
        var times: [Int] = []
        _ = scheduler.scheduleRecursive(0, dueTime: .seconds(2)) { count, recursive in
            times.append(scheduler.clock)
            if count < 3 {
                recursive.schedule(count + 1, dueTime: .seconds(2))
            }
        }
        scheduler.start()
        XCTAssertEqual(times, [2, 4, 6, 8])
    }

    func testSchedulingFromManyThreadsQueuesEveryAction() {
        let scheduler = makeScheduler()
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<250 {
                _ = scheduler.scheduleAbsoluteVirtual(index, time: thread * 1_000 + index) { _ in
                    counter.increment()
                    return Disposables.create()
                }
            }
        }
        scheduler.start()
        XCTAssertEqual(counter.count, 2_000)
        XCTAssertEqual(scheduler.queuedCount, 0)
    }

    // MARK: Tombstones (VirtualSchedulerQueue, VirtualSchedulerTombstones)

    func testDisposedItemsStayQueuedUntilAScheduleFindsHalfDisposed() {
        let scheduler = makeScheduler()
        var ran: [Int] = []
        var disposables: [Disposable] = []
        var expected: [(time: Int, index: Int)] = []
        func schedule(_ index: Int, at time: Int) {
            disposables.append(scheduler.scheduleAbsoluteVirtual(index, time: time) { value in
                ran.append(value)
                return Disposables.create()
            })
            expected.append((time, index))
        }
        for index in 0..<100 {
            schedule(index, at: 100 - index % 10)
        }
        for index in stride(from: 0, to: 98, by: 2) {
            disposables[index].dispose()
        }
        XCTAssertEqual(scheduler.queuedCount, 51)
        XCTAssertEqual(scheduler.queuedItemCount, 100, "disposing leaves a tombstone")
        XCTAssertEqual(scheduler.tombstones.value, 49)
        schedule(100, at: 1)
        XCTAssertEqual(scheduler.queuedItemCount, 101, "49 of 100 disposed: no compaction yet")
        disposables[1].dispose()
        disposables[3].dispose()
        schedule(101, at: 95)
        XCTAssertEqual(scheduler.queuedItemCount, 51, "51 of 101 disposed: compacted before the insert")
        XCTAssertEqual(scheduler.queuedCount, 51)
        XCTAssertEqual(scheduler.tombstones.value, 0)
        scheduler.start()
        let survivors = expected
            .filter { $0.index >= 98 || ($0.index % 2 == 1 && $0.index != 1 && $0.index != 3) }
            .sorted { ($0.time, $0.index) < ($1.time, $1.index) }
            .map(\.index)
        XCTAssertEqual(ran, survivors, "compaction keeps due-time order and scheduling order among equal times")
    }

    func testARunCompactsAMostlyDisposedQueueAndKeepsTheOrder() {
        let scheduler = makeScheduler()
        let run = scheduleAtRandomAndDispose(on: scheduler, seed: 7) { $0 % 3 != 0 }
        XCTAssertEqual(scheduler.queuedItemCount, 2_000)
        scheduler.advanceTo(0)
        XCTAssertEqual(scheduler.queuedItemCount, scheduler.queuedCount, "the run began by dropping every tombstone")
        XCTAssertEqual(scheduler.tombstones.value, 0)
        scheduler.start()
        XCTAssertEqual(run.ran.values, run.survivors)
    }

    func testTombstonesNeverRunAndNeverMoveTheClock() {
        let scheduler = makeScheduler()
        var ran: [Int] = []
        let later = scheduler.scheduleAbsoluteVirtual(2, time: 50) { value in
            ran.append(value)
            return Disposables.create()
        }
        _ = scheduler.scheduleAbsoluteVirtual(1, time: 10) { value in
            ran.append(value)
            return Disposables.create()
        }
        later.dispose()
        scheduler.start()
        XCTAssertEqual(ran, [1])
        XCTAssertEqual(scheduler.clock, 10, "the disposed action at 50 must not move the clock")
        XCTAssertEqual(scheduler.queuedItemCount, 0)
        XCTAssertEqual(scheduler.tombstones.value, 0)
    }

    func testAdvanceToDropsTombstonesDueUpToItsTimeAndKeepsLaterWork() {
        let scheduler = makeScheduler()
        var ran: [Int] = []
        let early = scheduler.scheduleAbsoluteVirtual(1, time: 5) { value in
            ran.append(value)
            return Disposables.create()
        }
        _ = scheduler.scheduleAbsoluteVirtual(2, time: 20) { value in
            ran.append(value)
            return Disposables.create()
        }
        early.dispose()
        scheduler.advanceTo(10)
        XCTAssertEqual(ran, [])
        XCTAssertEqual(scheduler.clock, 10)
        XCTAssertEqual(scheduler.queuedItemCount, 1)
        XCTAssertEqual(scheduler.tombstones.value, 0)
        scheduler.advanceTo(20)
        XCTAssertEqual(ran, [2])
    }

    func testAnItemDisposedAfterItLeftTheQueueIsCountedOutWhenItRuns() throws {
        let scheduler = makeScheduler()
        weak var weakState: LifetimeToken?
        var ran = false
        do {
            let state = LifetimeToken()
            weakState = state
            _ = scheduler.scheduleAbsoluteVirtual(state, time: 1) { _ in
                ran = true
                return Disposables.create()
            }
        }
        // What `start()` does, stopped between taking the item out and
        // running it: a dispose from another thread lands in that gap.
        let taken: VirtualSchedulerItem? = scheduler.lock.withLock {
            scheduler.running = true
            defer { scheduler.running = false }
            return scheduler.takeNext(notAfter: nil)
        }
        let item = try XCTUnwrap(taken)
        item.dispose()
        XCTAssertNil(weakState, "state released at dispose")
        XCTAssertEqual(scheduler.tombstones.value, 1)
        item.run()
        XCTAssertFalse(ran)
        XCTAssertEqual(scheduler.tombstones.value, 0, "added once at dispose, taken off once by the run")
    }

    func testTombstoneCountIsExactAfterDisposesRacingARun() {
        let scheduler = makeScheduler()
        let counter = Counter()
        var disposables: [Disposable] = []
        for index in 0..<4_000 {
            disposables.append(scheduler.scheduleAbsoluteVirtual(index, time: index) { _ in
                counter.increment()
                return Disposables.create()
            })
        }
        let all = UncheckedBox(disposables)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for disposable in all.value.reversed() {
                disposable.dispose()
            }
        }
        scheduler.start()
        group.wait()
        scheduler.start()
        XCTAssertEqual(scheduler.queuedItemCount, 0)
        XCTAssertEqual(scheduler.tombstones.value, 0, "every disposed pending item is counted in once and out once")
        XCTAssertLessThanOrEqual(counter.count, 4_000)
    }
}
