import Dispatch
import Foundation

/// A `TaskExecutor` that runs a task's non-isolated work on a concurrent
/// scheduler's threads: `Task(executorPreference: scheduler.taskExecutor)`.
///
/// Code isolated to an actor still runs on that actor's executor; what the
/// preference moves is the rest (the task's body between actor calls,
/// `nonisolated` async functions it calls, child tasks that inherit it).
/// Jobs may run concurrently, as they do on the global executor.
///
/// - `ConcurrentDispatchQueueScheduler`: each job is one `async` on the
///   scheduler's queue.
/// - `OperationQueueScheduler`: each job is one operation added to the
///   scheduler's `operationQueue` at its `queuePriority`, so the queue's
///   `maxConcurrentOperationCount` bounds how many run at once.
///
/// A job, once enqueued, always runs: a task on this executor runs to its
/// end. `cancelAllOperations()` on the operation queue, which drops the
/// scheduler's queued actions, does not cancel a job's operation (its
/// `cancel()` does nothing: dropping a job would leave its task suspended
/// forever). Cancel the task itself to stop it. A suspended operation queue
/// holds its jobs until it is resumed.
///
/// Each job costs the allocations of one `async` or one operation.
public final class SchedulerTaskExecutor: TaskExecutor, @unchecked Sendable {
    private enum Target {
        case dispatch(DispatchQueue)
        case operations(OperationQueue, Operation.QueuePriority)
    }

    private let target: Target

    fileprivate init(queue: DispatchQueue) {
        target = .dispatch(queue)
    }

    fileprivate init(operationQueue: OperationQueue, priority: Operation.QueuePriority) {
        target = .operations(operationQueue, priority)
    }

    /// Runs `job` on the scheduler's threads.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        switch target {
        case .dispatch(let queue):
            let run: @Sendable () -> Void = {
                // unsafe: the closure keeps `self`, so the executor outlives the call.
                unsafe job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
            if !SyncPoint.controllerTook(run, for: queue) {
                queue.async(execute: run)
            }
        case .operations(let queue, let priority):
            Self.checkConcurrency(of: queue)
            let operation = TaskJobOperation(job: job, executor: self)
            operation.queuePriority = priority
            SyncPoint.handOff(to: queue, operation)
        }
    }

    /// A queue that runs nothing would hold a task forever.
    fileprivate static func checkConcurrency(of queue: OperationQueue) {
        precondition(
            queue.maxConcurrentOperationCount != 0,
            "maxConcurrentOperationCount of the OperationQueue is 0: a task on its OperationQueueScheduler's taskExecutor would never run; use a positive count or OperationQueue.defaultMaxConcurrentOperationCount"
        )
    }
}

/// The operation of one job: it cannot be cancelled, so a queue's
/// `cancelAllOperations()` never drops the job (its task would never finish).
private final class TaskJobOperation: Operation, @unchecked Sendable {
    private let job: UnownedJob
    private let executor: SchedulerTaskExecutor

    init(job: UnownedJob, executor: SchedulerTaskExecutor) {
        self.job = job
        self.executor = executor
    }

    /// Does nothing: a job must run. `isCancelled` stays `false`, so the
    /// queue starts the operation and `main` runs the job.
    override func cancel() {}

    override func main() {
        // unsafe: the operation keeps `executor`, alive for the call.
        unsafe job.runSynchronously(on: executor.asUnownedTaskExecutor())
    }
}

extension ConcurrentDispatchQueueScheduler {
    /// A task executor on this scheduler's queue (see `SchedulerTaskExecutor`).
    /// Each read makes a new, equivalent executor; a task keeps the one it
    /// was given.
    public var taskExecutor: SchedulerTaskExecutor {
        SchedulerTaskExecutor(queue: configuration.queue)
    }
}

extension OperationQueueScheduler {
    /// A task executor on this scheduler's operation queue (see
    /// `SchedulerTaskExecutor`). Each read makes a new, equivalent executor;
    /// a task keeps the one it was given.
    ///
    /// - Precondition: `operationQueue.maxConcurrentOperationCount` is not
    ///   zero (checked here and for every job).
    public var taskExecutor: SchedulerTaskExecutor {
        SchedulerTaskExecutor.checkConcurrency(of: operationQueue)
        return SchedulerTaskExecutor(operationQueue: operationQueue, priority: queuePriority)
    }
}
