/// What every scenario on one registered scheduler shares: its name and
/// summary, two actors, the live-instance counter, the scheduler (made afresh
/// by `setUp()`, drained and dropped by `tearDown()`), and whether a schedule
/// controller can explore it.
///
/// A scenario subclasses it and adds its own outcomes, state, actors,
/// `settle()` and arbiter (``StressScenario``).
class SchedulerScenario: @unchecked Sendable {
    /// The scenario's name: its kind, then the registration's name.
    let name: String
    /// The numbers of the guarantees (Guarantees.md) the scenario hammers.
    let guarantees: String
    /// One line on what races.
    let summary: String
    /// The hand-off workers an explored schedule needs (see
    /// `StressScenario.explorationWorkers`).
    let explorationWorkers: Int
    /// How many actors race in every iteration (two unless the scenario says otherwise).
    let actorCount: Int
    /// Counts the instances the scenario made that are still alive.
    let live = LiveCounter()
    /// `nil` on the library's schedulers: they hand their work through the
    /// library's seam, which the schedule controller takes over (see
    /// `StressScenario.explorationBlocker`). A user's scheduler runs its own
    /// threads, which no controller runs.
    let explorationBlocker: String?
    /// The scheduler the actors race on.
    let scheduler: ScenarioScheduler

    init(
        _ registration: StressScheduler, name: String, guarantees: String, summary: String, explorationWorkers: Int,
        actorCount: Int = 2, explorationBlocker: String? = nil
    ) {
        self.actorCount = actorCount
        scheduler = ScenarioScheduler(registration)
        self.explorationBlocker = explorationBlocker ?? scheduler.explorationBlocker
        self.name = name
        self.guarantees = guarantees
        self.summary = summary
        self.explorationWorkers = explorationWorkers
    }

    /// Makes the scheduler, before the first iteration.
    func setUp() {
        scheduler.setUp()
    }

    /// Drains and drops the scheduler, after the last iteration.
    func tearDown() {
        scheduler.tearDown()
    }
}
