import CAllocationCounter
import Dispatch
import Foundation
@testable import Schedulers
import SchedulersTesting
import XCTest

/// `scheduleRecursive`, immediate and relative: every state runs in order,
/// disposal cancels what is pending, a run caught by dispose finishes and does
/// not recurse again (guarantee 5), nothing is kept after (guarantee 8).
final class RecursiveSchedulingTests: XCTestCase {
    // MARK: - Immediate

    func testImmediateRecursionOnCurrentThreadSchedulerRunsEveryStateInOrder() {
        var seen: [Int] = []
        _ = CurrentThreadScheduler.instance.scheduleRecursive(0) { value, recurse in
            seen.append(value)
            if value < 5 {
                recurse(value + 1)
            }
        }
        XCTAssertEqual(seen, [0, 1, 2, 3, 4, 5], "all of it runs before scheduleRecursive returns")
    }

    func testImmediateRecursionRunsEachLevelAfterThePreviousOneReturns() {
        var log: [String] = []
        _ = CurrentThreadScheduler.instance.scheduleRecursive(0) { value, recurse in
            log.append("begin \(value)")
            if value < 2 {
                recurse(value + 1)
            }
            log.append("end \(value)")
        }
        XCTAssertEqual(log, ["begin 0", "end 0", "begin 1", "end 1", "begin 2", "end 2"])
    }

    func testImmediateRecursionOnTestSchedulerRunsOneLevelPerSchedule() {
        // Each schedule costs the test scheduler one tick: one level per tick
        // is one scheduled action per level.
        let scheduler = TestScheduler(initialClock: 0)
        var seen: [(value: Int, time: Int)] = []
        let disposable = scheduler.scheduleRecursive(0) { value, recurse in
            seen.append((value, scheduler.clock))
            if value < 3 {
                recurse(value + 1)
            }
        }
        XCTAssertEqual(seen.map(\.value), [], "nothing runs until the scheduler runs")
        scheduler.start()
        XCTAssertEqual(seen.map(\.value), [0, 1, 2, 3])
        XCTAssertEqual(seen.map(\.time), [1, 2, 3, 4])
        XCTAssertEqual(scheduler.queuedCount, 0)
        XCTAssertFalse((disposable as? Cancelable)?.isDisposed ?? true)
    }

