import Schedulers

/// The outcomes of a scheduled action racing its disposal (DESIGN.md
/// guarantees 5 and 7), shared by every scheduler's scenario.
public enum ScheduledActionOutcome: String, ScenarioOutcome {
    case disposedBeforeStart = "disposed-before-start"
    case ranThenDisposed = "ran-then-disposed"
    case disposedWhileRunning = "disposed-while-running"
    case startedAfterDispose = "started-after-dispose-returned"
    case ranTwice = "ran-twice"
    case resultNotDisposed = "result-never-disposed"
    case resultDisposedTwice = "result-disposed-twice"
    case hung = "never-settled"

    public var id: String { rawValue }
    public var grade: Grade {
        switch self {
        case .disposedBeforeStart, .ranThenDisposed: .acceptable
        case .disposedWhileRunning: .interesting
        case .startedAfterDispose, .ranTwice, .resultNotDisposed, .resultDisposedTwice, .hung: .forbidden
        }
    }
    public var meaning: String {
        switch self {
        case .disposedBeforeStart: "dispose() won: the action never ran"
        case .ranThenDisposed: "the action ran, then dispose() disposed what it returned"
        case .disposedWhileRunning: "dispose() came while the action ran: it finished, its result was disposed after"
        case .startedAfterDispose: "the action started after a dispose() had returned"
        case .ranTwice: "the action ran more than once"
        case .resultNotDisposed: "the action ran but what it returned was never disposed"
        case .resultDisposedTwice: "what the action returned was disposed more than once"
        case .hung: "the scheduler did not run or drop the action within the time limit"
        }
    }
}

/// The per-iteration state of a scheduled action racing its disposal: what
/// the action saw when it started, and what it returned.
public final class ScheduledActionProbe: @unchecked Sendable {
    /// Set by a disposer just before it calls `dispose()`.
    public let disposeBegan = Flag()
    /// Set by a disposer right after its `dispose()` returned.
    public let disposeReturned = Flag()
    /// How many times the action started.
    public let starts = Counter()
    /// Set when the action started after some `dispose()` had returned.
    public let startedAfterDispose = Flag()
    /// Set when some `dispose()` had begun by the time the action ended.
    public let disposeOverlappedRun = Flag()
    /// What the action returns: must be disposed exactly once if it ran.
    public let result: ProbeDisposable
    /// Captured by the action, so a leaked action shows in the live count.
    let token: LiveToken
    /// The scheduled action's disposable, published by the scheduling actor.
    public let scheduled = Handoff<Disposable>()

    /// Creates the state for one iteration.
    public init(_ live: LiveCounter) {
        result = ProbeDisposable(live)
        token = LiveToken(live)
    }

    /// The action body: records what it saw and returns `result`.
    public func run() -> Disposable {
        if disposeReturned.isSet {
            startedAfterDispose.set()
        }
        starts.increment()
        if disposeBegan.isSet {
            disposeOverlappedRun.set()
        }
        return result
    }

    /// Disposes `disposable` as a racing actor: flags around the call.
    public func dispose(_ disposable: Disposable) {
        disposeBegan.set()
        disposable.dispose()
        disposeReturned.set()
    }

    /// Classifies the iteration. Call once nothing is pending any more.
    public func classify() -> ScheduledActionOutcome {
        if startedAfterDispose.isSet {
            return .startedAfterDispose
        }
        switch starts.value {
        case 0:
            return result.disposeCount == 0 ? .disposedBeforeStart : .resultDisposedTwice
        case 1:
            break
        default:
            return .ranTwice
        }
        switch result.disposeCount {
        case 0: return .resultNotDisposed
        case 1: return disposeOverlappedRun.isSet ? .disposedWhileRunning : .ranThenDisposed
        default: return .resultDisposedTwice
        }
    }
}
