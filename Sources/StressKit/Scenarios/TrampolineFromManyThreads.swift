import Schedulers

/// CurrentThreadScheduler used from three threads at once
/// (guarantees 2 and 5 in Guarantees.md): each thread has its own trampoline, runs its own
/// actions in FIFO order on itself, skips a queued action disposed before it
/// starts, and reports `isScheduleRequired` correctly.
final class TrampolineFromManyThreads: ExplorableScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case inOrderOnOwnThread = "fifo-on-own-thread"
        case wrongOrder = "wrong-order"
        case ranOnOtherThread = "ran-on-another-thread"
        case disposedItemRan = "disposed-item-ran"
        case scheduleRequiredWrong = "isScheduleRequired-wrong"

        var grade: Grade {
            self == .inOrderOnOwnThread ? .acceptable : .forbidden
        }
        var meaning: String {
            switch self {
            case .inOrderOnOwnThread: "every thread ran its own actions, FIFO, nested ones after the outer"
            case .wrongOrder: "a thread's actions ran out of FIFO order, or some never ran"
            case .ranOnOtherThread: "an action ran on a thread other than the one that scheduled it"
            case .disposedItemRan: "a queued action disposed before it started ran anyway"
            case .scheduleRequiredWrong: "isScheduleRequired was wrong inside or outside an action"
            }
        }
    }

    final class State: ScenarioState, @unchecked Sendable {
        // Each actor writes only its own log, on its own thread.
        let logs = [ThreadLog(), ThreadLog(), ThreadLog()]
        let token: LiveToken

        init(_ live: LiveCounter, choices _: inout IterationChoices) {
            token = LiveToken(live)
        }
    }

    let name = "current-thread.many-threads"
    let guarantees = "2, 5"
    let summary = "CurrentThreadScheduler from 3 threads at once: per-thread FIFO, no cross-thread runs, disposed items skipped"
    let actorCount = 3
    let live = LiveCounter()

    /// The order each thread must see: outer (0), then 1, 3, then 1's child (4); 2 is disposed.
    static let expected = [0, 1, 3, 4]


    func act(_ actor: Int, on state: State) {
        let scheduler = CurrentThreadScheduler.instance
        if !CurrentThreadScheduler.isScheduleRequired {
            state.logs[actor].requiredWrong = true
        }
        func record(_ step: Int) {
            if CurrentActor.index != actor {
                state.logs[actor].ranElsewhere = true
            }
            state.logs[actor].steps.append(step)
        }
        _ = scheduler.schedule(()) { _ in
            record(0)
            if CurrentThreadScheduler.isScheduleRequired {
                state.logs[actor].requiredWrong = true
            }
            _ = scheduler.schedule(()) { _ in
                record(1)
                _ = scheduler.schedule(()) { _ in
                    record(4)
                    return Disposables.create()
                }
                return Disposables.create()
            }
            let second = scheduler.schedule(()) { _ in
                record(2)
                return Disposables.create()
            }
            _ = scheduler.schedule(()) { _ in
                record(3)
                return Disposables.create()
            }
            second.dispose()
            return Disposables.create()
        }
        if !CurrentThreadScheduler.isScheduleRequired {
            state.logs[actor].requiredWrong = true
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        if state.logs.contains(where: \.ranElsewhere) {
            return .ranOnOtherThread
        }
        if state.logs.contains(where: { $0.steps.contains(2) }) {
            return .disposedItemRan
        }
        if state.logs.contains(where: { $0.steps != Self.expected }) {
            return .wrongOrder
        }
        return state.logs.contains(where: \.requiredWrong) ? .scheduleRequiredWrong : .inOrderOnOwnThread
    }
}

/// What one thread saw; written only by that thread, read by the arbiter
/// after the end barrier.
final class ThreadLog: @unchecked Sendable {
    var steps: [Int] = []
    var ranElsewhere = false
    var requiredWrong = false
}
