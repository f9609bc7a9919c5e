import Foundation

extension SerialScheduler where Self: AnyObject {
    /// The `SerialExecutor` that runs jobs on this scheduler: the same
    /// executor on every call for as long as the scheduler lives. See
    /// `SerialSchedulerExecutor`.
    public var executor: SerialSchedulerExecutor {
        if let dispatchScheduler = self as? SerialDispatchQueueScheduler {
            return dispatchScheduler.executor
        }
        return SchedulerExecutorTable.shared.executor(for: self)
    }
}

/// The executors of serial schedulers that are neither dispatch schedulers
/// nor able to store one: one per live scheduler, dropped once the scheduler
/// is gone (checked whenever a scheduler gets its first executor).
final class SchedulerExecutorTable: @unchecked Sendable {
    static let shared = SchedulerExecutorTable()

    private struct Entry {
        weak var scheduler: AnyObject?
        let executor: SerialSchedulerExecutor
    }

    private let lock = Lock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    func executor<S: SerialScheduler & AnyObject>(for scheduler: S) -> SerialSchedulerExecutor {
        let id = ObjectIdentifier(scheduler)
        return lock.withLock {
            if let entry = entries[id], entry.scheduler === scheduler {
                return entry.executor
            }
            entries = entries.filter { $0.value.scheduler != nil }
            let executor = SerialSchedulerExecutor(WeakSerialScheduler(scheduler))
            entries[id] = Entry(scheduler: scheduler, executor: executor)
            return executor
        }
    }
}

/// Forwards to a scheduler without keeping it, so that the table's executor
/// does not keep its scheduler alive.
private struct WeakSerialScheduler: SerialScheduler {
    weak var scheduler: (any SerialScheduler & AnyObject)?

    init(_ scheduler: any SerialScheduler & AnyObject) {
        self.scheduler = scheduler
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleInOrder(state, action: action)
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        guard let scheduler else {
            preconditionFailure(
                "An actor enqueued a job on the executor of a deallocated scheduler: keep the scheduler alive (store it in the actor) for as long as the actor uses its executor"
            )
        }
        return scheduler.scheduleInOrder(state, action: action)
    }
}
