import Dispatch
import Foundation
import Schedulers
import Synchronization
import Testing

/// Runs `body` as an action of `scheduler` (on its queue) and returns what it
/// returned; the calling thread blocks until then.
private func onQueue<T: Sendable>(of scheduler: SerialDispatchQueueScheduler, _ body: @escaping @Sendable () -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    _ = scheduler.schedule(()) { _ in
        let value = body()
        result.withLock { $0 = value }
        done.signal()
        return Disposables.create()
    }
    done.wait()
    return result.withLock { $0! }
}

/// An actor on a given executor, with a plain counter and a log.
private actor ExecutorBoundActor {
    private let executor: SerialSchedulerExecutor
    var count = 0
    private(set) var log: [String] = []

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    init(executor: SerialSchedulerExecutor) {
        self.executor = executor
    }

    func record(_ entry: String) {
        log.append(entry)
    }

    func append(_ entry: String) {
        log.append(entry)
    }
}

@Suite struct SerialExecutorIsolationTests {
    /// The reviewer's scenario: an executor of queue q1 is made and freed,
    /// then one of q2 is made. Isolation used to be a queue-specific value
    /// under a key owned by the executor, valued with an address, never
    /// removed: the new executor's key and value could reuse the freed ones'
    /// addresses, and it answered "isolated" on q1 (200 of 200 rounds).
    @Test func aNewExecutorIsNotIsolatedOnTheQueueOfAFreedOne() {
        let first = SerialDispatchQueueScheduler(internalSerialQueueName: "soundness.q1")
        let second = SerialDispatchQueueScheduler(internalSerialQueueName: "soundness.q2")
        let rounds = 200
        var wrongOnFirst = 0
        var wrongOnSecond = 0
        for _ in 0..<rounds {
            do {
                let freed = SerialSchedulerExecutor(first)
                // Touch it so that it is really made and used on q1.
                #expect(onQueue(of: first) { freed.isIsolated })
            }
            let fresh = SerialSchedulerExecutor(second)
            if onQueue(of: first, { fresh.isIsolated }) { wrongOnFirst += 1 }
            if !onQueue(of: second, { fresh.isIsolated }) { wrongOnSecond += 1 }
        }
        print("free-then-new: isolated on the freed executor's queue in \(wrongOnFirst) of \(rounds) rounds, not isolated on its own queue in \(wrongOnSecond)")
        #expect(wrongOnFirst == 0, "a new executor claimed isolation on another executor's queue")
        #expect(wrongOnSecond == 0, "a new executor denied isolation on its own queue")
    }

    /// Two executors of one queue are both isolated there, and the one made
    /// second does not take the first one's isolation away (nor does freeing
    /// either).
    @Test func everyExecutorOfAQueueIsIsolatedOnItForItsWholeLife() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "soundness.shared")
        let other = SerialDispatchQueueScheduler(internalSerialQueueName: "soundness.other")
        let first = SerialSchedulerExecutor(scheduler)
        do {
            let second = SerialSchedulerExecutor(scheduler)
            let both = onQueue(of: scheduler) { first.isIsolated && second.isIsolated }
            #expect(both)
        }
        #expect(onQueue(of: scheduler) { first.isIsolated })
        #expect(onQueue(of: scheduler) { scheduler.executor.isIsolated })
        #expect(!onQueue(of: other) { first.isIsolated })
        #expect(!first.isIsolated)
    }

    /// `assumeIsolated` on an actor whose executor is q2's, called on q1
    /// after an executor of q1 was freed, stops the program the first time.
    /// Before the fix the new executor claimed q1 in most rounds, so the
    /// first calls went through (a data race the compiler was told could not
    /// happen) and the child got past round 0.
    @Test func assumeIsolatedOffTheQueueStopsAfterAFreedExecutor() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let first = SerialDispatchQueueScheduler(internalSerialQueueName: "soundness.exit.q1")
            let second = SerialDispatchQueueScheduler(internalSerialQueueName: "soundness.exit.q2")
            for round in 0..<20 {
                do {
                    let freed = SerialSchedulerExecutor(first)
                    _ = onQueue(of: first) { freed.isIsolated }
                }
                let actor = ExecutorBoundActor(executor: SerialSchedulerExecutor(second))
                FileHandle.standardError.write(Data("assumeIsolated round \(round)\n".utf8))
                onQueue(of: first) {
                    actor.assumeIsolated { $0.count += 1 }
                }
            }
        }
        guard let result else { return }
        guard case .signal = result.exitStatus else {
            Issue.record("expected a trap, got \(result.exitStatus)")
            return
        }
        let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(standardError.contains("assumeIsolated round 0"), "stderr: \(standardError)")
        #expect(!standardError.contains("assumeIsolated round 1"), "the first off-queue assumeIsolated did not stop; stderr: \(standardError)")
        #expect(
            standardError.contains("soundness.exit.q2") || standardError.contains("Incorrect actor executor assumption"),
            "stderr: \(standardError)")
    }
}

