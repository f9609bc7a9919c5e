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
/// - `OperationQueueScheduler`: each job is one block operation added to the
///   scheduler's `operationQueue` at its `queuePriority`, so the queue's
///   `maxConcurrentOperationCount` bounds how many run at once.
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
        let transfer = UnsafeTransfer(UnownedJob(job))
        switch target {
        case .dispatch(let queue):
            if !SyncPoint.controllerTook({ transfer.value.runSynchronously(on: self.asUnownedTaskExecutor()) }, for: queue) {
                queue.async {
                    transfer.value.runSynchronously(on: self.asUnownedTaskExecutor())
                }
            }
        case .operations(let queue, let priority):
            let operation = BlockOperation {
                transfer.value.runSynchronously(on: self.asUnownedTaskExecutor())
            }
            operation.queuePriority = priority
            SyncPoint.handOff(to: queue, operation)
        }
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
    public var taskExecutor: SchedulerTaskExecutor {
        SchedulerTaskExecutor(operationQueue: operationQueue, priority: queuePriority)
    }
}
