import Foundation
import Schedulers

/// A scheduler over a single-thread event loop: what a game or UI loop, or a
/// server's I/O loop, looks like to Rx code. A `SerialScheduler` (every
/// action runs on the loop's thread, one at a time, in the order scheduled,
/// never inline) and a `Scheduler` (delays through the loop's timer heap);
/// it does not implement periodic scheduling, so `schedulePeriodic` is the
/// library's emulation on top of `scheduleRelative`.
///
/// Disposal: disposing before the action starts means it never runs; the
/// loop decides at the moment it starts the action (under the item's lock),
/// so a `dispose()` that returned before that moment always wins. Disposing
/// while the action runs disposes what it returns as soon as it returns.
public final class EventLoopScheduler: SerialScheduler, Scheduler, @unchecked Sendable {
    let loop: EventLoop

    /// Starts a loop thread named `name`; it runs until ``stop()``.
    public init(name: String = "event-loop") {
        loop = EventLoop(name: name)
    }

    /// Ends the loop's thread, dropping what is still queued; returns once
    /// it has ended. The thread runs until this is called: a scheduler
    /// released without it leaves its thread behind.
    public func stop() {
        loop.stop()
    }

    /// Whether the calling thread is the loop's.
    public var isOnLoopThread: Bool { loop.isOnLoopThread }

    public var now: RxTime { Date() }

    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleInOrder(state, action: action)
    }

    public func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let item = LoopItem { action(state) }
        loop.enqueue(item)
        return item
    }

    public func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        guard let delay = dueTime.loopNanoseconds else { return Disposables.create() }
        let item = LoopItem { action(state) }
        loop.enqueue(item, due: EventLoop.now() &+ delay)
        return item
    }
}

/// One scheduled action: runs at most once, never after a `dispose()` that
/// returned before the loop started it.
final class LoopItem: LoopWork, Disposable, @unchecked Sendable {
    private let lock = NSLock()
    /// The action until it starts or is disposed (guarded by `lock`).
    private var body: (() -> Disposable)?
    /// What the action returned: disposed once, whether `dispose()` comes before or after.
    private let result = SingleAssignmentDisposable()

    init(_ body: @escaping () -> Disposable) {
        self.body = body
    }

    func admit() -> Bool { true }

    func run() {
        lock.lock()
        let body = self.body
        self.body = nil
        lock.unlock()
        // Disposed before it started: nothing runs.
        guard let body else { return }
        result.setDisposable(body())
    }

    func dispose() {
        lock.lock()
        let dropped = body
        body = nil
        lock.unlock()
        _ = dropped
        result.dispose()
    }
}

extension RxTimeInterval {
    /// The delay in nanoseconds (a negative one is zero); `nil` for `.never`.
    var loopNanoseconds: UInt64? {
        let nanoseconds: Int
        switch self {
        case .seconds(let value): nanoseconds = value.multipliedReportingOverflow(by: 1_000_000_000).partialValue
        case .milliseconds(let value): nanoseconds = value.multipliedReportingOverflow(by: 1_000_000).partialValue
        case .microseconds(let value): nanoseconds = value.multipliedReportingOverflow(by: 1_000).partialValue
        case .nanoseconds(let value): nanoseconds = value
        case .never: return nil
        @unknown default: return nil
        }
        return UInt64(max(nanoseconds, 0))
    }
}
