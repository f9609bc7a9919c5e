import Dispatch
import Foundation

/// Runs work on a dispatch queue, concurrently if the queue is concurrent:
/// suited to background work. A serial queue works too; it just runs one
/// action at a time.
///
/// Not a `SerialScheduler`: `observe(on:)` takes the generic path, which
/// keeps an observer from being called concurrently with itself.
///
/// Its scheduling methods are `DispatchQueueScheduler`'s, unchanged:
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
/// runs; disposed while running, it finishes and is not run again), 6 (no
/// periodic tick starts after `dispose()` returns; ticks never overlap) and,
/// on a concurrent queue, 10 (an action scheduled while others run starts at
/// once on another of the queue's threads; so do the jobs of `taskExecutor`,
/// up to one per processor).
///
/// Teardown (guarantee 9): the scheduler retains its queue. Work scheduled on
/// a suspended queue waits until the queue is resumed; disposing it
/// meanwhile means it never runs.
///
/// Leeway: timers get `leeway`, by default zero.
public class ConcurrentDispatchQueueScheduler: DispatchQueueScheduler, @unchecked Sendable {
    /// Creates a scheduler running work on `queue`.
    ///
    /// - Parameters:
    ///   - queue: The queue, concurrent or serial, that runs the work.
    ///   - leeway: Timer leeway, zero by default.
    public init(queue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        super.init(configuration: DispatchQueueConfiguration(queue: queue, leeway: leeway))
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
}
