// Stress-tests the deliberately broken RacyEventLoopScheduler: run it with
// --filter racy-event-loop; it must report a forbidden outcome and exit 1.
//
// With EVENT_LOOP_EXAMPLE_FAULTS set (CI sets it), two more schedulers show
// that a fault in the scheduler under test is a reported outcome, never the
// harness's own hang or crash: `deadlocking-event-loop`, whose 200th
// `dispose()` deadlocks, is reported `hung` with every thread's stack, and
// `trapping-event-loop`, whose 100th action traps, is reported `crashed`
// with its signal; the scenarios after them still run.
import EventLoop
import Foundation
import Schedulers
import StressKit
import Synchronization

var schedulers = [
    StressScheduler("racy-event-loop", isCurrent: { $0.isOnLoopThread }) {
        RacyEventLoopScheduler(name: "stress.racy-event-loop")
    }
]
if ProcessInfo.processInfo.environment["EVENT_LOOP_EXAMPLE_FAULTS"] != nil {
    schedulers.append(StressScheduler("deadlocking-event-loop") { FaultyEventLoopScheduler(fault: .deadlockingDispose) })
    schedulers.append(StressScheduler("trapping-event-loop") { FaultyEventLoopScheduler(fault: .trappingAction) })
}
StressMain.run(registering: schedulers)

/// An `EventLoopScheduler` with one seeded fault.
final class FaultyEventLoopScheduler: SerialScheduler, @unchecked Sendable {
    enum Fault {
        /// The 200th `dispose()` of a scheduled action takes a lock it already holds.
        case deadlockingDispose
        /// The 100th action traps.
        case trappingAction
    }

    private let loop = EventLoopScheduler(name: "stress.faulty-event-loop")
    private let fault: Fault
    private let disposes = Atomic<Int>(0)
    private let actions = Atomic<Int>(0)

    init(fault: Fault) {
        self.fault = fault
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
