import Dispatch
import Foundation
import Synchronization

/// The isolation marks one dispatch queue carries for its executors: for
/// each executor id inserted, a queue-specific value under a key of that id's
/// own.
///
/// A key per executor, not one key shared by all: `DispatchQueue.getSpecific`
/// returns the value of the innermost queue that has one for the key, so
/// with a shared key a queue targeting another one would hide the target's
/// marks as soon as it got marks of its own (code on the targeting queue
/// would stop counting as isolated to the target's executor once an
/// executor was made for the targeting queue). With a key per executor,
/// code on a queue counts as isolated to the executor of every queue it
/// runs on (the queue itself and the queues it targets), whatever executors
/// are made for the others.
///
/// Ids come from a counter that never repeats, and each mark is the id
/// itself, so a mark names one executor for the life of the process: an
/// executor made after another was freed never finds the freed one's mark
/// (`remove` takes the mark off the queue before the key can be freed).
final class QueueIsolationMarks: @unchecked Sendable {
    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Whether code running now is on this queue (or a queue targeting it)
    /// and the queue carries the mark of `id`.
    func contains(_ id: UInt64) -> Bool {
        QueueIsolation.isCurrent(id)
    }

    /// Marks the queue with `id`.
    func insert(_ id: UInt64) {
        let key = DispatchSpecificKey<UInt64>()
        QueueIsolation.registry.register(key, for: id)
        queue.setSpecific(key: key, value: id)
    }

    /// Takes the mark of `id` off the queue.
    func remove(_ id: UInt64) {
        guard let key = QueueIsolation.registry.unregister(id) else { return }
        queue.setSpecific(key: key, value: nil)
    }
}

/// The key of each live executor id. Guarded by its lock.
final class QueueIsolationKeys: @unchecked Sendable {
    private let lock = Lock()
    private var keys: [UInt64: DispatchSpecificKey<UInt64>] = [:]

    func register(_ key: DispatchSpecificKey<UInt64>, for id: UInt64) {
        lock.withLock { keys[id] = key }
    }

    func unregister(_ id: UInt64) -> DispatchSpecificKey<UInt64>? {
        lock.withLock { keys.removeValue(forKey: id) }
    }

    func key(for id: UInt64) -> DispatchSpecificKey<UInt64>? {
        lock.withLock { keys[id] }
    }
}

/// How dispatch executors know their queue: each executor marks its queue
/// under a key of its own (see `QueueIsolationMarks`).
enum QueueIsolation {
    static let registry = QueueIsolationKeys()
    private static let lastID = Atomic<UInt64>(0)

    /// A new id, never handed out before.
    static func nextID() -> UInt64 {
        lastID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The marks of `queue`, for an executor on it to insert its id into.
    static func marks(of queue: DispatchQueue) -> QueueIsolationMarks {
        QueueIsolationMarks(queue: queue)
    }

    /// Whether the calling code runs on a queue that carries the mark of
    /// `id`, or on a queue targeting (directly or not) such a queue.
    static func isCurrent(_ id: UInt64) -> Bool {
        guard let key = registry.key(for: id) else { return false }
        return DispatchQueue.getSpecific(key: key) == id
    }
}

/// The thread that runs one of an executor's jobs, for executors that cannot
/// ask their queue (the `.scheduler` kind): set for the length of the job.
///
/// Keeps the `Thread` object, so a thread that ended cannot be mistaken for
/// a new one. A serial scheduler never runs two jobs of one executor at
/// once; a job of another executor run inside one of this one's leaves this
/// slot alone, and the slot's previous value comes back on the way out.
final class RunningJobThread: @unchecked Sendable {
    private let lock = Lock()
    /// Guarded by `lock`.
    private var thread: Thread?

    func running(_ body: () -> Void) {
        let current = Thread.current
        let previous = lock.withLock {
            let previous = thread
            thread = current
            return previous
        }
        defer { lock.withLock { thread = previous } }
        body()
    }

    var isCurrentThread: Bool {
        let current = Thread.current
        return lock.withLock { thread === current }
    }
}
