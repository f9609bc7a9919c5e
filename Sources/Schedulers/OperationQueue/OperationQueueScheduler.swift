import Dispatch
import Foundation

/// Runs work as operations on a Foundation `OperationQueue`: for bigger
/// chunks of background work whose parallelism is tuned with the queue's
/// `maxConcurrentOperationCount`.
///
/// - Each `schedule` adds one operation with priority `queuePriority`; the
///   queue decides when it runs, so at most `maxConcurrentOperationCount`
///   actions run at once, and among ready operations higher priorities start
///   first.
/// - `scheduleRelative` waits on a one-shot dispatch timer, then adds the
///   operation; a negative due time is due at once, `.never` never runs.
/// - `schedulePeriodic` fires a repeating dispatch timer at a fixed rate and
///   adds one operation per tick, and returns a `PeriodicDisposable`. Ticks
///   of one job never overlap: a tick that comes due while the previous
///   tick's operation is still queued or running is skipped and counted in
///   `skippedTicks`. No tick starts after `dispose()` returns. Disposing
///   cancels a tick still queued, so its state is released even on a
///   suspended queue. A zero period, as in RxSwift, repeats the timer at
///   libdispatch's shortest interval: ticks come as fast as the queue runs
///   them, and none counts as skipped.
/// - `now` is `Date()`; due times are on `DispatchTime`, the monotonic clock.
///
/// Guarantees (Guarantees.md): 5 (disposed before it starts, an action never
/// runs, and its operation is cancelled so the queue drops it; disposed while
/// running, it finishes and is not run again) and 6 (no periodic tick starts
/// after `dispose()` returns; ticks never overlap).
///
/// Bad input and teardown (guarantee 9):
/// - A `maxConcurrentOperationCount` of zero would never run anything: it is
///   a programming error, checked when the scheduler is created and each time
///   work is scheduled, that stops the program with a message naming
///   `maxConcurrentOperationCount`.
/// - Work still queued when the queue's operations are cancelled
///   (`cancelAllOperations()`) never runs: its disposable becomes disposed
///   (`isDisposed` is `true`) and its state and action are released. Work
///   scheduled afterwards runs normally. A periodic tick cancelled that way,
///   native or emulated, is skipped (counted in `skippedTicks`); the job goes
///   on. An `observe(on:)` drain cancelled that way is scheduled again, so
///   the events queued for it are still delivered, in order.
///   The jobs of `taskExecutor` are exempt: a task's job always runs, so the
///   task finishes (see `SchedulerTaskExecutor`).
/// - Work scheduled on a suspended queue waits until the queue is resumed;
///   disposing it meanwhile means it never runs.
public class OperationQueueScheduler: PeriodicScheduler, @unchecked Sendable {
    /// The queue the operations are added to.
    public let operationQueue: OperationQueue
    /// The priority of every operation this scheduler adds.
    public let queuePriority: Operation.QueuePriority

    /// Creates a scheduler adding operations of priority `queuePriority` to `operationQueue`.
    ///
    /// - Precondition: `operationQueue.maxConcurrentOperationCount` is not zero.
    public init(operationQueue: OperationQueue, queuePriority: Operation.QueuePriority = .normal) {
        Self.checkConcurrency(of: operationQueue)
        self.operationQueue = operationQueue
        self.queuePriority = queuePriority
    }

    /// The scheduler's notion of now: the wall clock. Due times do not use it.
    public var now: Date {
        Date()
    }

    /// Adds an operation that runs `action` with `state`.
    ///
    /// - Returns: A disposable; disposing it before the operation starts means
    ///   the action never runs (guarantee 5 in Guarantees.md).
    /// - Precondition: `maxConcurrentOperationCount` is not zero.
    public func schedule<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        Self.checkConcurrency(of: operationQueue)
        let operation = OperationQueueScheduledAction(state: state, action: action, timer: nil)
        operation.queuePriority = queuePriority
        SyncPoint.handOff(to: operationQueue, operation)
        return operation
    }

    /// Adds an operation running `action` once `dueTime` has passed.
    ///
    /// A negative `dueTime` is due at once; `.never` never runs. Disposing
    /// before the due time cancels the timer and releases the action at once.
    public func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        dueTime.scheduleOnce(now: { schedule(state, action: action) }) { nanoseconds in
            Self.checkConcurrency(of: operationQueue)
            let timer = HandOffTimer(queue: DispatchQueue.global())
            let operation = OperationQueueScheduledAction(state: state, action: action, timer: timer)
            operation.queuePriority = queuePriority
            timer.setEventHandler { [operationQueue] in
                timer.cancel()
                guard !operation.isDisposed else { return }
                SyncPoint.handOff(to: operationQueue, operation)
            }
            timer.schedule(deadline: SyncPoint.dispatchNow() + .nanoseconds(Int(nanoseconds)), leeway: .nanoseconds(0))
            timer.activate()
            return operation
        }
    }

    private static func checkConcurrency(of queue: OperationQueue) {
        precondition(
            queue.maxConcurrentOperationCount != 0,
            "maxConcurrentOperationCount of the OperationQueue is 0: no operation would ever run; use a positive count or OperationQueue.defaultMaxConcurrentOperationCount"
        )
    }
}

extension OperationQueueScheduler: DispatchTimerScheduler {
    /// A timer of the job's own, on a queue of its own; each tick adds one
    /// operation, and a tick due while the previous one is still queued or
    /// running is skipped.
    ///
    /// - Precondition: `maxConcurrentOperationCount` is not zero.
    func periodicPlacement() -> DispatchPeriodicPlacement {
        Self.checkConcurrency(of: operationQueue)
        return DispatchPeriodicPlacement(
            timerQueue: DispatchQueue(label: "OperationQueueScheduler.periodic", target: .global()),
            leeway: .nanoseconds(0),
            execution: .operationQueue(operationQueue, queuePriority)
        )
    }
}
