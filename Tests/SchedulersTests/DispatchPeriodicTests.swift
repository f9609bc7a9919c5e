import Dispatch
import Foundation
import Schedulers
import XCTest

/// Native periodic scheduling of the dispatch and operation-queue schedulers.
final class DispatchPeriodicTests: XCTestCase {
    private func schedulers() -> [(name: String, scheduler: PeriodicScheduler)] {
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 4
        return [
            ("serial", SerialDispatchQueueScheduler(internalSerialQueueName: "test.periodic.serial")),
            ("concurrent", ConcurrentDispatchQueueScheduler(queue: DispatchQueue(label: "test.periodic.concurrent", attributes: .concurrent))),
            ("operation queue", OperationQueueScheduler(operationQueue: operationQueue)),
        ]
    }

    func testEachTickReceivesTheStateThePreviousTickReturned() {
        for (name, scheduler) in schedulers() {
            let probe = DispatchProbe()
            let disposable = scheduler.schedulePeriodic(0, startAfter: .milliseconds(1), period: .milliseconds(1)) { tick in
                probe.record("\(tick)")
                return tick + 1
            }
            XCTAssertTrue(dispatchEventually { probe.events.count >= 5 }, name)
            disposable.dispose()
            XCTAssertEqual(Array(probe.events.prefix(5)), ["0", "1", "2", "3", "4"], name)
        }
    }

    func testReturnsAPeriodicDisposable() {
        for (name, scheduler) in schedulers() {
            let disposable = scheduler.schedulePeriodic((), startAfter: .seconds(60), period: .seconds(1)) { $0 }
            guard let periodic = disposable as? PeriodicDisposable else {
                XCTFail("\(name): not a PeriodicDisposable")
                continue
            }
            XCTAssertFalse(periodic.isDisposed, name)
            XCTAssertEqual(periodic.skippedTicks, 0, name)
            periodic.dispose()
            XCTAssertTrue(periodic.isDisposed, name)
        }
    }

    func testNoTickStartsAfterDisposeReturnsGuarantee6() {
        for (name, scheduler) in schedulers() {
            for round in 0..<10 {
                let probe = DispatchProbe()
                let disposeReturned = DispatchProbe()
                let disposable = scheduler.schedulePeriodic((), startAfter: .nanoseconds(0), period: .microseconds(300)) { _ in
                    // A tick that passed its start check before dispose() may
                    // still be entering here afterwards; at most one can.
                    probe.record(disposeReturned.events.isEmpty ? "before" : "after")
                    return ()
                }
                XCTAssertTrue(dispatchEventually { probe.events.count >= 1 + round % 3 }, name)
                disposable.dispose()
                disposeReturned.record("returned")
                let afterDispose = probe.events.count
                usleep(10_000)
                let late = probe.events.filter { $0 == "after" }.count
                XCTAssertLessThanOrEqual(late, 1, "\(name): ticks entered after dispose returned")
                XCTAssertLessThanOrEqual(probe.events.count, afterDispose + 1, "\(name): ticks kept coming")
            }
        }
    }

