import Synchronization
@testable import StressKit

/// Outcomes of the fake scenarios: one of each grade, and a second acceptable one.
enum FakeOutcome: String, ScenarioOutcome {
    case first = "first"
    case second = "second"
    case rare = "rare"
    case broken = "broken"

    var grade: Grade {
        switch self {
        case .first, .second: .acceptable
        case .rare: .interesting
        case .broken: .forbidden
        }
    }
    var meaning: String { "fake outcome \(rawValue)" }
}

/// A scenario whose arbiter is a closure of the iteration number, so tests
/// know exactly which outcomes the runner must count.
final class FakeScenario: StressScenario, @unchecked Sendable {
    final class State: @unchecked Sendable {
        let iteration: Int
        let pick: Int
        let delays: [Int]
        let order: [Int]
        let actorsRan = Mutex<[Int]>([])
        let token: LiveToken?

        init(iteration: Int, choices: inout IterationChoices, token: LiveToken?) {
            self.iteration = iteration
            pick = choices.pick(1_000)
            delays = choices.delays
            order = choices.order
            self.token = token
        }
    }

    let name: String
    let guarantees = "test"
    let summary = "a fake scenario for the harness tests"
    let actorCount: Int
    let live = LiveCounter()
    private let classify: @Sendable (Int) -> FakeOutcome
    private let leakOnePerIteration: Bool
    private let iterations = Atomic<Int>(0)
    private let recorded = Mutex<[State]>([])
    private var leaked: [LiveToken] = []

    init(
        name: String = "fake.scenario",
        actorCount: Int = 2,
        leak: Bool = false,
        classify: @escaping @Sendable (Int) -> FakeOutcome
    ) {
        self.name = name
        self.actorCount = actorCount
        self.classify = classify
        leakOnePerIteration = leak
    }

    /// Every state made, in order.
    var states: [State] {
        recorded.withLock { $0 }
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        let iteration = iterations.wrappingAdd(1, ordering: .relaxed).oldValue
        if leakOnePerIteration {
            leaked.append(LiveToken(live))
        }
        let state = State(iteration: iteration, choices: &choices, token: LiveToken(live))
        recorded.withLock { $0.append(state) }
        return state
    }

    func act(_ actor: Int, on state: State) {
        state.actorsRan.withLock { $0.append(actor) }
    }

    func arbitrate(_ state: State) -> FakeOutcome {
        classify(state.iteration)
    }

    func tearDown() {
        recorded.withLock { $0.removeAll() }
    }
}

/// Collects what a command prints.
final class OutputRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String {
        lines.withLock { $0.joined(separator: "\n") }
    }

    func record(_ text: String) {
        lines.withLock { $0.append(text) }
    }
}
