import Dispatch
import Foundation

/// A span of time, as RxSwift 6 spells it. `.never` means "never".
public typealias RxTimeInterval = DispatchTimeInterval

/// A point in time, as RxSwift 6 spells it. Schedulers report `now` as a
/// `Date`, but keep due times and periods on a monotonic clock, so a
/// wall-clock jump moves nothing that is already scheduled.
public typealias RxTime = Date

/// A scheduler that runs work as soon as it can: the smallest contract.
///
/// The action receives the state, so a caller can keep one action and pass a
/// changing state without allocating a closure per call.
public protocol ImmediateScheduler {
    /// Schedules `action` to run with `state`.
    ///
    /// - Returns: A disposable; disposing it before the action starts means the
    ///   action never runs, disposing it while the action runs lets the action
    ///   finish and then disposes what the action returned (guarantee 5 in Guarantees.md).
    func schedule<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable

    /// This scheduler itself if it makes the serial promise (conforms to
    /// `SerialScheduler`), else `nil`: how `observe(on:)` picks its path.
    ///
    /// Provided for every scheduler (`nil`) and for every `SerialScheduler`
    /// (the scheduler itself); the compiler picks the right one from the
    /// scheduler's conformances, so a scheduler has no reason to implement
    /// it. One that does must return `self` or `nil`. It is a requirement,
    /// not a cast, because the same question asked as a cast
    /// (`scheduler as? any SerialScheduler`) is a run-time conformance
    /// lookup, dearest when the answer is no, paid by every subscription.
    var asSerialScheduler: (any SerialScheduler)? { get }
}

extension ImmediateScheduler {
    /// `nil`: this scheduler makes no serial promise.
    public var asSerialScheduler: (any SerialScheduler)? { nil }
}

/// A scheduler that knows the time and can run work after a delay.
public protocol Scheduler: ImmediateScheduler {
    /// The scheduler's notion of the current time.
    var now: RxTime { get }

    /// Nanoseconds on the monotonic clock this scheduler keeps due times and
    /// periods on. The default reads `DispatchTime.now()`; a virtual-time
    /// scheduler returns its virtual clock, so that periodic emulation on it
    /// is deterministic.
    var monotonicNanoseconds: UInt64 { get }

    /// Schedules `action` to run with `state` once `dueTime` has passed.
    ///
    /// A negative `dueTime` is treated as zero (due at once); `.never` means
    /// the action never runs. Both are documented behaviour, not errors.
    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable

    /// Schedules `action` to run first after `startAfter`, then every `period`,
    /// each run receiving the state the previous one returned.
    ///
    /// A scheduler that does not implement this gets the fixed-rate emulation
    /// of `schedulePeriodicEmulated(_:startAfter:period:missedTicks:action:)`.
    ///
    /// A zero period is accepted, as in RxSwift: the job ticks as often as the
    /// scheduler allows (each builtin scheduler documents what that means).
    ///
    /// - Precondition: `period` is zero or positive, and finite; a negative or
    ///   `.never` period stops the program with a message naming `period`.
    func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable
}

/// A scheduler with native periodic scheduling.
///
/// Conforming tells callers that `Scheduler.schedulePeriodic` is implemented
/// by the scheduler itself (for example with a dispatch timer) rather than
/// emulated. It adds no requirement: a conforming scheduler implements
/// `schedulePeriodic` itself. The library's own (the dispatch and
/// operation-queue schedulers) get their dispatch timer from `Scheduler`'s
/// default implementation, which starts it where each of them places it.
public protocol PeriodicScheduler: Scheduler {}

/// The proof that a scheduler is serial, which gives it the `observe(on:)` fast path.
///
/// Conforming promises that every action scheduled through
/// `scheduleInOrder(_:action:)` runs after every action scheduled through it
/// before, one at a time, never concurrently with another, and never inline
/// inside the call. `CurrentThreadScheduler` does not conform: its queue is
/// per thread, so two threads can run its actions at once.
public protocol SerialScheduler: ImmediateScheduler {
    /// Enqueues `action`: it runs after everything enqueued before it, never
    /// concurrently with it, and never before this call returns.
    func scheduleInOrder<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable
}

extension SerialScheduler {
    /// This scheduler itself: it makes the serial promise.
    public var asSerialScheduler: (any SerialScheduler)? { self }
}

/// RxSwift 6's name for `ImmediateScheduler`.
public typealias ImmediateSchedulerType = ImmediateScheduler
/// RxSwift 6's name for `Scheduler`.
public typealias SchedulerType = Scheduler
/// The `Type`-suffixed name for `PeriodicScheduler`.
public typealias PeriodicSchedulerType = PeriodicScheduler
/// The `Type`-suffixed name for `SerialScheduler`.
public typealias SerialSchedulerType = SerialScheduler

extension Scheduler {
    /// Reads `DispatchTime.now()`: the uptime clock, which wall-clock changes do not move.
    public var monotonicNanoseconds: UInt64 {
        SyncPoint.uptimeNanoseconds()
    }
}

// MARK: - The labelled spellings of RxSwift's Schedulers guide

extension ImmediateScheduler {
    /// The spelling of `schedule(_:action:)` in RxSwift's Schedulers guide.
    public func schedule<StateType>(
        state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        schedule(state, action: action)
    }
}

extension Scheduler {
    /// The spelling of `scheduleRelative(_:dueTime:action:)` in RxSwift's Schedulers guide.
    public func scheduleRelative<StateType>(
        state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// The spelling of `schedulePeriodic(_:startAfter:period:action:)` in RxSwift's Schedulers guide.
    public func schedulePeriodic<StateType>(
        state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
