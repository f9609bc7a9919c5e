import Dispatch
import Foundation
import Schedulers
import XCTest

final class OperationQueueSchedulerTests: XCTestCase {
    private func requirePeriodic<S: PeriodicScheduler>(_ scheduler: S) {}

    private func makeQueue(maxConcurrent: Int) -> OperationQueue {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = maxConcurrent
        return queue
    }

    func testConformsToPeriodicSchedulerButNotSerialScheduler() {
        let scheduler = OperationQueueScheduler(operationQueue: makeQueue(maxConcurrent: 1))
        requirePeriodic(scheduler)
        let asImmediate: ImmediateSchedulerType = scheduler
        XCTAssertNil(asImmediate as? SerialScheduler)
        XCTAssertEqual(scheduler.queuePriority, .normal)
    }

    func testMaxConcurrentOperationCountHoldsUnderLoad() {
        for limit in [1, 3] {
            let queue = makeQueue(maxConcurrent: limit)
            let scheduler = OperationQueueScheduler(operationQueue: queue)
            let probe = DispatchProbe()
            let total = 150
            for _ in 0..<total {
                _ = scheduler.schedule(()) { _ in
                    probe.enter()
                    usleep(200)
                    probe.leave()
                    return Disposables.create()
                }
            }
            queue.waitUntilAllOperationsAreFinished()
            XCTAssertEqual(probe.count, total)
            XCTAssertLessThanOrEqual(probe.maxRunning, limit, "limit \(limit)")
            XCTAssertGreaterThanOrEqual(probe.maxRunning, 1)
        }
    }

    func testQueuePriorityOrdersReadyOperations() {
        let queue = makeQueue(maxConcurrent: 1)
        let low = OperationQueueScheduler(operationQueue: queue, queuePriority: .veryLow)
        let high = OperationQueueScheduler(operationQueue: queue, queuePriority: .veryHigh)
        let probe = DispatchProbe()
        queue.isSuspended = true
        for index in 0..<3 {
            _ = low.schedule(index) { index in
                probe.record("low \(index)")
                return Disposables.create()
            }
        }
        for index in 0..<3 {
            _ = high.schedule(index) { index in
                probe.record("high \(index)")
                return Disposables.create()
            }
        }
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(probe.events, ["high 0", "high 1", "high 2", "low 0", "low 1", "low 2"])
    }

    func testCancelAllOperationsDisposesQueuedWorkGuarantee9() {
        let queue = makeQueue(maxConcurrent: 1)
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let probe = DispatchProbe()
        weak var weakState: DispatchTracked?
        queue.isSuspended = true
        var disposable: Disposable?
        do {
            let state = DispatchTracked()
            weakState = state
            disposable = scheduler.schedule(state) { _ in
                probe.record("cancelled work ran")
                return Disposables.create()
            }
        }
        queue.cancelAllOperations()
        XCTAssertTrue((disposable as? Cancelable)?.isDisposed == true)
        XCTAssertNil(weakState, "state released when the queue cancels the work")
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(probe.events, [])
        // The scheduler still works for work scheduled afterwards.
        _ = scheduler.schedule(()) { _ in
            probe.record("later work ran")
            return Disposables.create()
        }
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(probe.events, ["later work ran"])
    }
}