@Suite struct SerialExecutorOrderTests {
    /// Job 1, a plain action, job 2, enqueued in this order while the queue
    /// is suspended, run in this order. Job 2 used to join the drain job 1
    /// had queued, and so ran before the action (job 1, job 2, action).
    @Test func jobsAndActionsRunInTheOrderEnqueued() async {
        let queue = Mutex<DispatchQueue?>(nil)
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "soundness.fifo", serialQueueConfiguration: { made in
            queue.withLock { $0 = made }
        })
        let suspended = queue.withLock { $0! }
        let actor = ExecutorBoundActor(executor: scheduler.executor)
        for round in 0..<20 {
            suspended.suspend()
            // `Task.immediate` runs up to the hop to the actor on this
            // thread: when it returns, the job is on the actor's executor.
            let first = Task.immediate { await actor.record("job 1") }
            _ = scheduler.schedule(()) { _ in
                actor.assumeIsolated { $0.append("action") }
                return Disposables.create()
            }
            let second = Task.immediate { await actor.record("job 2") }
            _ = scheduler.schedule(()) { _ in
                actor.assumeIsolated { $0.append("action 2") }
                return Disposables.create()
            }
            let third = Task.immediate { await actor.record("job 3") }
            suspended.resume()
            await first.value
            await second.value
            await third.value
            let log = await actor.log
            #expect(
                log.suffix(5) == ["job 1", "action", "job 2", "action 2", "job 3"],
                "round \(round): \(log.suffix(5))")
        }
    }
}

@Suite struct OperationQueueTaskExecutorTests {
    /// Whether a task with `operationQueue`'s scheduler as its executor
    /// finishes after `cancelAllOperations()` dropped the queued work: waits
    /// (in real time, bounded) for the task, which never finished before the
    /// fix (its job was a cancelled block operation, never run).
    @Test func aTaskFinishesAlthoughItsQueuedJobsWereCancelled() async {
        for round in 0..<20 {
            let operationQueue = OperationQueue()
            operationQueue.maxConcurrentOperationCount = 1
            let scheduler = OperationQueueScheduler(operationQueue: operationQueue)
            operationQueue.isSuspended = true
            let finished = DispatchSemaphore(value: 0)
            let steps = Mutex(0)
            // The first job is queued (the queue is suspended) when `Task`
            // returns: a task with an executor preference is enqueued there.
            Task(executorPreference: scheduler.taskExecutor) {
                for _ in 0..<5 {
                    steps.withLock { $0 += 1 }
                    await Task.yield()
                }
                finished.signal()
            }
            #expect(operationQueue.operationCount == 1)
            operationQueue.cancelAllOperations()
            operationQueue.isSuspended = false
            // The yields queue more jobs; cancel those that are waiting, too.
            operationQueue.cancelAllOperations()
            let outcome = await Task.detached { finished.wait(timeout: .now() + 30) }.value
            #expect(outcome == .success, "round \(round): the task did not finish within 30 s (ran \(steps.withLock { $0 }) of 5 steps): a job was dropped")
            if outcome != .success { return }
            #expect(steps.withLock { $0 } == 5)
        }
    }

    /// A queue whose count was set to zero after the scheduler was made would
    /// never run a job: asking for the executor stops with the reason.
    @Test func aQueueThatRunsNothingStopsWhenAskedForItsExecutor() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let operationQueue = OperationQueue()
            let scheduler = OperationQueueScheduler(operationQueue: operationQueue)
            operationQueue.maxConcurrentOperationCount = 0
            _ = scheduler.taskExecutor
        }
        expectStopped(result, messageContaining: "maxConcurrentOperationCount of the OperationQueue is 0: a task on its OperationQueueScheduler's taskExecutor would never run")
    }
}
