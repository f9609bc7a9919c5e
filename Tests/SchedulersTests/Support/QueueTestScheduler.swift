import Dispatch
import Foundation
import Schedulers

/// A test-only scheduler that runs actions on its own serial dispatch queue,
/// so a test can tell whether code ran on the scheduler (`isCurrent`).
///
/// Not `TestScheduler`: that one runs actions on the thread that drives it,
/// so it cannot show work moving to another thread or racing a dispose
/// made on the test's thread while an action runs.
///
/// The handle returned for an action skips it when disposed before it runs
/// and disposes what it returned when disposed after. `waitUntilIdle()`
/// returns once everything scheduled before the call has run.
final class QueueTestScheduler: ImmediateScheduler, @unchecked Sendable {
    private let queue: DispatchQueue
    private let key = DispatchSpecificKey<ObjectIdentifier>()

    init(label: String = "QueueTestScheduler") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
    }

    /// Whether the caller runs on this scheduler's queue.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self)
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let handle = SingleAssignmentDisposable()
        let work = UncheckedBox { action(state) }
        queue.async {
            guard !handle.isDisposed else { return }
            handle.setDisposable(work.value())
        }
        return handle
    }

    /// Blocks until everything scheduled so far has run.
    func waitUntilIdle() {
        queue.sync {}
    }
}
