import Dispatch
import Foundation
import Synchronization

/// Runs work on a serial dispatch queue: one action at a time, in the order
/// scheduled.
///
/// Any queue passed in, even a concurrent one, is made serial: the scheduler
/// creates its own serial queue targeting it, so actions still run on the
/// threads (and at the quality of service) of the queue passed, but never two
/// at once. The main scheduler is an instance of this class (`MainScheduler`
/// is a subclass, `MainScheduler.asyncInstance` an instance).
///
/// - `schedule` and `scheduleInOrder` always enqueue with `DispatchQueue.async`
///   (never inline), so actions run in FIFO order: this class is a
///   `SerialScheduler` and gets the `observe(on:)` fast path.
/// - `scheduleRelative` arms a one-shot `DispatchSourceTimer`; a negative
///   due time is due at once, `.never` never runs.
/// - `schedulePeriodic` is native (a repeating `DispatchSourceTimer`), fixed
///   rate, and returns a `PeriodicDisposable`.
/// - Work runs in the order it was enqueued (guarantee 10): actions,
///   `observe(on:)` deliveries, the jobs of `executor`, and the work of a
///   timer, which is enqueued when the timer fires (at or just after its due
///   time; the timer fires on a queue of the library's and enqueues the
///   action or tick on the serial queue, in order with the rest). So a timer
///   that fell due is not overtaken by an actor's jobs enqueued after it,
///   however many keep coming. (`MainScheduler`'s timers fire on the main
///   queue itself: its executor is the main actor's, which batches nothing.)
/// - `now` is `Date()`; due times are on `DispatchTime`, the monotonic clock.
///
/// `now`, `scheduleRelative` and `schedulePeriodic` (with or without a
/// leeway of the call's own) are `DispatchQueueScheduler`'s, on the serial
/// queue.
///
/// Guarantees (Guarantees.md): 5, a scheduled action disposed before it starts
/// never runs, one disposed while running finishes, is not run again, and
/// what it returned is disposed; 6, no periodic tick starts after `dispose()`
/// returns and ticks never overlap; 10, work runs in the order it fell due
/// or was enqueued (above).
///
/// Teardown (guarantee 9): the scheduler retains its queue, so the queue
/// cannot go away under it. Work scheduled on a suspended queue waits until
/// the queue is resumed; disposing it meanwhile means it never runs. A
/// periodic job on a suspended queue merges the missed fires into one tick on
/// resumption and counts the rest in `skippedTicks`.
///
/// Leeway: timers get `leeway`, by default zero (fire as close to the due
/// time as libdispatch can); a larger leeway lets the system coalesce
/// wakeups at the cost of lateness.
public class SerialDispatchQueueScheduler: DispatchQueueScheduler, SerialScheduler, @unchecked Sendable {
    /// The lock this scheduler enqueues under, shared with `executor`'s jobs,
    /// which it keeps in FIFO order with the scheduler's actions.
    let executorBatch: ExecutorBatchGate

    /// The `SerialExecutor` that runs jobs on this scheduler's queue, the
    /// same for the scheduler's whole life. See `SerialSchedulerExecutor`.
    ///
    /// For `MainScheduler` and `MainScheduler.asyncInstance` it is the main
    /// actor's executor.
    ///
    /// Made with the scheduler and stored, so reading it costs a load: an
    /// actor's `unownedExecutor` reads it every time the runtime enqueues a
    /// job on the actor or checks its executor, so a lazily made executor
    /// would put a synchronised check on every hop.
    public let executor: SerialSchedulerExecutor

