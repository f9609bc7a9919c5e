import Dispatch
import Foundation
import Schedulers
import Synchronization

/// A periodic job's fire that comes while its tick runs is not lost: the
/// tick it calls for takes its place in the queue when the fire comes, so
/// an action the running tick schedules after that fire runs after it.
///
/// One actor starts a periodic job (every ``period`` seconds). Its first
/// tick lasts past a fire: until a control timer of the same period (on
/// another queue) has fired after the tick began, and ``marginSeconds``
/// more, so a loaded machine's timer latency never counts. Then the tick
/// schedules an action and returns. Forbidden: the action ran before the
/// second tick (the fire during the first tick enqueued nothing, and the
/// second tick waited for a later fire).
final class PeriodicFireDuringTick: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case nextTickFirst = "next-tick-before-later-action"
        case actionFirst = "action-before-next-tick"
        case neverRan = "never-ran"

        var stopsTheRun: Bool { self == .neverRan }
        var grade: Grade {
            self == .nextTickFirst ? .acceptable : .forbidden
        }
        var meaning: String {
            switch self {
            case .nextTickFirst:
                "the tick of a fire that came during the first tick ran before an action that tick scheduled afterwards"
            case .actionFirst:
                "an action scheduled after a fire ran before that fire's tick (the fire's wake-up was lost)"
            case .neverRan:
                "the second tick or the action did not run within the stall timeout"
            }
        }
    }

    /// The job's period.
    static let period = 0.002
    /// How long the first tick goes on after the control timer fired during it.
    static let marginSeconds = 0.05

    final class State: @unchecked Sendable {
        let ticks = Atomic<Int>(0)
        /// How many ticks had run when the action ran; -1 until it ran.
        let ticksBeforeAction = Atomic<Int>(-1)
        /// The control timer's latest fire.
        let controlFire = Atomic<UInt64>(0)
        /// Signalled by the second tick and by the action.
        let ran = DispatchSemaphore(value: 0)
        let timedOut = Atomic<Bool>(false)
        let token: LiveToken

        init(_ live: LiveCounter) {
            token = LiveToken(live)
        }
    }

    let name: String
    let guarantees = "6, 10"
    let summary: String
    let actorCount = 1
    let live = LiveCounter()
    private let target: SerialProgressTarget
    private var made: SerialProgressTarget.Made?

    init(_ target: SerialProgressTarget) {
        self.target = target
        name = target.scenarioName("periodic-fire-during-tick")
        summary = "\(target.name): a tick lasts past a fire of its job, then schedules an action; the fire's tick "
            + "runs before that action"
    }

    var explorationBlocker: String? {
        target.blocker ?? "a tick that lasts past a fire is real time, which a schedule controller's virtual clock "
            + "does not pass while the tick waits"
    }

    var batchLimit: Int? { 1 }
    /// An iteration lasts the margin and a few periods, about 60 ms.
    var iterationDivisor: Int { 10_000 }

    func setUp() {
        made = target.make()
    }

    func tearDown() {
        made?.tearDown()
        made = nil
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live)
    }

    func act(_ actor: Int, on state: State) {
        guard let made else { return }
        let control = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        control.schedule(deadline: .now() + Self.period, repeating: Self.period, leeway: .nanoseconds(0))
        control.setEventHandler {
            state.controlFire.store(monotonicNanoseconds(), ordering: .releasing)
        }
        control.resume()
        let margin = UInt64(Self.marginSeconds * 1e9)
        let handle = made.periodic(Self.period) {
            let tick = state.ticks.add(1, ordering: .acquiringAndReleasing).newValue
            if tick == 2 { state.ran.signal() }
            guard tick == 1 else { return }
            let began = monotonicNanoseconds()
            let giveUp = began &+ 10_000_000_000
            // The first control fire after the tick began, then the margin.
            var fire: UInt64 = 0
            while true {
                let now = monotonicNanoseconds()
                if fire == 0 {
                    let latest = state.controlFire.load(ordering: .acquiring)
                    if latest > began { fire = latest }
                }
                if (fire != 0 && now > fire &+ margin) || now > giveUp { break }
                usleep(500)
            }
            made.action {
                state.ticksBeforeAction.store(state.ticks.load(ordering: .acquiring), ordering: .releasing)
                state.ran.signal()
            }
        }
        for _ in 0..<2 where state.ran.wait(timeout: .now() + 10) == .timedOut {
            state.timedOut.store(true, ordering: .relaxed)
        }
        handle.dispose()
        control.cancel()
    }

    func arbitrate(_ state: State) -> Outcome {
        guard !state.timedOut.load(ordering: .relaxed), made?.settle(10) ?? true else { return .neverRan }
        return state.ticksBeforeAction.load(ordering: .acquiring) >= 2 ? .nextTickFirst : .actionFirst
    }
}