    func testImmediateRecursionOnQueueSchedulerRunsOnTheScheduler() {
        let scheduler = QueueTestScheduler()
        let offScheduler = ConcurrentCounter()
        let runs = ConcurrentCounter()
        let done = DispatchSemaphore(value: 0)
        let disposable = scheduler.scheduleRecursive(0) { value, recurse in
            if !scheduler.isCurrent {
                offScheduler.increment()
            }
            runs.increment()
            if value < 100 {
                recurse(value + 1)
            } else {
                done.signal()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(runs.count, 101)
        XCTAssertEqual(offScheduler.count, 0)
        disposable.dispose()
    }

    func testConcurrentRunsOfOneRecursionDoNotRaceCreatingTheirRecurseFunction() {
        // Two recursions per run, from many threads at once. The `recurse`
        // function used to be a lazy property created by whichever run asked
        // first, unsynchronised (a data race ThreadSanitizer reports); now each
        // run gets a stack closure, and all bookkeeping is under the lock.
        let scheduler = ConcurrentDispatchQueueScheduler(qos: .default)
        let depth = 9
        let expectedRuns = (1 << (depth + 1)) - 1
        let runs = ConcurrentCounter()
        let allRan = DispatchSemaphore(value: 0)
        let disposable = scheduler.scheduleRecursive(0) { level, recurse in
            if level < depth {
                recurse(level + 1)
                recurse(level + 1)
            }
            if runs.increment() == expectedRuns {
                allRan.signal()
            }
        }
        XCTAssertEqual(allRan.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(runs.count, expectedRuns)
        disposable.dispose()
    }

    func testRecursionStepOnTheTrampolineAllocatesNothing() throws {
        // One object serves the whole recursion: it is re-queued at each step.
        try XCTSkipUnless(allocation_counter_is_active() != 0, "allocation counting is off under sanitizers")
        func allocations(forSteps steps: Int) -> UInt64 {
            let before = allocation_counter_read_thread()
            _ = CurrentThreadScheduler.instance.scheduleRecursive(0) { level, recurse in
                if level < steps {
                    recurse(level + 1)
                }
            }
            return allocation_counter_read_thread() - before
        }
        _ = allocations(forSteps: 100)
        let single = allocations(forSteps: 1_000)
        let double = allocations(forSteps: 2_000)
        XCTAssertEqual(double - single, 0, "no allocation per step")
    }

    func testRecursingTwiceInOneStepRunsBothInFIFOOrderWithOtherQueuedWork() {
        var log: [String] = []
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            _ = CurrentThreadScheduler.instance.scheduleRecursive("a") { name, recurse in
                log.append(name)
                if name == "a" {
                    recurse("b")
                    _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                        log.append("item")
                        return Disposables.create()
                    }
                    recurse("c")
                } else if name == "b" {
                    recurse("d")
                }
            }
            return Disposables.create()
        }
        XCTAssertEqual(log, ["a", "b", "item", "c", "d"])
    }

    func testDisposingQueuedTrampolineRecursionFromAnotherThreadSkipsItAndReleasesTheAction() {
        weak var weakCaptured: LifetimeToken?
        var runs = 0
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            let captured = LifetimeToken()
            weakCaptured = captured
            let disposable = CurrentThreadScheduler.instance.scheduleRecursive(0) { value, recurse in
                _ = captured
                runs += 1
                recurse(value + 1)
            }
            let done = DispatchSemaphore(value: 0)
            let transfer = UncheckedBox(disposable)
            DispatchQueue.global().async {
                transfer.value.dispose()
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            XCTAssertTrue(disposable.isDisposedIfCancelable)
            return Disposables.create()
        }
        XCTAssertEqual(runs, 0, "disposed before its first step started")
        // (The recursion object itself may still be held for a moment by the
        // dispatch block that disposed it.)
        XCTAssertNil(weakCaptured, "released when the skipped step came up")
    }

    func testDisposingTrampolineRecursionOnItsThreadReleasesTheActionAtOnce() {
        weak var weakCaptured: LifetimeToken?
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            let disposable: Disposable
            do {
                let captured = LifetimeToken()
                weakCaptured = captured
                disposable = CurrentThreadScheduler.instance.scheduleRecursive(0) { _, _ in _ = captured }
            }
            XCTAssertNotNil(weakCaptured, "queued")
            disposable.dispose()
            XCTAssertNil(weakCaptured, "released by dispose, before the queued step comes up")
            return Disposables.create()
        }
    }

