import ToolSupport

/// What exploration adds to a scenario's result.
struct ExplorationSummary: Sendable {
    /// The strategy, as printed (`random`, `pct (depth 3)`, `exhaustive (≤ 2 preemptions)`).
    let strategy: String
    /// Schedules run.
    let schedules: Int
    /// Exhaustive only: whether every schedule within the bound was run.
    let exhausted: Bool
    /// Exhaustive only: how many states (seeds of the scenario's own
    /// choices) were searched completely (1 when the state makes no choice).
    let statesSearched: Int
    /// Exhaustive only: whether the preemption bound left schedules out.
    let boundLeftSchedulesOut: Bool
    /// The first schedule that ended in a forbidden outcome (shrunk), if any.
    let failingSchedule: Schedule?
    /// Steps and switches of that schedule before shrinking.
    let unshrunk: (steps: Int, switches: Int)?
    /// Seconds from the start to the first forbidden outcome, if any.
    let secondsToFirstFailure: Double?
    /// Whether the library's own locks and atomics were sync points.
    let libraryInstrumented: Bool
    /// Exhaustive only: where a replayed prefix first found other threads
    /// runnable than the schedule it extends (the scenario is not
    /// deterministic under the controller), if it did. A search that
    /// diverged did not run every schedule, and fails.
    var divergence: ReplayDivergence? = nil
    /// PCT only: change points drawn, change points reached (at steps with
    /// more than one runnable thread), and such steps, over every schedule.
    var changePoints: (drawn: Int, reached: Int, choiceSteps: Int)? = nil
}

/// Settings of an exploration run.
struct ExplorationSettings: Sendable {
    /// Which strategy picks the schedules.
    var strategy: ExplorationStrategyKind
    /// Seed of the strategy's choices and of the states' choices.
    var seed: UInt64
    /// Schedules (`.iterations`) or seconds per scenario.
    var limit: RunLimit
    /// PCT's bug depth `d` (`d - 1` priority change points).
    var pctDepth: Int = 3
    /// Exhaustive search's most preemptions per schedule.
    var preemptionBound: Int = 2
    /// The most steps one schedule may take.
    var stepBudget: Int = 20_000
    /// Exhaustive only: the most states searched for a scenario whose state
    /// makes seeded choices (one search per state).
    var maximumExhaustiveStates = 16
    /// Whether to stop at the first forbidden outcome (the self-check's detection runs).
    var stopAtFirstFailure = false
    /// Whether to shrink the first failing schedule.
    var shrink = true
    /// How long to wait, after tear-down, for tracked instances to be freed.
    var leakGraceSeconds: Double = 5
    /// The longest one schedule (or the shrinking of a failing one) may take
    /// before the watchdog reports it hung; the watchdog runs when both this
    /// and ``onHang`` are set.
    var hangSeconds: Double? = nil
    /// What happens to a hung schedule's result; see `StressRunner.onHang`.
    var onHang: (@Sendable (ScenarioResult) -> Void)? = nil
    /// Where the counts so far go; see `StressRunner.onProgress`.
    var onProgress: (@Sendable (ScenarioResult) -> Void)? = nil

    /// Creates settings.
    init(strategy: ExplorationStrategyKind, seed: UInt64, limit: RunLimit) {
        self.strategy = strategy
        self.seed = seed
        self.limit = limit
    }

    /// How the strategy is printed.
    var strategyDescription: String {
        switch strategy {
        case .random: "random"
        case .pct: "pct (depth \(pctDepth))"
        case .exhaustive: "exhaustive (at most \(preemptionBound) preemptions)"
        }
    }
}

/// What one replay of a schedule gave.
struct ReplayResult: Sendable {
    /// The outcome (a declared one, or an exploration outcome such as a deadlock).
    let outcome: OutcomeDeclaration
    /// The choices actually made (the recorded ones, then non-preemptive ones).
    let choices: [Int]
    /// The first recorded step that this run did not follow (its thread
    /// could not run, or the runnable set differs from the recorded one), if
    /// any: the schedule does not fit this build of the scenario, and the
    /// outcome is not a verdict on it.
    let divergence: ReplayDivergence?
}

/// Runs scenarios under a schedule controller, one thread at a time, in the
/// order an exploration strategy picks; see `ScheduleController`.
struct Explorer: Sendable {
    /// The settings.
    let settings: ExplorationSettings

    /// Creates an explorer.
    init(_ settings: ExplorationSettings) {
        self.settings = settings
    }

