import Dispatch
import Foundation

/// What the schedulers running on a dispatch queue share: the clock, one-shot
/// timers and native periodic timers, each with the scheduler's leeway or a
/// leeway of the call's own. `SerialDispatchQueueScheduler` (and through it
/// `MainScheduler`), `ConcurrentDispatchQueueScheduler` and
/// `ConcurrentMainScheduler` are its subclasses; it has no public
/// initializer and cannot be subclassed outside the library.
///
/// - `schedule` enqueues with `DispatchQueue.async`, never inline (a subclass
///   may do otherwise and says so).
/// - `scheduleRelative` arms a one-shot `DispatchSourceTimer` on the queue
///   (on a `SerialDispatchQueueScheduler`, one whose work is enqueued on the
///   queue when it fires: see there); a negative due time is due at once,
///   `.never` never runs.
/// - `schedulePeriodic` is native (a repeating `DispatchSourceTimer` on the
///   queue, which `Scheduler`'s default implementation starts), fixed rate, and
///   returns a `PeriodicDisposable` (cast to read `skippedTicks`); ticks of
///   one job never overlap even on a concurrent queue, because a dispatch
///   source runs its handler serially. A zero period, as in RxSwift, repeats
///   the timer at libdispatch's shortest interval: ticks follow each other as
///   fast as the queue runs them (each one a separate turn of the queue), and
///   none counts as skipped. A `.never` period ticks once, after `startAfter`.
/// - `now` is `Date()`; due times are on `DispatchTime`, the monotonic clock.
///
/// Guarantees (Guarantees.md): 5 (disposed before it starts, an action never
/// runs; disposed while running, it finishes and is not run again) and 6 (no
/// periodic tick starts after `dispose()` returns; ticks never overlap).
public class DispatchQueueScheduler: PeriodicScheduler, @unchecked Sendable {
    /// The queue and the leeway: what every method here schedules with.
    let configuration: DispatchQueueConfiguration

    init(configuration: DispatchQueueConfiguration) {
        self.configuration = configuration
    }

    /// The queue every method here schedules on, for this package's tools
    /// (Stress holds a concurrent one's next action behind a barrier on it).
    package var queue: DispatchQueue {
        configuration.queue
    }

    /// The scheduler's notion of now: the wall clock. Due times do not use it.
    public var now: Date {
        Date()
    }

    /// `nil`: a dispatch queue scheduler makes no serial promise unless it is
    /// a `SerialDispatchQueueScheduler`, which overrides this. Declared here
    /// because this class's conformance is the one its subclasses inherit:
    /// the protocol's `SerialScheduler` default would not reach them.
    public var asSerialScheduler: (any SerialScheduler)? { nil }

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
    /// - Returns: A `PeriodicDisposable`, as `schedulePeriodic(_:startAfter:period:action:)`.
    /// - Precondition: `period` is zero or positive (finite, or `.never`:
    ///   one tick), as for `schedulePeriodic(_:startAfter:period:action:)`. A
    ///   negative `leeway` counts as zero; `.never` lets the system fire as
    ///   late as it likes.
    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        leeway: DispatchTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        DispatchPeriodicTimer(
            state: state, startAfter: startAfter, period: period,
            placement: configuration.periodicPlacement(leeway: leeway), action: action)
    }
}

extension DispatchQueueScheduler: DispatchTimerScheduler {
    /// On the queue, with the scheduler's leeway; the ticks run in the
    /// timer's handler.
    func periodicPlacement() -> DispatchPeriodicPlacement {
        configuration.periodicPlacement()
    }
}
