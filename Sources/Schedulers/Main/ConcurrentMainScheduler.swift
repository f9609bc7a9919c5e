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
/// - `scheduleRelative` and `schedulePeriodic` (with or without a leeway of
///   the call's own) are `DispatchQueueScheduler`'s on `MainScheduler.instance`'s
///   queue and leeway (dispatch timers on the main queue; periodic is native,
///   fixed rate).
///
/// Guarantees (Guarantees.md): 5 (disposed before it starts, an action never
/// runs; disposed while running, it finishes and is not run again) and 6
/// (through `MainScheduler`'s periodic timer). The main queue must be driven:
/// see `MainScheduler.runMainQueue(until:)`.
public final class ConcurrentMainScheduler: DispatchQueueScheduler, @unchecked Sendable {
    /// The shared instance.
    public static let instance = ConcurrentMainScheduler(mainScheduler: MainScheduler.instance)

    private init(mainScheduler: MainScheduler) {
        super.init(configuration: mainScheduler.configuration)
    }

    /// Runs `action` at once on the main queue, else enqueues it there.
    ///
    /// - Returns: What the action returned when run at once; otherwise a
    ///   disposable that, disposed before the action starts, keeps it from running.
    public override func schedule<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        if MainQueueMarker.isOnMainQueue {
            return action(state)
        }
        return configuration.schedule(state, action: action)
    }
}
