import EventLoop
import Foundation
import Schedulers
import Synchronization

/// An `EventLoopScheduler` with one seeded fault.
final class FaultyEventLoopScheduler: SerialScheduler, @unchecked Sendable {
    enum Fault: Sendable {
        /// The 200th `dispose()` of a scheduled action takes a lock it already holds.
        case deadlockingDispose
        /// The 100th action traps.
        case trappingAction

        /// The registration's name.
        var name: String {
            switch self {
            case .deadlockingDispose: "deadlocking-event-loop"
            case .trappingAction: "trapping-event-loop"
            }
        }
    }

    private let loop = EventLoopScheduler(name: "faulty-event-loop")
    private let fault: Fault
    private let disposes = Atomic<Int>(0)
    private let actions = Atomic<Int>(0)

    init(fault: Fault) {
        self.fault = fault
    }

    /// Stops the loop's thread.
    func stop() {
        loop.stop()
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleInOrder(state, action: action)
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let scheduled = loop.scheduleInOrder(state) { [self] state in
            if fault == .trappingAction, actions.wrappingAdd(1, ordering: .relaxed).newValue == 100 {
                fatalError("FaultyEventLoopScheduler: the 100th action traps (EVENT_LOOP_EXAMPLE_FAULTS)")
            }
            return action(state)
        }
        return Disposables.create { [self] in
            if fault == .deadlockingDispose, disposes.wrappingAdd(1, ordering: .relaxed).newValue == 200 {
                let lock = NSLock()
                lock.lock()
                lock.lock()  // never returns: the lock is not recursive
            }
            scheduled.dispose()
        }
    }
}
