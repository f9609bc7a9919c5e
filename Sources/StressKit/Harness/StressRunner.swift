import Dispatch
import Foundation
import Synchronization
import ToolSupport

/// Runs scenarios: the iterations, the barrier, the counting and the leak check.
struct StressRunner: Sendable {
    /// How long each scenario runs.
    let limit: RunLimit
    /// The run seed; see `IterationChoices`.
    let seed: UInt64
    /// How long to wait, after tear-down, for tracked instances to be freed.
    let leakGraceSeconds: Double
    /// Iterations the actors run per crossing of the start barrier.
    let batchSize: Int
    /// Whether to stop after the first batch with a forbidden outcome (the
    /// self-check's detection runs measure the time to it).
    let stopAtFirstForbidden: Bool
    /// The longest one batch (its actors, `settle()` and the arbiter) may
    /// take before the watchdog reports it hung; the watchdog runs when both
    /// this and ``onHang`` are set.
    var hangSeconds: Double? = nil
    /// What happens to a hung batch's result (its counts so far and one
    /// forbidden ``StressRunner/hungOutcome``): called on the watchdog's
    /// thread while the batch's threads are still stuck, so it should end
    /// the process.
    var onHang: (@Sendable (ScenarioResult) -> Void)? = nil
    /// Where the counts so far go while the scenario runs (a child's progress
    /// file, which its parent reads if the child dies): called on the
    /// running thread after the first batch, then at most every
    /// ``progressInterval`` seconds.
    var onProgress: (@Sendable (ScenarioResult) -> Void)? = nil
    /// The least time between two ``onProgress`` reports.
    static let progressInterval: Double = 0.2

    /// The outcome a watchdog gives a batch that did not finish in time.
    static func hungOutcome(seconds: Double) -> OutcomeDeclaration {
        OutcomeDeclaration(
            id: "hung", grade: .forbidden,
            meaning: "a watched step did not finish within \(NumberFormat.twoDecimals(seconds)) s (the set-up, "
                + "which makes the scheduler, a batch's actors, settle() or arbiter, or the tear-down never returned)")
    }

    /// Creates a runner.
    ///
    /// - Parameter batchSize: Iterations per start barrier (as jcstress's
    ///   stride). Parking and waking a thread costs far more than a race, so
    ///   the actors run a batch of fresh states back to back, meeting at each
    ///   one (spinning briefly, never parking) so they stay in step.
    init(
        limit: RunLimit, seed: UInt64, leakGraceSeconds: Double = 5, batchSize: Int = 64,
        stopAtFirstForbidden: Bool = false
    ) {
        precondition(batchSize > 0, "StressRunner(batchSize:) must be positive")
        self.limit = limit
        self.seed = seed
        self.leakGraceSeconds = leakGraceSeconds
        self.batchSize = batchSize
        self.stopAtFirstForbidden = stopAtFirstForbidden
    }

