import Foundation
import Schedulers

/// A deliberately broken `EventLoopScheduler`, for the example's stress test:
/// it must be caught.
///
/// Two bugs, both easy to write:
/// - the loop checks whether an action was disposed when it takes its batch
///   of ready work, not when the action starts: an action queued behind a
///   slow one is already admitted, so a `dispose()` that returns while the
///   slow one runs does not stop it (Stress: `ran-although-disposed-before-dequeue`);
/// - the flag is a plain `Bool` written by the disposing thread and read by
///   the loop's without synchronisation: a data race (ThreadSanitizer).
public final class RacyEventLoopScheduler: SerialScheduler, Scheduler, @unchecked Sendable {
    let loop: EventLoop

    public init(name: String = "racy-event-loop") {
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
        let item = RacyLoopItem { action(state) }
        loop.enqueue(item)
        return item
    }

    public func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        guard let delay = dueTime.loopNanoseconds else { return Disposables.create() }
        let item = RacyLoopItem { action(state) }
        loop.enqueue(item, due: EventLoop.now() &+ delay)
        return item
    }
}

final class RacyLoopItem: LoopWork, Disposable, @unchecked Sendable {
    /// BUG: no lock, no atomic; written by `dispose()` on any thread.
    private var disposed = false
    /// Only the loop's thread touches it after `init`.
    private var body: (() -> Disposable)?
    private let result = SingleAssignmentDisposable()

    init(_ body: @escaping () -> Disposable) {
        self.body = body
    }

    /// BUG: decided when the batch is taken, not when the action starts.
    func admit() -> Bool { !disposed }

    func run() {
        guard let body else { return }
        self.body = nil
        result.setDisposable(body())
    }

    func dispose() {
        disposed = true
        result.dispose()
    }
}
