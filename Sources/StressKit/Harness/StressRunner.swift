import Dispatch
import Synchronization

/// Runs scenarios: the iterations, the barrier, the counting and the leak check.
public struct StressRunner: Sendable {
    /// How long each scenario runs.
    public let limit: RunLimit
    /// The run seed; see `IterationChoices`.
    public let seed: UInt64
    /// How long to wait, after tear-down, for tracked instances to be freed.
    public let leakGraceSeconds: Double

    /// Creates a runner.
    public init(limit: RunLimit, seed: UInt64, leakGraceSeconds: Double = 5) {
        self.limit = limit
        self.seed = seed
        self.leakGraceSeconds = leakGraceSeconds
    }

    /// Runs `scenario` to the limit and returns its counts and verdict.
    public func run<Scenario: StressScenario>(_ scenario: Scenario) -> ScenarioResult {
        let actorCount = scenario.actorCount
        precondition((1...8).contains(actorCount), "\(scenario.name): actorCount must be 1 to 8")
        var generator = SeededGenerator(seed: seed, scenario: scenario.name)
        let declared = Scenario.Outcome.allCases.map { $0 }
        var counts = [Scenario.Outcome: Int]()

        scenario.setUp()
        let gang = ActorGang(parties: actorCount, name: scenario.name)
        let slot = IterationSlot<Scenario.State>(actorCount: actorCount)
        let work: @Sendable (Int) -> Void = { thread in
            let actor = slot.choices.order[thread]
            CurrentActor.set(actor)
            spinDelay(nanoseconds: slot.choices.delays[actor])
            scenario.act(actor, on: slot.state.unsafelyUnwrapped)
            CurrentActor.set(nil)
        }

        let started = DispatchTime.now().uptimeNanoseconds
        let deadline: UInt64? = switch limit {
        case .iterations: nil
        case .duration(let seconds): started + UInt64(max(seconds, 0) * 1e9)
        }
        var iterations = 0
        while true {
            if case .iterations(let total) = limit, iterations >= total { break }
            if let deadline, iterations > 0, DispatchTime.now().uptimeNanoseconds >= deadline { break }

            var choices = IterationChoices(actorCount: actorCount, generator: &generator)
            let state = scenario.makeState(&choices)
            slot.choices = choices
            slot.state = state
            gang.runTogether(work)
            slot.state = nil
            counts[scenario.arbitrate(state), default: 0] += 1
            iterations += 1
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        gang.stop()
        scenario.tearDown()

        let leaked = Self.waitForZero(scenario.live, seconds: leakGraceSeconds)
        let rows = declared.map { ScenarioResult.Row(outcome: OutcomeDeclaration($0), count: counts[$0] ?? 0) }
        return ScenarioResult(
            name: scenario.name, guarantees: scenario.guarantees, summary: scenario.summary,
            seed: seed, iterations: iterations, seconds: seconds, rows: rows, leaked: leaked
        )
    }

    /// Waits up to `seconds` for `live` to reach zero (work still draining
    /// on a queue may hold the last references); returns what is left.
    static func waitForZero(_ live: LiveCounter, seconds: Double) -> Int {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var backoff = Backoff()
        while live.value != 0 && DispatchTime.now().uptimeNanoseconds < deadline {
            backoff.pause()
        }
        return live.value
    }
}

/// Where the runner hands an iteration's state and choices to the actors.
/// Written before the start barrier, read after it: the barrier orders it.
final class IterationSlot<State>: @unchecked Sendable {
    var state: State?
    var choices: IterationChoices

    init(actorCount: Int) {
        var generator = SeededGenerator(seed: 0)
        choices = IterationChoices(actorCount: actorCount, generator: &generator)
    }
}