    func testTrampolineRecursionDisposedInsideItsStepFinishesTheStepAndStops() {
        var handle: Disposable?
        var log: [String] = []
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            handle = CurrentThreadScheduler.instance.scheduleRecursive(0) { value, recurse in
                log.append("begin \(value)")
                if value == 2 {
                    handle?.dispose()
                }
                recurse(value + 1)
                log.append("end \(value)")
            }
            return Disposables.create()
        }
        XCTAssertEqual(log, ["begin 0", "end 0", "begin 1", "end 1", "begin 2", "end 2"])
        handle = nil
    }

    // MARK: - Relative

    func testRelativeRecursionRunsAtEachDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        var runTimes: [Int] = []
        _ = scheduler.scheduleRecursive(0, dueTime: .seconds(10)) { count, recursive in
            runTimes.append(scheduler.clock)
            if count < 3 {
                recursive.schedule(count + 1, dueTime: .seconds(5))
            }
        }
        scheduler.start()
        XCTAssertEqual(runTimes, [10, 15, 20, 25])
    }

    func testRelativeRecursionCanAlsoRecurseWithoutADueTime() {
        // Ticks of a millisecond, no processing delay: work without a due
        // time runs at the tick it was scheduled at.
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001, simulateProcessingDelay: false)
        var seen: [(value: Int, time: Int)] = []
        _ = scheduler.scheduleRecursive(0, dueTime: .milliseconds(3)) { value, recursive in
            seen.append((value, scheduler.clock))
            if value < 2 {
                recursive.schedule(value + 1)
            }
        }
        scheduler.start()
        XCTAssertEqual(seen.map(\.value), [0, 1, 2])
        XCTAssertEqual(seen.map(\.time), [3, 3, 3])
    }

    func testRelativeRecursionWithNegativeDueTimeRunsAtOnceAndNeverDueTimeNeverRuns() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        var seen: [Int] = []
        _ = scheduler.scheduleRecursive(0, dueTime: .seconds(-5)) { value, recursive in
            seen.append(value)
            recursive.schedule(value + 1, dueTime: .never)
        }
        scheduler.start()
        XCTAssertEqual(seen, [0])
        XCTAssertEqual(scheduler.clock, 0)
    }

    // MARK: - Disposal

    func testDisposingBeforeTheFirstRunCancelsIt() {
        let scheduler = TestScheduler(initialClock: 0)
        var ran = false
        let disposable = scheduler.scheduleRecursive((), dueTime: .seconds(1)) { _, _ in ran = true }
        disposable.dispose()
        XCTAssertTrue((disposable as? Cancelable)?.isDisposed ?? false)
        XCTAssertEqual(scheduler.queuedCount, 0, "the first run left the queue")
        scheduler.start()
        XCTAssertFalse(ran)
        XCTAssertEqual(scheduler.clock, 0, "no run was left to move the clock")
    }

    func testDisposingCancelsPendingRecursions() {
        let scheduler = TestScheduler(initialClock: 0)
        var seen: [Int] = []
        let disposable = scheduler.scheduleRecursive(0, dueTime: .seconds(1)) { value, recursive in
            seen.append(value)
            recursive.schedule(value + 1, dueTime: .seconds(1))
        }
        scheduler.advanceTo(3)
        XCTAssertEqual(seen, [0, 1, 2])
        disposable.dispose()
        scheduler.advanceTo(100)
        XCTAssertEqual(seen, [0, 1, 2], "nothing runs after dispose")
    }

    func testDisposingImmediateRecursionCancelsPendingRuns() {
        // One level per tick (the test scheduler's processing delay).
        let scheduler = TestScheduler(initialClock: 0)
        var seen: [Int] = []
        let disposable = scheduler.scheduleRecursive(0) { value, recurse in
            seen.append(value)
            recurse(value + 1)
        }
        scheduler.advanceTo(3)
        XCTAssertEqual(seen, [0, 1, 2])
        XCTAssertEqual(scheduler.queuedCount, 1, "the fourth run is pending")
        disposable.dispose()
        XCTAssertEqual(scheduler.queuedCount, 0)
        scheduler.start()
        XCTAssertEqual(seen, [0, 1, 2])
        XCTAssertEqual(scheduler.clock, 3, "no run was left to move the clock")
    }

    func testActionDisposingItsOwnRecursionFinishesAndDoesNotRecurseAgain() {
        let scheduler = TestScheduler(initialClock: 0)
        var handle: Disposable?
        var log: [String] = []
        handle = scheduler.scheduleRecursive(0) { value, recurse in
            log.append("begin \(value)")
            if value == 2 {
                handle?.dispose()
            }
            recurse(value + 1)
            log.append("end \(value)")
        }
        scheduler.start()
        XCTAssertEqual(log, ["begin 0", "end 0", "begin 1", "end 1", "begin 2", "end 2"])
    }

    func testActionRunningDuringDisposeOnAnotherThreadFinishesAndDoesNotRecurseAgain() {
        let scheduler = QueueTestScheduler()
        let started = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let runs = ConcurrentCounter()
        let disposable = scheduler.scheduleRecursive(0) { value, recurse in
            runs.increment()
            started.signal()
            disposed.wait()
            recurse(value + 1)
            finished.signal()
        }
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        disposable.dispose()
        disposed.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "the running action finishes")
        scheduler.waitUntilIdle()
        scheduler.waitUntilIdle()
        XCTAssertEqual(runs.count, 1, "no run after dispose")
    }

    func testRelativeActionRunningDuringDisposeFinishesAndDoesNotRecurseAgain() {
        let scheduler = TestScheduler(initialClock: 0)
        let started = DispatchSemaphore(value: 0)
        let disposed = DispatchSemaphore(value: 0)
        let runs = ConcurrentCounter()
        let disposable = scheduler.scheduleRecursive(0, dueTime: .seconds(1)) { value, recursive in
            runs.increment()
            started.signal()
            disposed.wait()
            recursive.schedule(value + 1, dueTime: .seconds(1))
        }
        let driver = UncheckedBox(scheduler)
        let driverDone = DispatchSemaphore(value: 0)
        Thread {
            driver.value.start()
            driverDone.signal()
        }.start()
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        disposable.dispose()
        disposed.signal()
        XCTAssertEqual(driverDone.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(runs.count, 1)
        XCTAssertEqual(scheduler.queuedCount, 0)
    }

    // MARK: - Lifetime

    func testRecursionPendingOnAnIdleVirtualSchedulerIsFreedByDispose() {
        // A pending run keeps its recursion and its scheduler alive (as in
        // RxSwift: `_ = scheduler.scheduleRecursive(...)` must keep running
        // even on a scheduler nobody else holds). The scheduler's queued item
        // holds the run and the recursion holds the item to cancel it: dispose
        // must break that cycle, so everything is freed.
        weak var weakRecursion: AnyObject?
        weak var weakCaptured: LifetimeToken?
        weak var weakScheduler: TestScheduler?
        do {
            let scheduler = TestScheduler(initialClock: 0)
            weakScheduler = scheduler
            let captured = LifetimeToken()
            weakCaptured = captured
            let disposable = scheduler.scheduleRecursive(0, dueTime: .seconds(5)) { _, _ in _ = captured }
            weakRecursion = disposable as AnyObject
            disposable.dispose()
        }
        XCTAssertNil(weakScheduler)
        XCTAssertNil(weakRecursion)
        XCTAssertNil(weakCaptured)
    }

    func testRecursionIsFreedAfterItsLastRun() {
        let scheduler = TestScheduler(initialClock: 0)
        weak var weakRecursion: AnyObject?
        weak var weakCaptured: LifetimeToken?
        do {
            let captured = LifetimeToken()
            weakCaptured = captured
            let disposable = scheduler.scheduleRecursive(0, dueTime: .seconds(1)) { value, recursive in
                _ = captured
                if value < 3 {
                    recursive.schedule(value + 1, dueTime: .seconds(1))
                }
            }
            weakRecursion = disposable as AnyObject
        }
        XCTAssertNotNil(weakRecursion, "kept alive by its pending run")
        scheduler.start()
        XCTAssertNil(weakRecursion)
        XCTAssertNil(weakCaptured)
    }

    func testImmediateRecursionOnCurrentThreadSchedulerIsFreedWhenItEnds() {
        weak var weakRecursion: AnyObject?
        weak var weakCaptured: LifetimeToken?
        do {
            let captured = LifetimeToken()
            weakCaptured = captured
            let disposable = CurrentThreadScheduler.instance.scheduleRecursive(0) { value, recurse in
                _ = captured
                if value < 3 {
                    recurse(value + 1)
                }
            }
            weakRecursion = disposable as AnyObject
        }
        XCTAssertNil(weakRecursion)
        XCTAssertNil(weakCaptured)
    }

    func testDisposingReleasesTheActionAtOnce() {
        // ManualScheduler, not TestScheduler: it keeps a disposed run queued
        // until its due time, as dispatch queues do, so only the recursion
        // itself can let go of the action here.
        let scheduler = ManualScheduler()
        weak var weakCaptured: LifetimeToken?
        let disposable: Disposable
        do {
            let captured = LifetimeToken()
            weakCaptured = captured
            disposable = scheduler.scheduleRecursive(0, dueTime: .seconds(1)) { _, _ in _ = captured }
        }
        XCTAssertNotNil(weakCaptured)
        disposable.dispose()
        XCTAssertNil(weakCaptured, "dispose releases the action even while its run is still queued")
        // The queued run still holds the recursion, which holds the scheduler:
        // let the scheduler skip it, or the two keep each other alive.
        scheduler.runAll()
    }

    func testDisposedRecursionIsFreedOnceTheSchedulerDropsItsSkippedRun() {
        // ManualScheduler, not TestScheduler: a disposed run stays queued
        // until the scheduler reaches and skips it, as on dispatch queues.
        let scheduler = ManualScheduler()
        weak var weakRecursion: AnyObject?
        weak var weakState: LifetimeToken?
        do {
            let state = LifetimeToken()
            weakState = state
            let disposable = scheduler.scheduleRecursive(state, dueTime: .seconds(1)) { _, _ in }
            weakRecursion = disposable as AnyObject
            disposable.dispose()
        }
        scheduler.runAll()
        XCTAssertNil(weakRecursion)
        XCTAssertNil(weakState)
    }
}

private extension Disposable {
    var isDisposedIfCancelable: Bool {
        (self as? Cancelable)?.isDisposed ?? false
    }
}
