import Foundation
import Schedulers

/// The outcomes of a scheduled action racing its disposal
/// (guarantees 5 and 7 in Guarantees.md), shared by every scheduler's scenario.
///
/// "Started after dispose returned" cannot be judged from inside the action:
/// a correct scheduler commits to running an action (an atomic step) a few
/// instructions before the action's first statement, and a `dispose()` that
/// lands in between returns first. So the scenarios hold the action behind a
/// gate (the outer trampoline action, or a blocking action queued before it
/// on a serial queue): the action cannot be dequeued before the gate opens,
/// and a `dispose()` that returned before the gate opened must stop it.
enum ScheduledActionOutcome: String, ScenarioOutcome {
    case disposedBeforeStart = "disposed-before-start"
    case ranThenDisposed = "ran-then-disposed"
    case disposedWhileRunning = "disposed-while-running"
    case bodyAfterDisposeReturned = "committed-then-dispose-returned"
    case ranAfterDisposeReturned = "ran-although-disposed-before-dequeue"
    case ranTwice = "ran-twice"
    case resultNotDisposed = "result-never-disposed"
    case resultDisposedTwice = "result-disposed-twice"
    case hung = "never-settled"

    /// A scheduler that did not settle stops the scenario (see `ScenarioOutcome.stopsTheRun`).
    var stopsTheRun: Bool { self == .hung }
    var grade: Grade {
        switch self {
        case .disposedBeforeStart, .ranThenDisposed: .acceptable
        case .disposedWhileRunning, .bodyAfterDisposeReturned: .interesting
        case .ranAfterDisposeReturned, .ranTwice, .resultNotDisposed, .resultDisposedTwice, .hung: .forbidden
        }
    }
    var meaning: String {
        switch self {
        case .disposedBeforeStart: "dispose() won: the action never ran"
        case .ranThenDisposed: "the action ran, then dispose() disposed what it returned"
        case .disposedWhileRunning: "dispose() began while the action ran: it finished, its result was disposed after"
        case .bodyAfterDisposeReturned: "the scheduler committed to the action just before dispose() returned; its body ran after (allowed)"
        case .ranAfterDisposeReturned: "dispose() returned before the action could be dequeued, yet it ran"
        case .ranTwice: "the action ran more than once"
        case .resultNotDisposed: "the action ran but what it returned was not disposed once dispose() had returned and the scheduler settled"
        case .resultDisposedTwice: "what the action returned was disposed more than once"
        case .hung: "the scheduler neither ran nor dropped the action within its stall timeout (10 s unless registered otherwise)"
        }
    }
}

/// The per-iteration state of a scheduled action racing its disposal: the
/// gate, what the action saw when it started, and what it returned.
final class ScheduledActionProbe: @unchecked Sendable {
    /// Set just before the scheduled action's `dispose()` is called.
    let disposeBegan = Flag()
    /// Set right after the scheduled action's `dispose()` returned.
    let disposeReturned = Flag()
    /// Set by the gate when a `dispose()` had returned before it opened.
    let returnedBeforeGateOpened = Flag()
    /// How many times the action started.
    let starts = Counter()
    /// Set when the action's body began after some `dispose()` had returned.
    let bodyAfterDispose = Flag()
    /// Set when some `dispose()` had begun by the time the action's body ran.
    let disposeOverlappedRun = Flag()
    /// The gate and the disposer of the dispatch scenarios meet through these.
    let gateRunning = Flag()
    let disposerReady = Flag()
    /// The action's own disposable, kept by actor 0 for a last dispose.
    private var kept: Disposable?
    /// How many times the result had been disposed when that last dispose
    /// came: every racing `dispose()` had returned and the scheduler had
    /// settled, so a result of an action that ran is disposed by then.
    private var resultDisposalsBeforeLastDispose: Int?
    /// Set when the arbiter gave up waiting for the scheduler.
    let hung = Flag()
    /// What the action returns: must be disposed exactly once if it ran.
    let result: ProbeDisposable
    /// Captured by the action, so a leaked action shows in the live count.
    let token: LiveToken
    /// Holds the scheduled action's disposable: the disposer disposes it
    /// without waiting for it, as an operator's subscription would.
    let holder = SingleAssignmentDisposable()
    /// Seeded busy-waits in nanoseconds: before the gate opens, and before dispose().
    let gateDelay: Int
    let disposeDelay: Int

