import Foundation
import Schedulers

/// A serial scheduler whose actions run only when the test calls `runQueued()`,
/// on the test's thread: batches are deterministic, so allocation counts are too.
///
/// Both `schedule` and `scheduleInOrder` enqueue (never inline). Disposables it
/// returns do nothing: a sequence must not rely on them to keep its promises.
/// Single-threaded: only the test thread may use it.
final class ManualSerialScheduler: SerialScheduler, @unchecked Sendable {
    private var queue: [() -> Void] = []
    /// How many actions were scheduled, through either method.
    private(set) var scheduledCount = 0

    init() {
        queue.reserveCapacity(64)
    }

    var queuedCount: Int {
        queue.count
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        enqueue(state, action: action)
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        enqueue(state, action: action)
    }

    private func enqueue<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduledCount += 1
        queue.append { _ = action(state) }
        return Disposables.create()
    }

    /// Runs queued actions in order, including those they queue, until none is left.
    func runQueued() {
        var index = 0
        while index < queue.count {
            let action = queue[index]
            index += 1
            action()
        }
        queue.removeAll(keepingCapacity: true)
    }
}

/// A scheduler that runs every action at once, inside the call.
final class InlineScheduler: ImmediateScheduler, @unchecked Sendable {
    private(set) var scheduledCount = 0

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduledCount += 1
        return action(state)
    }
}

/// A hot source for tests: `send` pushes events to the current subscriber.
///
/// The subscriber is kept under a lock, so a producer thread may send while
/// another thread disposes; sends from several threads at once would break
/// the Rx contract and are not made by the tests.
final class SequencesTestSubject<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var currentObserver: AnyObserver<Element>?
    private var subscriptions = 0
    private var disposals = 0

    var subscriptionCount: Int {
        lock.withLock { subscriptions }
    }

    var disposalCount: Int {
        lock.withLock { disposals }
    }

    lazy var observable: Observable<Element> = Observable.create { [weak self] observer in
        guard let self else { return Disposables.create() }
        self.lock.withLock {
            self.currentObserver = observer
            self.subscriptions += 1
        }
        return Disposables.create { [weak self] in
            guard let self else { return }
            self.lock.withLock {
                self.disposals += 1
                self.currentObserver = nil
            }
        }
    }

    func send(_ element: Element) {
        lock.withLock { currentObserver }?.on(.next(element))
    }

    func send(_ event: Event<Element>) {
        lock.withLock { currentObserver }?.on(event)
    }
}
