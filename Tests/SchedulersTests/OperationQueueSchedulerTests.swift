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

    /// Up to `maxConcurrentOperationCount` actions run at once: an action
    /// scheduled while another runs starts before the first one ends.
    @Test(.tags(.guarantee10))
    func anActionStartsWhileAnotherRunsWhenTheQueueRunsTwoAtOnce() {
        let scheduler = OperationQueueScheduler(operationQueue: makeQueue(maxConcurrent: 2))
        let firstRuns = DispatchSemaphore(value: 0)
        let secondStarted = DispatchSemaphore(value: 0)
        let firstSawSecond = TestFulfilment()
        _ = scheduler.schedule(()) { _ in
            firstRuns.signal()
            if secondStarted.wait(timeout: .now() + 10) == .success { firstSawSecond.fulfill() }
            return Disposables.create()
        }
        // Scheduled only while the first action runs.
        #expect(firstRuns.wait(timeout: .now() + 10) == .success, "the first action never started")
        _ = scheduler.schedule(()) { _ in
            secondStarted.signal()
            return Disposables.create()
        }
        #expect(firstSawSecond.wait(timeout: 15), "the second action waited for the first to end")
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

    @Test(.tags(.guarantee9))
    func observeOnStillDeliversAfterCancelAllOperationsDroppedItsDrain() {
        let queue = makeQueue(maxConcurrent: 2)
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let subject = SequencesTestSubject<Int>()
        let probe = DispatchProbe()
        let subscription = subject.observable.observe(on: scheduler).subscribe(onNext: { probe.record("\($0)") })
        queue.isSuspended = true
        subject.send(1)
        #expect(dispatchEventually { queue.operationCount == 1 }, "the drain for 1 is queued")
        queue.cancelAllOperations()
        queue.isSuspended = false
        subject.send(2)
        #expect(dispatchEventually { probe.events.count == 2 }, "got \(probe.events)")
        subject.send(3)
        #expect(dispatchEventually { probe.events.count == 3 }, "got \(probe.events)")
        #expect(probe.events == ["1", "2", "3"], "the element queued for the dropped drain is delivered, in order")
        subscription.dispose()
    }

    @Test(.tags(.guarantee6, .guarantee9))
    func emulatedPeriodicJobSkipsATickCancelledByTheQueueAndGoesOn() {
        let (job, probe) = emulatedJobWhoseFirstTickTheQueueCancels(period: .milliseconds(2))
        #expect(!job.isDisposed, "cancelling the queue's operations does not dispose the job")
        #expect(job.skippedTicks >= 1, "the cancelled tick counts as skipped")
        job.dispose()
        #expect(job.isDisposed)
        #expect(Array(probe.events.prefix(2)) == ["0", "1"], "the cancelled tick kept its state for the next one")
    }

    /// A zero period has no due times to miss: a tick the queue cancels is
    /// not counted as skipped, as the native timer counts none (a generated
    /// mutant counted it, and nothing caught it).
    @Test
    func emulatedPeriodicJobOfZeroPeriodCountsNoSkippedTickWhenTheQueueCancelsOne() {
        let (job, probe) = emulatedJobWhoseFirstTickTheQueueCancels(period: .nanoseconds(0))
        job.dispose()
        #expect(job.skippedTicks == 0, "a zero period's cancelled tick counts as no skipped tick")
        #expect(Array(probe.events.prefix(2)) == ["0", "1"], "the cancelled tick kept its state for the next one")
    }

    /// An emulated periodic job of `period` on a queue of width 2 whose first
    /// tick the queue cancels (`cancelAllOperations()` while suspended), once
    /// two ticks have run; the probe records each tick's state.
    private func emulatedJobWhoseFirstTickTheQueueCancels(period: RxTimeInterval) -> (PeriodicDisposable, DispatchProbe) {
        let queue = makeQueue(maxConcurrent: 2)
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let probe = DispatchProbe()
        queue.isSuspended = true
        let job = scheduler.schedulePeriodicEmulated(0, startAfter: .nanoseconds(0), period: period) { tick in
            probe.record("\(tick)")
            return tick + 1
        }
        #expect(dispatchEventually { queue.operationCount == 1 }, "the first tick is queued")
        queue.cancelAllOperations()
        queue.isSuspended = false
        #expect(dispatchEventually { probe.events.count >= 2 }, "got \(probe.events)")
        return (job, probe)
    }
}