    /// Creates the state for one iteration.
    init(_ live: LiveCounter, choices: inout IterationChoices) {
        result = ProbeDisposable(live)
        token = LiveToken(live)
        gateDelay = choices.pick(2_000)
        disposeDelay = choices.pick(2_000)
    }

    /// The gate's body: lingers a seeded while (counted from the start
    /// barrier, like the disposer's delay), then notes whether a `dispose()`
    /// already returned.
    func holdGate() {
        spinDelay(nanoseconds: gateDelay)
        if disposeReturned.isSet {
            returnedBeforeGateOpened.set()
        }
    }

    /// The gate's body on a dispatch queue: meets the disposer (bounded),
    /// lingers a seeded while, then notes whether a `dispose()` already returned.
    func holdGateAfterMeeting() {
        gateRunning.set()
        waitBriefly(for: disposerReady)
        holdGate()
    }

    /// The racing disposer of the dispatch scenarios: meets the gate
    /// (bounded), then disposes as `disposeRacing()` does.
    func disposeRacingAfterMeeting() {
        disposerReady.set()
        waitBriefly(for: gateRunning)
        disposeRacing()
    }

    /// Keeps the scheduled action's disposable, to dispose it once more at the end.
    func keep(_ disposable: Disposable) {
        kept = disposable
    }

    /// Disposes the kept disposable again (after everything settled): must change nothing.
    func disposeKeptAgain() {
        resultDisposalsBeforeLastDispose = result.disposeCount
        kept?.dispose()
        kept = nil
    }

    /// Waits for `flag`, spinning briefly and then yielding (the thread that
    /// sets it may need this core), for at most about two milliseconds.
    private func waitBriefly(for flag: Flag) {
        if Exploration.isControlledThread {
            // The schedule decides when the other side gets there: wait at
            // sync points until it did (the controller sees a deadlock).
            while !flag.isSet && Exploration.syncPoint(.spinWait) {}
            if flag.isSet { return }
        }
        flag.spinBriefly()
    }

    /// The action body: records what it saw and returns `result`.
    func run() -> Disposable {
        if disposeReturned.isSet {
            bodyAfterDispose.set()
        }
        starts.increment()
        if disposeBegan.isSet {
            disposeOverlappedRun.set()
        }
        return result
    }

    /// The racing disposer: a seeded delay, then disposes `holder`.
    func disposeRacing() {
        spinDelay(nanoseconds: disposeDelay)
        holder.dispose()
    }

    /// Hands the scheduled action's disposable to `holder`, wrapped so that
    /// the flags mark its own `dispose()`: whichever thread runs it (the
    /// disposer, or the assigning actor when the holder was disposed first).
    func hold(_ scheduled: Disposable) {
        holder.setDisposable(Disposables.create { [self] in
            disposeBegan.set()
            scheduled.dispose()
            disposeReturned.set()
        })
    }

    /// Classifies the iteration. Call once nothing is pending any more.
    func classify() -> ScheduledActionOutcome {
        if hung.isSet {
            return .hung
        }
        let ran = starts.value
        if ran > 1 {
            return .ranTwice
        }
        if ran == 1 && returnedBeforeGateOpened.isSet {
            return .ranAfterDisposeReturned
        }
        if ran == 0 {
            return result.disposeCount == 0 ? .disposedBeforeStart : .resultDisposedTwice
        }
        if resultDisposalsBeforeLastDispose == 0 && disposeReturned.isSet {
            // Disposed only by the last, extra dispose(): the racing one lost it.
            return .resultNotDisposed
        }
        switch result.disposeCount {
        case 0: return .resultNotDisposed
        case 1: break
        default: return .resultDisposedTwice
        }
        if bodyAfterDispose.isSet {
            return .bodyAfterDisposeReturned
        }
        return disposeOverlappedRun.isSet ? .disposedWhileRunning : .ranThenDisposed
    }
}
