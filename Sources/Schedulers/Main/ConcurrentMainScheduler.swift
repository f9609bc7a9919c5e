import Dispatch
import Foundation

/// Runs work on the main queue, inline whenever it is called there: for
/// subscribing to sequences whose `subscribe` must happen on the main thread
/// (`subscribe(on: ConcurrentMainScheduler.instance)`).
///
/// Unlike `MainScheduler` it does not keep FIFO order against work it has
/// already enqueued: called on the main queue it always runs at once. It is
/// therefore not a `SerialScheduler`; use `MainScheduler` with `observe(on:)`.
///
/// - `schedule` off the main queue enqueues with `DispatchQueue.main.async`.
/// - `scheduleRelative` and `schedulePeriodic` are `MainScheduler.instance`'s
///   (dispatch timers on the main queue; periodic is native, fixed rate).
///
/// Guarantees (Guarantees.md): 5 (disposed before it starts, an action never
/// runs; disposed while running, it finishes and is not run again) and 6
/// (through `MainScheduler`'s periodic timer). The main queue must be driven:
/// see `MainScheduler.runMainQueue(until:)`.
public final class ConcurrentMainScheduler: PeriodicScheduler, @unchecked Sendable {
    /// The shared instance.
    public static let instance = ConcurrentMainScheduler(mainScheduler: MainScheduler.instance)

    private let mainScheduler: MainScheduler

    private init(mainScheduler: MainScheduler) {
        self.mainScheduler = mainScheduler
    }

    /// The scheduler's notion of now: the wall clock. Due times do not use it.
    public var now: Date {
        mainScheduler.now
    }

    /// Runs `action` at once on the main queue, else enqueues it there.
    ///
    /// - Returns: What the action returned when run at once; otherwise a
    ///   disposable that, disposed before the action starts, keeps it from running.
    public func schedule<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        if MainQueueMarker.isOnMainQueue {
            return action(state)
        }
        return mainScheduler.configuration.schedule(state, action: action)
    }

    /// Runs `action` on the main queue once `dueTime` has passed: negative is
    /// due at once, `.never` never runs.
    public func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        mainScheduler.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// Runs `action` on the main queue periodically, natively, at a fixed rate.
    ///
    /// - Returns: A `PeriodicDisposable`; no tick starts after `dispose()` returns.
    /// - Precondition: `period` is zero or positive, and finite (see
    ///   `MainScheduler.schedulePeriodic` for a zero period).
    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        mainScheduler.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