    /// Explores `scenario` to the limit: its table's counts are per schedule.
    func run<Scenario: StressScenario>(_ scenario: Scenario) -> ScenarioResult {
        let declared = Array(Scenario.Outcome.allCases)
        var counts = [Scenario.Outcome: Int]()
        var abandoned: ScheduleEnd?
        var failure: (schedule: Schedule, outcome: String)?
        var secondsToFailure: Double?
        var generator = SeededGenerator(seed: settings.seed, scenario: scenario.name)
        // Exhaustive search replays prefixes: the state must be the same
        // through one search. A scenario whose state makes seeded choices
        // is searched again for further states while the limit allows.
        var fixedStateSeed = generator.next()
        var searchedStates = 0
        let threads = scenario.actorCount + scenario.explorationWorkers
        var strategy = makeStrategy(threads: threads)

        let progress = HangProgress(outcomes: declared.count)
        var watchdog: HangWatchdog?
        if let hangSeconds = settings.hangSeconds, let onHang = settings.onHang {
            watchdog = HangWatchdog.reporting(
                scenario, declared: declared.map(OutcomeDeclaration.init), seed: settings.seed, seconds: hangSeconds,
                started: monotonicNanoseconds(), progress: progress, onHang: onHang)
        }
        defer { watchdog?.stop() }
        watchdog?.arm("setting the scenario up (making its scheduler: the registration's make)")
        scenario.setUp()
        watchdog?.disarm()
        let controller = ScheduleController(
            parties: scenario.actorCount, workers: scenario.explorationWorkers, stepBudget: settings.stepBudget)
        let started = monotonicNanoseconds()
        let deadline: UInt64? = switch settings.limit {
        case .iterations: nil
        case .duration(let seconds): started + UInt64(max(seconds, 0) * 1e9)
        }
        var reporter = ProgressReporter(
            scenario, declared: declared.map(OutcomeDeclaration.init), seed: settings.seed, started: started,
            report: settings.onProgress)
        var schedules = 0
        var statesMatter = false
        var countedLastSearch = false
        var searchDivergence: ReplayDivergence?
        while true {
            if case .iterations(let total) = settings.limit, schedules >= total { break }
            if let deadline, schedules > 0, monotonicNanoseconds() >= deadline { break }
            if !strategy.beginSchedule() {
                searchDivergence = searchDivergence ?? (strategy as? ExhaustiveStrategy)?.divergence
                searchedStates += 1
                guard statesMatter, searchedStates < settings.maximumExhaustiveStates else {
                    countedLastSearch = true
                    break
                }
                fixedStateSeed = generator.next()
                strategy = makeStrategy(threads: threads)
                _ = strategy.beginSchedule()
            }
            let stateSeed = settings.strategy == .exhaustive ? fixedStateSeed : generator.next()
            watchdog?.arm("schedule \(schedules + 1) (state seed \(stateSeed))")
            let (outcome, choices, end, madeChoices, runnable) = Self.runOnce(
                scenario, stateSeed: stateSeed, on: controller, chooser: &strategy)
            watchdog?.disarm()
            statesMatter = statesMatter || madeChoices
            strategy.endSchedule(steps: choices.count)
            schedules += 1
            guard let outcome else {
                abandoned = end
                failure = (
                    Schedule(
                        scenario: scenario.name, stateSeed: stateSeed, choices: choices,
                        build: Exploration.buildIdentity, runnable: runnable, stepKinds: controller.stepKinds), "")
                secondsToFailure = Double(monotonicNanoseconds() - started) / 1e9
                break
            }
            counts[outcome, default: 0] += 1
            progress.update(iterations: schedules, counts: declared.map { counts[$0] ?? 0 })
            reporter.batchDone(iterations: schedules, counts: declared.map { counts[$0] ?? 0 })
            if outcome.grade == .forbidden && failure == nil {
                failure = (
                    Schedule(
                        scenario: scenario.name, stateSeed: stateSeed, choices: choices,
                        build: Exploration.buildIdentity, runnable: runnable, stepKinds: controller.stepKinds),
                    outcome.id)
                secondsToFailure = Double(monotonicNanoseconds() - started) / 1e9
                if settings.stopAtFirstFailure { break }
            }
        }
        let seconds = Double(monotonicNanoseconds() - started) / 1e9

        var reported = failure?.schedule
        var unshrunk: (steps: Int, switches: Int)?
        if let found = failure, abandoned == nil, settings.shrink {
            unshrunk = (found.schedule.choices.count, found.schedule.switches)
            watchdog?.arm("shrinking the failing schedule")
            reported = shrink(scenario, found.schedule, outcome: found.outcome, on: controller)
        }
        watchdog?.arm("stopping the controller and tearing the scenario down")
        controller.stop()
        scenario.tearDown()
        watchdog?.disarm()
        let leaked = abandoned == nil ? StressRunner.waitForZero(scenario.live, seconds: settings.leakGraceSeconds) : 0

        var rows = declared.map { ScenarioResult.Row(outcome: OutcomeDeclaration($0), count: counts[$0] ?? 0) }
        if let abandoned, let declaration = abandoned.outcome {
            rows.append(ScenarioResult.Row(outcome: declaration, count: 1))
        }
        let divergence = (strategy as? ExhaustiveStrategy)?.divergence ?? searchDivergence
        if let divergence {
            rows.append(ScenarioResult.Row(outcome: Self.divergedOutcome(divergence), count: 1))
        }
        var result = ScenarioResult(
            name: scenario.name, guarantees: scenario.guarantees, summary: scenario.summary,
            seed: settings.seed, iterations: schedules, seconds: seconds, rows: rows, leaked: leaked)
        result.exploration = ExplorationSummary(
            strategy: settings.strategyDescription, schedules: schedules,
            exhausted: (strategy as? ExhaustiveStrategy)?.isExhausted ?? false,
            statesSearched: searchedStates
                + (!countedLastSearch && (strategy as? ExhaustiveStrategy)?.isExhausted == true ? 1 : 0),
            boundLeftSchedulesOut: strategy.boundLeftSchedulesOut,
            failingSchedule: reported, unshrunk: unshrunk, secondsToFirstFailure: secondsToFailure,
            libraryInstrumented: Exploration.libraryIsInstrumented)
        result.exploration?.divergence = divergence
        if let pct = strategy as? PCTStrategy {
            result.exploration?.changePoints = (pct.changePointsDrawn, pct.changePointsReached, pct.totalChoiceSteps)
        }
        return result
    }