    /// Wraps a queue known to be serial (the main queue, or one this class created).
    ///
    /// - Parameter isMainQueue: `queue` is the main queue: the executor is the
    ///   main actor's. Given, not tested: the main queue's wrapper on Linux
    ///   is a new object at every read, and testing for the main
    ///   schedulers' instances here would read them while they are made.
    init(serialQueue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0), isMainQueue: Bool = false) {
        let batch = ExecutorBatchGate()
        executorBatch = batch
        executor = SerialSchedulerExecutor(queue: serialQueue, batch: batch, isMainQueue: isMainQueue)
        // The main queue's executor is the main actor's: it batches nothing.
        super.init(configuration: DispatchQueueConfiguration(queue: serialQueue, leeway: leeway, gate: isMainQueue ? nil : batch))
    }

    /// Creates a scheduler on a new serial queue named `internalSerialQueueName`.
    ///
    /// - Parameters:
    ///   - internalSerialQueueName: The label of the queue created.
    ///   - serialQueueConfiguration: Called with the new queue while it is
    ///     still inactive, before any work is scheduled on it: the place to
    ///     set a target queue or queue-specific values. The queue is
    ///     activated right after; do not activate or suspend it here.
    ///   - leeway: Timer leeway, zero by default.
    public convenience init(
        internalSerialQueueName: String,
        serialQueueConfiguration: ((DispatchQueue) -> Void)? = nil,
        leeway: DispatchTimeInterval = .nanoseconds(0)
    ) {
        // Inactive until configured: libdispatch on Linux refuses to retarget
        // an active queue, and retargeting is what configurations usually do.
        let queue = DispatchQueue(label: internalSerialQueueName, attributes: [.initiallyInactive])
        serialQueueConfiguration?(queue)
        queue.activate()
        self.init(serialQueue: queue, leeway: leeway)
    }

    /// Creates a scheduler running serially on `queue`, which may be concurrent:
    /// a new serial queue named `internalSerialQueueName` targets it.
    ///
    /// - Parameters:
    ///   - queue: The queue whose threads run the work.
    ///   - internalSerialQueueName: The label of the serial queue created.
    ///   - leeway: Timer leeway, zero by default.
    public convenience init(
        queue: DispatchQueue,
        internalSerialQueueName: String,
        leeway: DispatchTimeInterval = .nanoseconds(0)
    ) {
        let serialQueue = DispatchQueue(label: internalSerialQueueName, attributes: [], target: queue)
        self.init(serialQueue: serialQueue, leeway: leeway)
    }

    /// Creates a scheduler running serially on the global queue of quality of service `qos`.
    ///
    /// - Parameters:
    ///   - qos: Selects the global queue the work runs on.
    ///   - internalSerialQueueName: The label of the serial queue created.
    ///   - leeway: Timer leeway, zero by default.
    public convenience init(
        qos: DispatchQoS,
        internalSerialQueueName: String = "rx.global_dispatch_queue.serial",
        leeway: DispatchTimeInterval = .nanoseconds(0)
    ) {
        self.init(
            queue: DispatchQueue.global(qos: qos.qosClass),
            internalSerialQueueName: internalSerialQueueName,
            leeway: leeway
        )
    }

    /// This scheduler itself: it makes the serial promise, so `observe(on:)`
    /// takes the fast path on it.
    public override var asSerialScheduler: (any SerialScheduler)? { self }

    /// Enqueues `action` on the serial queue (never inline; FIFO).
    ///
    /// - Returns: A disposable; disposing it before the action starts means
    ///   it never runs (guarantee 5 in Guarantees.md).
    public override func schedule<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        scheduleInternal(state, action: action)
    }

    /// Enqueues `action` with `async`: it runs after everything enqueued
    /// before it, never concurrently with it, never inline.
    public func scheduleInOrder<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        enqueue(state, action: action)
    }

    /// Whether callers may enqueue one reusable block many times with
    /// `enqueueReusable` instead of calling `scheduleInOrder` (a new item,
    /// closure and block each time): what `observe(on:)` does for its
    /// drains. `false` when this scheduler must see every action itself
    /// (`MainScheduler` counts what it has pending).
    var takesReusableBlocks: Bool {
        true
    }

    /// Enqueues `block`, made once and enqueued many times, on the serial
    /// queue, in the FIFO order of `scheduleInOrder` (and of `executor`'s
    /// jobs). Only where `takesReusableBlocks`.
    func enqueueReusable(_ block: @escaping @Sendable @convention(block) () -> Void) {
        let queue = configuration.queue
        executorBatch.enqueueClosingBatch {
            if !SyncPoint.controllerTook(block, for: queue) {
                queue.async(execute: block)
            }
        }
    }

    /// What `schedule` does; `MainScheduler` runs inline when it may.
    func scheduleInternal<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        enqueue(state, action: action)
    }

    /// Always enqueues; `MainScheduler` also counts what it has pending.
    func enqueue<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        executorBatch.enqueueClosingBatch {
            configuration.schedule(state, action: action)
        }
    }
}