    func testNoTickStartsAfterDisposeOnTheSerialQueueItselfGuarantee6() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.periodic.dispose.on.queue")
        let probe = DispatchProbe()
        let disposable = scheduler.schedulePeriodic((), startAfter: .nanoseconds(0), period: .microseconds(200)) { _ in
            probe.record("tick")
            return ()
        }
        XCTAssertTrue(dispatchEventually { probe.events.count >= 3 })
        // On the serial queue no tick runs while this action does, so any tick
        // recorded after the marker started after dispose() returned.
        _ = scheduler.schedule(()) { _ in
            disposable.dispose()
            probe.record("disposed")
            return Disposables.create()
        }
        XCTAssertTrue(dispatchEventually { probe.events.last == "disposed" || probe.events.contains("disposed") })
        usleep(10_000)
        dispatchDrain(scheduler)
        XCTAssertEqual(probe.events.last, "disposed")
    }

    func testDisposingFromInsideATickStopsTheJob() {
        for (name, scheduler) in schedulers() {
            let probe = DispatchProbe()
            let holder = SingleAssignmentDisposable()
            let assigned = DispatchSemaphore(value: 0)
            let disposable = scheduler.schedulePeriodic(0, startAfter: .nanoseconds(0), period: .microseconds(500)) { tick in
                probe.record("\(tick)")
                if tick == 2 {
                    // However slow this thread, dispose the job itself, not a placeholder.
                    assigned.wait()
                    holder.dispose()
                }
                return tick + 1
            }
            holder.setDisposable(disposable)
            assigned.signal()
            XCTAssertTrue(dispatchEventually { probe.events.count >= 3 }, name)
            usleep(10_000)
            XCTAssertEqual(probe.events, ["0", "1", "2"], name)
            XCTAssertTrue((disposable as? Cancelable)?.isDisposed == true, name)
        }
    }

    func testSkippedTicksCountsFiresMergedWhileTheQueueWasSuspended() {
        let queue = DispatchQueue(label: "test.periodic.suspended")
        let scheduler = SerialDispatchQueueScheduler(queue: queue, internalSerialQueueName: "test.periodic.suspended.serial")
        let probe = DispatchProbe()
        queue.suspend()
        let disposable = scheduler.schedulePeriodic(0, startAfter: .nanoseconds(0), period: .milliseconds(1)) { tick in
            probe.record("\(tick)")
            return tick + 1
        }
        usleep(30_000)
        XCTAssertEqual(probe.events, [])
        queue.resume()
        XCTAssertTrue(dispatchEventually { !probe.events.isEmpty })
        disposable.dispose()
        XCTAssertEqual(probe.events.first, "0", "one merged tick, with the first state")
        XCTAssertGreaterThan((disposable as? PeriodicDisposable)?.skippedTicks ?? 0, 0)
    }

    func testTickCancelledByTheOperationQueueIsSkippedAndTheJobGoesOnGuarantee9() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let probe = DispatchProbe()
        queue.isSuspended = true
        let disposable = scheduler.schedulePeriodic(0, startAfter: .nanoseconds(0), period: .milliseconds(1)) { tick in
            probe.record("\(tick)")
            return tick + 1
        }
        XCTAssertTrue(dispatchEventually { queue.operationCount >= 1 })
        queue.cancelAllOperations()
        queue.isSuspended = false
        XCTAssertTrue(dispatchEventually { probe.events.count >= 2 })
        disposable.dispose()
        XCTAssertEqual(Array(probe.events.prefix(2)), ["0", "1"], "the cancelled tick kept its state for the next one")
        XCTAssertGreaterThan((disposable as? PeriodicDisposable)?.skippedTicks ?? 0, 0)
    }

    func testDisposingReleasesATickQueuedOnASuspendedOperationQueueGuarantee8() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let probe = DispatchProbe()
        weak var weakState: DispatchTracked?
        queue.isSuspended = true
        var disposable: Disposable?
        do {
            let state = DispatchTracked()
            weakState = state
            disposable = scheduler.schedulePeriodic(state, startAfter: .nanoseconds(0), period: .milliseconds(1)) { state in
                probe.record("tick")
                return state
            }
        }
        XCTAssertTrue(dispatchEventually { queue.operationCount >= 1 })
        disposable?.dispose()
        XCTAssertTrue(dispatchEventually { weakState == nil }, "released while the queue is still suspended")
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(probe.events, [])
    }

    func testNeverStartAfterNeverTicks() {
        for (name, scheduler) in schedulers() {
            let probe = DispatchProbe()
            let disposable = scheduler.schedulePeriodic((), startAfter: .never, period: .milliseconds(1)) { _ in
                probe.record("tick")
                return ()
            }
            usleep(10_000)
            XCTAssertEqual(probe.events, [], name)
            disposable.dispose()
        }
    }

    func testNegativeStartAfterTicksAtOnce() {
        for (name, scheduler) in schedulers() {
            let probe = DispatchProbe()
            let disposable = scheduler.schedulePeriodic((), startAfter: .seconds(-5), period: .seconds(60)) { _ in
                probe.record("tick")
                return ()
            }
            XCTAssertTrue(dispatchEventually { probe.events == ["tick"] }, name)
            disposable.dispose()
        }
    }

    func testDisposingReleasesStateAndActionGuarantee8() {
        for (name, scheduler) in schedulers() {
            weak var weakState: DispatchTracked?
            weak var weakCaptured: DispatchTracked?
            var disposable: Disposable?
            do {
                let state = DispatchTracked(1)
                let captured = DispatchTracked(2)
                weakState = state
                weakCaptured = captured
                disposable = scheduler.schedulePeriodic(state, startAfter: .seconds(60), period: .seconds(60)) { state in
                    _ = captured.value
                    return state
                }
            }
            XCTAssertNotNil(weakState, name)
            XCTAssertNotNil(weakCaptured, name)
            disposable?.dispose()
            XCTAssertTrue(dispatchEventually { weakState == nil && weakCaptured == nil }, name)
            disposable = nil
        }
    }

    func testZeroPeriodTicksLikeRxSwiftAndLetsOtherWorkRun() {
        // Was a stop: RxSwift accepts a zero period on a dispatch scheduler
        // (its timer repeats at libdispatch's shortest interval), so this
        // library does too. Each tick is its own turn of the serial queue, so
        // work scheduled meanwhile still runs.
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.periodic.zero")
        let probe = ZeroPeriodProbe()
        let disposable = scheduler.schedulePeriodic(0, startAfter: .seconds(0), period: .seconds(0)) { tick in
            probe.tick(tick)
            if tick == 3 {
                _ = scheduler.schedule(()) { _ in
                    probe.otherWorkRan(afterTicks: tick)
                    return Disposables.create()
                }
            }
            return tick + 1
        }
        XCTAssertTrue(dispatchEventually { probe.otherWorkRanAfter != nil && probe.ticks >= 10 })
        disposable.dispose()
        XCTAssertEqual(probe.ticksOutOfOrder, 0, "each tick gets the state the previous one returned")
        XCTAssertEqual((disposable as? PeriodicDisposable)?.skippedTicks, 0)
    }
}

private final class ZeroPeriodProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var ranAfter: Int?
    private var disorder = 0

    func tick(_ state: Int) {
        lock.lock()
        if state != count { disorder += 1 }
        count += 1
        lock.unlock()
    }

    var ticksOutOfOrder: Int {
        lock.lock()
        defer { lock.unlock() }
        return disorder
    }

    func otherWorkRan(afterTicks ticks: Int) {
        lock.lock()
        ranAfter = ticks
        lock.unlock()
    }

    var ticks: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    var otherWorkRanAfter: Int? {
        lock.lock()
        defer { lock.unlock() }
        return ranAfter
    }
}
