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
/// - `scheduleRelative` arms a one-shot `DispatchSourceTimer` targeting the
///   serial queue; a negative due time is due at once, `.never` never runs.
/// - `schedulePeriodic` is native (a repeating `DispatchSourceTimer`), fixed
///   rate, and returns a `PeriodicDisposable`.
/// - `now` is `Date()`; due times are on `DispatchTime`, the monotonic clock.
///
/// Guarantees (Guarantees.md): 5, a scheduled action disposed before it starts
/// never runs, one disposed while running finishes, is not run again, and
/// what it returned is disposed; 6, no periodic tick starts after `dispose()`
/// returns and ticks never overlap.
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
public class SerialDispatchQueueScheduler: SerialScheduler, PeriodicScheduler, @unchecked Sendable {
    let configuration: DispatchQueueConfiguration
    /// `executor`'s storage, filled on first use (Concurrency/SerialSchedulerExecutor.swift).
    let executorReference = AtomicLazyReference<SerialSchedulerExecutor>()

    /// The scheduler's notion of now: the wall clock. Due times do not use it.
    public var now: Date {
        Date()
    }

    /// Wraps a queue known to be serial (the main queue, or one this class created).
    init(serialQueue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        configuration = DispatchQueueConfiguration(queue: serialQueue, leeway: leeway)
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

    /// Enqueues `action` on the serial queue (never inline; FIFO).
    ///
    /// - Returns: A disposable; disposing it before the action starts means
    ///   it never runs (guarantee 5 in Guarantees.md).
    public func schedule<StateType>(
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

    /// The serial queue, for callers that enqueue one reusable block many
    /// times with `async(execute:)` instead of calling `scheduleInOrder` (a
    /// new item, closure and block each time): what `observe(on:)` does for
    /// its drains. Such a block runs in the same FIFO order as
    /// `scheduleInOrder`'s actions. `nil` when this scheduler must see every
    /// action itself (`MainScheduler` counts what it has pending).
    var queueForReusableBlocks: DispatchQueue? {
        configuration.queue
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
        configuration.schedule(state, action: action)
    }

    /// Runs `action` on the serial queue once `dueTime` has passed.
    ///
    /// A negative `dueTime` is due at once; `.never` never runs. Disposing
    /// before the due time cancels the timer and releases the action at once.
    public func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        configuration.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// Runs `action` on the serial queue first after `startAfter`, then every
    /// `period`, at a fixed rate, natively on a repeating dispatch timer.
    ///
    /// - Returns: A `PeriodicDisposable` (cast to read `skippedTicks`). No tick
    ///   starts after `dispose()` returns; ticks never overlap (guarantee 6).
    /// - Precondition: `period` is zero or positive, and finite; negative or
    ///   `.never` stops the program with a message naming `period`. A zero
    ///   period, as in RxSwift, repeats the timer at libdispatch's shortest
    ///   interval: ticks follow each other as fast as the queue runs them
    ///   (each one a separate turn of the queue), and none counts as skipped.
    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        configuration.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }

    /// Runs `action` on the serial queue once `dueTime` has passed, letting
    /// the timer fire up to `leeway` late so that the system can coalesce its
    /// wakeup with others' (Combine's `tolerance`, libdispatch's leeway). The
    /// scheduler's own leeway (its initializer's) applies to the other
    /// overload; this one overrides it for this call only.
    ///
    /// A negative `dueTime` is due at once; `.never` never runs. A negative
    /// `leeway` counts as zero; `.never` lets the system fire as late as it
    /// likes. Disposing before the due time cancels the timer and releases
    /// the action at once.
    public func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        leeway: DispatchTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        configuration.scheduleRelative(state, dueTime: dueTime, leeway: leeway, action: action)
    }

    /// Runs `action` on the serial queue first after `startAfter`, then every
    /// `period`, at a fixed rate, natively on a repeating dispatch timer whose
    /// every fire may come up to `leeway` late, so that the system can
    /// coalesce wakeups (for thousands of timers this saves CPU per tick: see
    /// the `scale.timers` benchmark). Overrides the scheduler's leeway for
    /// this job only.
    ///
    /// - Returns: A `PeriodicDisposable`, as the other overload.
    /// - Precondition: `period` is zero or positive, and finite, as the other
    ///   overload. A negative `leeway` counts as zero; `.never` lets the
    ///   system fire as late as it likes.
    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        leeway: DispatchTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        configuration.schedulePeriodic(state, startAfter: startAfter, period: period, leeway: leeway, action: action)
    }
}