    /// Replays `schedule` on `scenario` `times` times (set up and torn down
    /// once); returns each replay's result.
    static func replay<Scenario: StressScenario>(
        _ schedule: Schedule, on scenario: Scenario, times: Int = 1
    ) -> [ReplayResult] {
        scenario.setUp()
        let controller = ScheduleController(parties: scenario.actorCount, workers: scenario.explorationWorkers)
        var results: [ReplayResult] = []
        for _ in 0..<times {
            var strategy = ReplayStrategy(schedule.choices, runnable: schedule.runnable)
            _ = strategy.beginSchedule()
            let (outcome, choices, end, _, _) = runOnce(
                scenario, stateSeed: schedule.stateSeed, on: controller, chooser: &strategy)
            let declaration = outcome.map(OutcomeDeclaration.init) ?? end.outcome.unsafelyUnwrapped
            let divergence = earliest(
                strategy.divergence, kindDivergence(recorded: schedule, found: controller.stepKinds, choices: choices))
            results.append(ReplayResult(outcome: declaration, choices: choices, divergence: divergence))
            if outcome == nil { break }
        }
        controller.stop()
        scenario.tearDown()
        return results
    }

    /// The first step of a replay whose chosen thread stopped at another
    /// kind of step than recorded, if any (a schedule that records none: nil).
    static func kindDivergence(recorded schedule: Schedule, found: [UInt8], choices: [Int]) -> ReplayDivergence? {
        guard let recorded = schedule.stepKinds else { return nil }
        for step in 0..<min(recorded.count, found.count, choices.count) where recorded[step] != found[step] {
            let thread = Schedule.letter(choices[step])
            return ReplayDivergence(
                step: step, expected: "thread \(thread) to stop at \(Schedule.describeKind(recorded[step]))",
                found: Schedule.describeKind(found[step]))
        }
        return nil
    }

    /// The divergence at the earlier step.
    static func earliest(_ first: ReplayDivergence?, _ second: ReplayDivergence?) -> ReplayDivergence? {
        guard let first else { return second }
        guard let second else { return first }
        return second.step < first.step ? second : first
    }

    /// One schedule: a fresh state, the actors under the controller, then the arbiter.
    /// The outcome is `nil` when the schedule did not complete (see `ScheduleEnd`).
    static func runOnce<Scenario: StressScenario, Chooser: ScheduleChooser>(
        _ scenario: Scenario, stateSeed: UInt64, on controller: ScheduleController, chooser: inout Chooser
    ) -> (outcome: Scenario.Outcome?, choices: [Int], end: ScheduleEnd, madeChoices: Bool, runnable: [UInt32]) {
        var stateGenerator = SeededGenerator(seed: stateSeed)
        var iterationChoices = IterationChoices(actorCount: scenario.actorCount, generator: &stateGenerator)
        let untouched = iterationChoices
        let state = UnsafeTransfer(controller.preparing { scenario.makeState(&iterationChoices) })
        let madeChoices = iterationChoices != untouched
        var recording = RecordingChooser(chooser)
        let (choices, end) = controller.run({ actor in
            CurrentActor.set(actor)
            scenario.act(actor, on: state.value)
            CurrentActor.set(nil)
        }, chooser: &recording)
        chooser = recording.inner
        guard end == .completed else { return (nil, choices, end, madeChoices, recording.runnable) }
        scenario.settle()
        return (scenario.arbitrate(state.value), choices, end, madeChoices, recording.runnable)
    }

