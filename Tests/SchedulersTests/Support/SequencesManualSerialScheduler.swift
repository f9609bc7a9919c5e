import Schedulers

/// A serial scheduler whose actions run only when the test calls `runQueued()`,
/// on the test's thread: batches are deterministic, so allocation counts are too.
///
/// Both `schedule` and `scheduleInOrder` enqueue (never inline). Disposables it
/// returns do nothing: a sequence must not rely on them to keep its promises.
/// Single-threaded: only the test thread may use it.
///
/// Not `TestScheduler`: its disposables cancel queued work, which would hide a
/// sequence that relies on them, and its queue allocates per action, which
/// would move the allocation counts the tests assert.
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
