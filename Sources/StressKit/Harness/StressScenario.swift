/// A race to hammer: two or three actors run concurrently against fresh
/// state, then an arbiter classifies what happened.
///
/// The runner calls `setUp()` once, then for every iteration `makeState`,
/// every actor's `act` (each on its own long-lived thread, released together
/// by a spin barrier), then `settle()` and `arbitrate` once all actors have
/// returned (iterations run in batches; see `StressRunner`). After
/// the last iteration it calls `tearDown()` and checks that `live` is back to
/// zero (guarantee 8 in Guarantees.md).
protocol StressScenario: AnyObject, Sendable {
    /// The per-iteration state the actors race on.
    associatedtype State: AnyObject
    /// The outcomes the arbiter can report.
    associatedtype Outcome: ScenarioOutcome

    /// A stable name, `kind.scheduler` (used by `--filter` and in the CSV).
    var name: String { get }
    /// The numbers of the guarantees in Guarantees.md that the scenario
    /// hammers, such as "5, 7".
    var guarantees: String { get }
    /// One sentence saying which race it is.
    var summary: String { get }
    /// How many actors race: 2 or 3.
    var actorCount: Int { get }
    /// Counts the scenario's live probes, states and captured tokens.
    var live: LiveCounter { get }

    /// Creates what the scenario needs for all its iterations (schedulers).
    func setUp()
    /// Creates fresh state for one iteration. `choices` is the seeded source
    /// of any choice the scenario makes (which scheduler, which variant).
    /// Provided when `State` is a `ScenarioState`.
    func makeState(_ choices: inout IterationChoices) -> State
    /// Runs actor `actor` (0-based) against `state`.
    func act(_ actor: Int, on state: State)
    /// Waits until nothing of the batch just run is still pending (flushes
    /// the scheduler's queue); called once per batch, before `arbitrate`.
    func settle()
    /// Says what happened in one iteration (after `settle()`).
    func arbitrate(_ state: State) -> Outcome
    /// Releases what `setUp()` made and waits until it is quiet.
    func tearDown()
    /// Why the scenario cannot run under `--explore`, or `nil` when it can:
    /// its actors are the only threads that touch the state, and they wait
    /// for each other only through sync points (the library's, or
    /// `Exploration.syncPoint`), so a schedule decides the whole run.
    var explorationBlocker: String? { get }
    /// How many threads an exploration gives the blocks the actors hand to
    /// queues (threads `actorCount` and up of a schedule); 0 when the actors
    /// hand nothing off.
    var explorationWorkers: Int { get }
    /// The most iterations of one batch, or `nil` for the runner's own: a
    /// scenario whose iteration waits on real time (a progress scenario)
    /// takes one per batch, so a scheduler that loses progress costs one
    /// bounded wait before the batch is graded, not dozens.
    var batchLimit: Int? { get }
    /// Runs one in this many of the iterations `--iterations` asks for (at
    /// least one): a scenario whose iteration costs milliseconds of real
    /// time keeps a run's time in step with the others'. 1 for most.
    var iterationDivisor: Int { get }
}

extension StressScenario {
    /// Does nothing.
    func setUp() {}
    /// Does nothing.
    func tearDown() {}
    /// Does nothing: for scenarios whose actors leave nothing pending.
    func settle() {}
    /// By default a scenario hands work to a scheduler's own threads, which
    /// no controller runs: not explorable.
    var explorationBlocker: String? {
        "its actions run on a scheduler's own threads, which the schedule controller does not run"
    }

    /// None: the actors hand nothing to a queue.
    var explorationWorkers: Int { 0 }

    /// The runner's own batch size.
    var batchLimit: Int? { nil }

    /// Every iteration asked for.
    var iterationDivisor: Int { 1 }

    /// The declared outcomes, in declaration order.
    var declaredOutcomes: [OutcomeDeclaration] {
        Outcome.allCases.map(OutcomeDeclaration.init)
    }
}

/// A scenario whose actors are the only threads that touch its state and
/// wait for each other only through sync points: `--explore` can run it.
protocol ExplorableScenario: StressScenario {}

extension ExplorableScenario {
    /// `nil`: the actors are the only threads, so a schedule decides the whole run.
    var explorationBlocker: String? { nil }
}

/// A scenario's per-iteration state made from the scenario's live counter
/// and the iteration's choices alone: a scenario whose `State` is one needs
/// no `makeState` of its own.
protocol ScenarioState: AnyObject {
    /// A fresh state for one iteration; what it allocates counts in `live`.
    init(_ live: LiveCounter, choices: inout IterationChoices)
}

extension StressScenario where State: ScenarioState {
    /// `State(live, choices: &choices)`.
    func makeState(_ choices: inout IterationChoices) -> State {
        State(live, choices: &choices)
    }
}
