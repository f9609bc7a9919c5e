import Dispatch
import Foundation
import Synchronization

/// The ids of the executors isolated on one dispatch queue: the value the
/// queue keeps under `QueueIsolation.key`, retained by the queue.
///
/// Ids come from a counter that never repeats, so an id in here names one
/// executor for the life of the process: an executor made after another was
/// freed never finds the freed one's id.
final class QueueIsolationMarks: @unchecked Sendable {
    private let lock = Lock()
    /// Guarded by `lock`.
    private var ids: Set<UInt64> = []

    func contains(_ id: UInt64) -> Bool {
        lock.withLock { ids.contains(id) }
    }

    func insert(_ id: UInt64) {
        lock.withLock { _ = ids.insert(id) }
    }

    func remove(_ id: UInt64) {
        lock.withLock { _ = ids.remove(id) }
    }
}

/// How dispatch executors know their queue: one process-wide key (never
/// freed, so its address is never reused), under which each queue keeps the
/// ids of its executors.
enum QueueIsolation {
    static let key = DispatchSpecificKey<QueueIsolationMarks>()
    /// Makes finding or installing a queue's marks one step, so two executors
    /// made at once for one queue share one marks object.
    private static let installLock = Mutex<Void>(())
    private static let lastID = Atomic<UInt64>(0)

    /// A new id, never handed out before.
    static func nextID() -> UInt64 {
        lastID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The marks `queue` keeps, installed on first use.
    static func marks(of queue: DispatchQueue) -> QueueIsolationMarks {
        installLock.withLock { _ in
            if let marks = queue.getSpecific(key: key) {
                return marks
            }
            let marks = QueueIsolationMarks()
            queue.setSpecific(key: key, value: marks)
            return marks
        }
    }

    /// Whether the calling code runs on a queue (or a queue targeting it)
    /// that marks `id`.
    static func isCurrent(_ id: UInt64) -> Bool {
        DispatchQueue.getSpecific(key: key)?.contains(id) ?? false
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
