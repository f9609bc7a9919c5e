import Dispatch
import Schedulers

/// Periodic work: a `dispose()` from another thread races the ticks of a
/// fast periodic job (guarantees 6, 7 and 8 in Guarantees.md), natively on every
/// dispatch scheduler and emulated (recursive relative scheduling) on one.
///
/// "No tick starts after `dispose()` returns" cannot be judged by one tick:
/// the scheduler may commit to a tick just before `dispose()` returns and
/// run its body just after (the "tick already running"). Ticks never overlap,
/// so at most one tick can do that; a second tick that begins after
/// `dispose()` returned is a broken guarantee. The arbiter waits several
/// periods before judging, so such a tick would have had time to come.
final class PeriodicDisposeVersusTick: SchedulerScenario, StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case disposedBeforeFirstTick = "disposed-before-first-tick"
        case tickedThenDisposed = "ticked-then-disposed"
        case tickInFlight = "one-tick-in-flight-at-dispose"
        case ticksAfterDispose = "ticks-after-dispose-returned"
        case overlapped = "ticks-overlapped"
        case stateNotPassed = "state-not-passed-between-ticks"
        case hung = "never-settled"

    /// A scheduler that did not settle stops the scenario (see `ScenarioOutcome.stopsTheRun`).
    var stopsTheRun: Bool { self == .hung }
        var grade: Grade {
            switch self {
            case .disposedBeforeFirstTick, .tickedThenDisposed: .acceptable
            case .tickInFlight: .interesting
            case .ticksAfterDispose, .overlapped, .stateNotPassed, .hung: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .disposedBeforeFirstTick: "dispose() returned before the first tick; no tick ever ran"
            case .tickedThenDisposed: "one or more ticks ran, all before dispose() returned; none after"
            case .tickInFlight: "a tick committed before dispose() returned ran its body after it (allowed: at most one)"
            case .ticksAfterDispose: "two or more ticks began after dispose() returned"
            case .overlapped: "two ticks of the job ran at the same time"
            case .stateNotPassed: "a tick did not receive the state the previous tick returned"
            case .hung: "the scheduler did not drain within its stall timeout (10 s unless registered otherwise)"
            }
        }
    }

    /// The job's period.
    static let periodMicroseconds = 20

    final class State: ScenarioState, @unchecked Sendable {
        let ticks = Counter()
        let inFlight = Counter()
        let overlapped = Flag()
        let wrongState = Flag()
        let disposeReturned = Flag()
        let ticksAfterDispose = Counter()
        let job = Handoff<Disposable>()
        let startAfterMicroseconds: Int
        let disposeDelay: Int
        let token: LiveToken

        init(_ live: LiveCounter, choices: inout IterationChoices) {
            token = LiveToken(live)
            startAfterMicroseconds = choices.pick(10)
            disposeDelay = choices.pick(25_000)
        }

        /// One tick: checks overlap and state passing, counts ticks after dispose.
        func tick(_ expected: Int) -> Int {
            if disposeReturned.isSet {
                ticksAfterDispose.increment()
            }
            if inFlight.increment() > 1 {
                overlapped.set()
            }
            if ticks.increment() != expected + 1 {
                wrongState.set()
            }
            inFlight.decrement()
            return expected + 1
        }
    }

    private let emulated: Bool

    /// Creates the scenario for the registered scheduler, native or emulated.
    init(_ registration: StressScheduler, emulated: Bool = false) {
        self.emulated = emulated
        let kind = emulated ? "emulated" : registration.registration.isPeriodic ? "native" : "schedulePeriodic (the library's emulation: not a PeriodicScheduler)"
        // Explorable on the library's schedulers, natively and emulated: the
        // schedulers' timers pass the library's hand-off seam, where a schedule
        // controller makes them virtual, and the emulated job's clock reads pass
        // it too, where they see the controller's virtual clock (moved only by a
        // virtual timer's fire), so its due-time arithmetic is the same in every
        // replay. Workers: the timer's fire, the tick on its queue, and the
        // operation queue's tick operation.
        super.init(
            registration, name: "dispose-vs-periodic.\(registration.name)\(emulated ? "-emulated" : "")", guarantees: "6, 7, 8",
            summary: "\(registration.name) \(kind) periodic job (period \(Self.periodMicroseconds) µs): "
                + "dispose() from another thread races its ticks",
            explorationWorkers: 3)
    }


    func act(_ actor: Int, on state: State) {
        guard let target = scheduler.current else { return }
        if actor == 0 {
            let startAfter = RxTimeInterval.microseconds(state.startAfterMicroseconds)
            let period = RxTimeInterval.microseconds(Self.periodMicroseconds)
            let job: Disposable = if emulated {
                target.timed.unsafelyUnwrapped.schedulePeriodicEmulated(0, startAfter: startAfter, period: period) { state.tick($0) }
            } else {
                target.timed.unsafelyUnwrapped.schedulePeriodic(0, startAfter: startAfter, period: period) { state.tick($0) }
            }
            state.job.publish(job)
        } else {
            let job = state.job.wait()
            spinDelay(nanoseconds: state.disposeDelay)
            job.dispose()
            state.disposeReturned.set()
        }
    }

    func settle() {
        // Leave time for ticks that should not come, then drain the queue.
        spinDelay(nanoseconds: 10 * Self.periodMicroseconds * 1_000)
        scheduler.settle()
    }

    func arbitrate(_ state: State) -> Outcome {
        if !scheduler.settledInTime {
            return .hung
        }
        if state.overlapped.isSet {
            return .overlapped
        }
        if state.wrongState.isSet {
            return .stateNotPassed
        }
        switch state.ticksAfterDispose.value {
        case 0: break
        case 1: return .tickInFlight
        default: return .ticksAfterDispose
        }
        return state.ticks.value == 0 ? .disposedBeforeFirstTick : .tickedThenDisposed
    }
}
