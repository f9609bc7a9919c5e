import Dispatch
import Foundation
import Schedulers
import Testing

@Suite struct OperationQueueSchedulerTests {
    private func requirePeriodic<S: PeriodicScheduler>(_ scheduler: S) {}

    private func makeQueue(maxConcurrent: Int) -> OperationQueue {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = maxConcurrent
        return queue
    }

    @Test
    func conformsToPeriodicSchedulerButNotSerialScheduler() {
        let scheduler = OperationQueueScheduler(operationQueue: makeQueue(maxConcurrent: 1))
        requirePeriodic(scheduler)
        let asImmediate: ImmediateSchedulerType = scheduler
        #expect(asImmediate as? SerialScheduler == nil)
        #expect(scheduler.queuePriority == .normal)
    }

    @Test
    func maxConcurrentOperationCountHoldsUnderLoad() {
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
            #expect(probe.count == total)
            #expect(probe.maxRunning <= limit, "limit \(limit)")
            #expect(probe.maxRunning >= 1)
        }
    }

    @Test
    func queuePriorityOrdersReadyOperations() {
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
        #expect(probe.events == ["high 0", "high 1", "high 2", "low 0", "low 1", "low 2"])
    }

    @Test(.tags(.guarantee9))
    func cancelAllOperationsDisposesQueuedWork() {
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
        #expect((disposable as? Cancelable)?.isDisposed == true)
        #expect(weakState == nil, "state released when the queue cancels the work")
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        #expect(probe.events == [])
        // The scheduler still works for work scheduled afterwards.
        _ = scheduler.schedule(()) { _ in
            probe.record("later work ran")
            return Disposables.create()
        }
        queue.waitUntilAllOperationsAreFinished()
        #expect(probe.events == ["later work ran"])
    }
}