    /// A schedule that ends in the same forbidden outcome with as few thread
    /// switches (then steps) as a bounded greedy search finds: drop a run or
    /// shorten it, replay (recorded choices that cannot run become
    /// non-preemptive ones), keep the result when it still fails the same
    /// way; finally the shortest prefix that still fails.
    func shrink<Scenario: StressScenario>(
        _ scenario: Scenario, _ schedule: Schedule, outcome: String, on controller: ScheduleController
    ) -> Schedule {
        var best = schedule.choices
        var bestRunnable = schedule.runnable ?? []
        var bestKinds = schedule.stepKinds ?? []
        var attempts = 0
        let maximumAttempts = 400
        func failsTheSame(_ candidate: [Int], lenient: Bool) -> (choices: [Int], runnable: [UInt32], kinds: [UInt8])? {
            guard attempts < maximumAttempts, !controller.isBroken else { return nil }
            attempts += 1
            var strategy = ReplayStrategy(candidate, lenient: lenient)
            _ = strategy.beginSchedule()
            let (result, choices, _, _, runnable) = Self.runOnce(
                scenario, stateSeed: schedule.stateSeed, on: controller, chooser: &strategy)
            guard let result, result.id == outcome, strategy.divergence == nil else { return nil }
            return (choices, runnable, controller.stepKinds)
        }
        func better(_ candidate: [Int], than current: [Int]) -> Bool {
            let (a, b) = (Self.switches(candidate), Self.switches(current))
            return a < b || (a == b && candidate.count < current.count)
        }
        var improved = true
        while improved && attempts < maximumAttempts {
            improved = false
            let runs = Self.runs(best)
            for index in runs.indices.reversed() {
                var dropped = runs
                dropped.remove(at: index)
                var shortened = runs
                shortened[index].count -= 1
                // Each also without its last run: `best` ends in the
                // non-preemptive tail of its replay, which can undo a drop.
                var candidates = [dropped, shortened]
                for candidate in [dropped, shortened] where candidate.count > 1 {
                    candidates.append(Array(candidate.dropLast()))
                }
                for candidate in candidates {
                    let choices = candidate.flatMap { repeatElement($0.thread, count: $0.count) }
                    if let actual = failsTheSame(choices, lenient: true), better(actual.choices, than: best) {
                        best = actual.choices
                        bestRunnable = actual.runnable
                        bestKinds = actual.kinds
                        improved = true
                        break
                    }
                }
                if improved { break }
            }
        }
        // The shortest prefix (at a run boundary) whose replay still fails the same way.
        let whole = Schedule(
            scenario: schedule.scenario, stateSeed: schedule.stateSeed, choices: best, build: schedule.build,
            runnable: schedule.build == nil || bestRunnable.count != best.count || bestKinds.count != best.count
                ? nil : bestRunnable,
            stepKinds: schedule.build == nil || bestRunnable.count != best.count || bestKinds.count != best.count
                ? nil : bestKinds)
        var length = 0
        for run in Self.runs(best) {
            if failsTheSame(Array(best.prefix(length)), lenient: false) != nil {
                return whole.prefix(length)
            }
            length += run.count
        }
        return whole
    }

    /// The forbidden row a diverged search adds to its table.
    static func divergedOutcome(_ divergence: ReplayDivergence) -> OutcomeDeclaration {
        OutcomeDeclaration(
            id: "explore.diverged", grade: .forbidden,
            meaning: "the exhaustive search \(divergence) (the scenario is not deterministic under the "
                + "controller): not every schedule was run")
    }

    static func runs(_ choices: [Int]) -> [(thread: Int, count: Int)] {
        var runs: [(thread: Int, count: Int)] = []
        for choice in choices {
            if let last = runs.last, last.thread == choice {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((choice, 1))
            }
        }
        return runs
    }

    static func switches(_ choices: [Int]) -> Int {
        max(runs(choices).count - 1, 0)
    }

    private func makeStrategy(threads: Int) -> any ExplorationStrategy {
        switch settings.strategy {
        case .random: RandomStrategy(seed: settings.seed)
        case .pct: PCTStrategy(threads: threads, depth: settings.pctDepth, seed: settings.seed)
        case .exhaustive: ExhaustiveStrategy(preemptionBound: settings.preemptionBound)
        }
    }
}

/// Carries a value the compiler cannot prove `Sendable` to the controlled
/// threads; the controller runs one of them at a time.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
