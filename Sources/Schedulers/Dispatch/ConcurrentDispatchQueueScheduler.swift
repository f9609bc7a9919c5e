import Dispatch
import Foundation

/// Runs work on a dispatch queue, concurrently if the queue is concurrent:
/// suited to background work. A serial queue works too; it just runs one
/// action at a time.
///
/// Not a `SerialScheduler`: `observe(on:)` takes the generic path, which
/// keeps an observer from being called concurrently with itself.
///
/// - `schedule` enqueues with `DispatchQueue.async`, never inline.
/// - `scheduleRelative` arms a one-shot `DispatchSourceTimer` on the queue; a
///   negative due time is due at once, `.never` never runs.
/// - `schedulePeriodic` is native (a repeating `DispatchSourceTimer`), fixed
///   rate; ticks of one job never overlap even on a concurrent queue, because
///   a dispatch source runs its handler serially.
/// - `now` is `Date()`; due times are on `DispatchTime`, the monotonic clock.
///
/// Guarantees (Guarantees.md): 5 (disposed before it starts, an action never
/// runs; disposed while running, it finishes and is not run again) and 6 (no
/// periodic tick starts after `dispose()` returns; ticks never overlap).
///
/// Teardown (guarantee 9): the scheduler retains its queue. Work scheduled on
/// a suspended queue waits until the queue is resumed; disposing it
/// meanwhile means it never runs.
///
/// Leeway: timers get `leeway`, by default zero.
public class ConcurrentDispatchQueueScheduler: PeriodicScheduler, @unchecked Sendable {
    let configuration: DispatchQueueConfiguration

    /// The scheduler's notion of now: the wall clock. Due times do not use it.
    public var now: Date {
        Date()
    }

    /// Creates a scheduler running work on `queue`.
    ///
    /// - Parameters:
    ///   - queue: The queue, concurrent or serial, that runs the work.
    ///   - leeway: Timer leeway, zero by default.
    public init(queue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        configuration = DispatchQueueConfiguration(queue: queue, leeway: leeway)
    }

    /// Creates a scheduler on a new concurrent queue of quality of service `qos`.
    ///
    /// - Parameters:
    ///   - qos: The quality of service of the queue created.
    ///   - leeway: Timer leeway, zero by default.
    public convenience init(qos: DispatchQoS, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.init(
            queue: DispatchQueue(label: "rxswift.queue.\(qos.qosClass)", qos: qos, attributes: [.concurrent]),
            leeway: leeway
        )
    }

    /// Enqueues `action` on the queue with `async`.
    ///
    /// - Returns: A disposable; disposing it before the action starts means
    ///   it never runs (guarantee 5 in Guarantees.md).
    public func schedule<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        configuration.schedule(state, action: action)
    }

    /// Runs `action` on the queue once `dueTime` has passed.
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

    /// Runs `action` on the queue first after `startAfter`, then every
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

    /// Runs `action` on the queue once `dueTime` has passed, letting
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

    /// Runs `action` on the queue first after `startAfter`, then every
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