    /// Runs `scenario` to the limit and returns its counts and verdict.
    func run<Scenario: StressScenario>(_ scenario: Scenario) -> ScenarioResult {
        let actorCount = scenario.actorCount
        precondition((1...8).contains(actorCount), "\(scenario.name): actorCount must be 1 to 8")
        var generator = SeededGenerator(seed: seed, scenario: scenario.name)
        let declared = Scenario.Outcome.allCases.map { $0 }
        var counts = [Scenario.Outcome: Int]()

        let progress = HangProgress(outcomes: declared.count)
        var watchdog: HangWatchdog?
        if let hangSeconds, let onHang {
            watchdog = HangWatchdog.reporting(
                scenario, declared: declared.map(OutcomeDeclaration.init), seed: seed, seconds: hangSeconds,
                started: monotonicNanoseconds(), progress: progress, onHang: onHang)
        }
        defer { watchdog?.stop() }
        // The set-up makes the scheduler (a registration's `make`): user
        // code, watched like the iterations.
        watchdog?.arm("setting the scenario up (making its scheduler: the registration's make)")
        scenario.setUp()
        watchdog?.disarm()
        let gang = ActorGang(parties: actorCount, name: scenario.name)
        let batch = IterationBatch<Scenario.State>(actorCount: actorCount)
        let work: @Sendable (Int) -> Void = { thread in
            var patience = IterationBatch<Scenario.State>.fullPatience
            for index in 0..<batch.states.count {
                let choices = batch.choices[index]
                let actor = choices.order[thread]
                // After a missed meeting, the late thread is probably not
                // running at all: wait only briefly until it shows up again.
                patience = batch.meet(at: index, patience: patience)
                    ? IterationBatch<Scenario.State>.fullPatience : IterationBatch<Scenario.State>.shortPatience
                CurrentActor.set(actor)
                spinDelay(nanoseconds: choices.delays[actor])
                scenario.act(actor, on: batch.states[index])
                CurrentActor.set(nil)
            }
        }

        let started = monotonicNanoseconds()
        let deadline: UInt64? = switch limit {
        case .iterations: nil
        case .duration(let seconds): started + UInt64(max(seconds, 0) * 1e9)
        }
        var iterations = 0
        var stoppedBecause: String?
        var reporter = ProgressReporter(scenario, declared: declared.map(OutcomeDeclaration.init), seed: seed,
            started: started, report: onProgress)
        while true {
            var size = min(batchSize, scenario.batchLimit ?? batchSize)
            if case .iterations(let asked) = limit {
                let total = max(asked / max(scenario.iterationDivisor, 1), 1)
                size = min(size, total - iterations)
            }
            if size <= 0 { break }
            if let deadline, iterations > 0, monotonicNanoseconds() >= deadline { break }

            watchdog?.arm("the batch of iterations \(iterations + 1)-\(iterations + size)")
            batch.reset()
            for _ in 0..<size {
                var choices = IterationChoices(actorCount: actorCount, generator: &generator)
                batch.states.append(scenario.makeState(&choices))
                batch.choices.append(choices)
            }
            gang.runTogether(work)
            scenario.settle()
            var sawForbidden = false
            var stopping: Scenario.Outcome?
            for state in batch.states {
                let outcome = scenario.arbitrate(state)
                counts[outcome, default: 0] += 1
                sawForbidden = sawForbidden || outcome.grade == .forbidden
                if outcome.stopsTheRun { stopping = outcome }
            }
            iterations += size
            batch.reset()
            watchdog?.disarm()
            progress.update(iterations: iterations, counts: declared.map { counts[$0] ?? 0 })
            reporter.batchDone(iterations: iterations, counts: declared.map { counts[$0] ?? 0 })
            if let stopping {
                stoppedBecause = "stopped after \(iterations) iterations: \(stopping.id) (\(stopping.meaning))"
                break
            }
            if sawForbidden && stopAtFirstForbidden { break }
        }
        let seconds = Double(monotonicNanoseconds() - started) / 1e9
        watchdog?.arm("stopping the actors and tearing the scenario down")
        gang.stop()
        scenario.tearDown()
        watchdog?.disarm()

        let leaked = Self.waitForZero(scenario.live, seconds: leakGraceSeconds)
        let rows = declared.map { ScenarioResult.Row(outcome: OutcomeDeclaration($0), count: counts[$0] ?? 0) }
        var result = ScenarioResult(
            name: scenario.name, guarantees: scenario.guarantees, summary: scenario.summary,
            seed: seed, iterations: iterations, seconds: seconds, rows: rows, leaked: leaked
        )
        result.stoppedBecause = stoppedBecause
        return result
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

/// Hands a run's counts so far to a report (``StressRunner/onProgress``)
/// after the first batch (or schedule), then at most every
/// ``StressRunner/progressInterval`` seconds.
struct ProgressReporter {
    private let name: String, guarantees: String, summary: String
    private let declared: [OutcomeDeclaration]
    private let seed: UInt64
    private let started: UInt64
    private let report: (@Sendable (ScenarioResult) -> Void)?
    private var last: UInt64?

    init<Scenario: StressScenario>(
        _ scenario: Scenario, declared: [OutcomeDeclaration], seed: UInt64, started: UInt64,
        report: (@Sendable (ScenarioResult) -> Void)?
    ) {
        name = scenario.name
        guarantees = scenario.guarantees
        summary = scenario.summary
        self.declared = declared
        self.seed = seed
        self.started = started
        self.report = report
    }

    /// A batch ended with these totals: reports them if it is time.
    mutating func batchDone(iterations: Int, counts: [Int]) {
        guard let report else { return }
        let now = monotonicNanoseconds()
        if let last, Double(now &- last) / 1e9 < StressRunner.progressInterval { return }
        last = now
        report(ScenarioResult.partial(
            name: name, guarantees: guarantees, summary: summary, seed: seed, declared: declared,
            iterations: iterations, counts: counts, seconds: Double(now &- started) / 1e9))
    }
}

extension ScenarioResult {
    /// A run's result so far: the declared outcomes with `counts`, nothing
    /// leaked (the live instances are counted only at the end).
    static func partial(
        name: String, guarantees: String, summary: String, seed: UInt64, declared: [OutcomeDeclaration],
        iterations: Int, counts: [Int], seconds: Double
    ) -> ScenarioResult {
        ScenarioResult(
            name: name, guarantees: guarantees, summary: summary, seed: seed, iterations: iterations,
            seconds: seconds, rows: zip(declared, counts).map { ScenarioResult.Row(outcome: $0, count: $1) }, leaked: 0)
    }
}

/// Where the runner hands a batch of states and choices to the actors.
/// Written before the start barrier, read after it: the barrier orders it.
final class IterationBatch<State>: @unchecked Sendable {
    var states: [State] = []
    var choices: [IterationChoices] = []
    private let actorCount: Int
    private let arrivals = Atomic<Int>(0)

    /// How long an actor waits for the others at a state before going on alone.
    static var fullPatience: UInt64 { 20_000 }
    /// The wait after a missed meeting.
    static var shortPatience: UInt64 { 1_000 }

    init(actorCount: Int) {
        self.actorCount = actorCount
    }

    func reset() {
        states.removeAll(keepingCapacity: true)
        choices.removeAll(keepingCapacity: true)
        arrivals.store(0, ordering: .relaxed)
    }

    /// Waits (spinning, bounded) until every actor reached state `index`, so
    /// the actors race on the same state. A thread that is not running cannot
    /// come; after `patience` nanoseconds the others go on without it.
    ///
    /// - Returns: Whether all actors met.
    func meet(at index: Int, patience: UInt64) -> Bool {
        let target = (index + 1) * actorCount
        if arrivals.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue >= target {
            return true
        }
        let deadline = monotonicNanoseconds() &+ patience
        while monotonicNanoseconds() < deadline {
            if arrivals.load(ordering: .acquiring) >= target {
                return true
            }
        }
        return false
    }
}
