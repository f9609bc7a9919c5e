import Schedulers

/// What the single-assignment scenario needs of the disposable under test, so
/// the self-check can run the same scenario against a broken one.
protocol AssignOnceDisposable: Cancelable, AnyObject {
    /// Creates an empty disposable.
    init()
    /// Assigns the disposable (once).
    func setDisposable(_ disposable: Disposable)
}

extension SingleAssignmentDisposable: AssignOnceDisposable {}

/// SingleAssignmentDisposable: one thread assigns while one or two others dispose
/// (guarantee 7 in Guarantees.md).
///
/// The assigned disposable is disposed exactly once: by a disposer if the
/// assignment came first, by the assigning thread otherwise.
final class SingleAssignmentSetVersusDispose<Subject: AssignOnceDisposable>: ExplorableScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case setThenDisposed = "set-then-disposed"
        case disposedThenSet = "disposed-then-set"
        case neverDisposed = "assigned-never-disposed"
        case disposedTwice = "assigned-disposed-twice"
        case notMarkedDisposed = "isDisposed-false-after-dispose"

        var grade: Grade {
            switch self {
            case .setThenDisposed, .disposedThenSet: .acceptable
            case .neverDisposed, .disposedTwice, .notMarkedDisposed: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .setThenDisposed: "assigned first; a disposer disposed it"
            case .disposedThenSet: "disposed first; the assignment disposed it at once"
            case .neverDisposed: "the assigned disposable was never disposed"
            case .disposedTwice: "the assigned disposable was disposed more than once"
            case .notMarkedDisposed: "isDisposed was false right after dispose() returned"
            }
        }
    }

    final class State: ScenarioState, @unchecked Sendable {
        let subject = Subject()
        let assigned: ProbeDisposable
        let notMarked = Flag()

        init(_ live: LiveCounter, choices _: inout IterationChoices) {
            assigned = ProbeDisposable(live)
        }
    }

    let name: String
    let guarantees = "7"
    let summary: String
    let actorCount: Int
    let live = LiveCounter()

    /// Creates the scenario; `name` distinguishes the self-check's broken
    /// subject. `disposers` threads (1 or 2) race the assigning one.
    init(name: String = "single-assignment.set-vs-dispose", disposers: Int = 2) {
        precondition((1...2).contains(disposers), "SingleAssignmentSetVersusDispose(disposers:) must be 1 or 2")
        self.name = name
        actorCount = 1 + disposers
        let calls = disposers == 1 ? "a dispose() call" : "two dispose() calls"
        summary = "\(Subject.self): setDisposable races \(calls); the assigned one is disposed exactly once"
    }


    func act(_ actor: Int, on state: State) {
        if actor == 0 {
            state.subject.setDisposable(state.assigned)
        } else {
            state.subject.dispose()
            if !state.subject.isDisposed {
                state.notMarked.set()
            }
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        switch state.assigned.disposeCount {
        case 0: return .neverDisposed
        case 1: break
        default: return .disposedTwice
        }
        if state.notMarked.isSet {
            return .notMarkedDisposed
        }
        return state.assigned.disposedBy == 0 ? .disposedThenSet : .setThenDisposed
    }
}
