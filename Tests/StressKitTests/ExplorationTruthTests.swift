import Foundation
import Synchronization
import XCTest
@testable import StressKit

/// A scenario whose thread `a` first stops at a spin-wait round (waiting
/// for the other thread) on every other schedule and at a load on the
/// others: not deterministic under the controller (a counter outlives the
/// state), so the runnable set of its second step changes between a
/// schedule and the next, which an exhaustive search must notice.
final class UnsteadyScenario: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case done
        var grade: Grade { .acceptable }
        var meaning: String { "both threads ran" }
    }

    final class State: @unchecked Sendable {
        let extraStep: Bool
        init(extraStep: Bool) { self.extraStep = extraStep }
    }

    let name = "test.unsteady"
    let guarantees = "test"
    let summary = "a spin-wait round every other schedule"
    let actorCount = 2
    let live = LiveCounter()
    let explorationBlocker: String? = nil
    private let schedules = Atomic<Int>(0)

    func makeState(_ choices: inout IterationChoices) -> State {
        State(extraStep: schedules.add(1, ordering: .relaxed).newValue % 2 == 0)
    }

    func act(_ actor: Int, on state: State) {
        Exploration.syncPoint(actor == 0 && state.extraStep ? .spinWait : .atomicLoad)
        Exploration.syncPoint(.atomicLoad)
    }

    func arbitrate(_ state: State) -> Outcome { .done }
}

/// Thread `a` passes 30 sync points and then marks itself done; thread `b`
/// passes one and reads the mark. Both outcomes are acceptable, but "a
/// finished first" needs `b` to wait through 30 choices: a uniform random
/// schedule gives it odds of 2^-30 (as a cancel that waits for every
/// element of `cancel-vs-values.task` under the library's sync points).
final class RaceToTheEndScenario: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case aFirst = "a-finished-first"
        case bFirst = "b-looked-first"
        var grade: Grade { .acceptable }
        var meaning: String { rawValue }
    }

    final class State: @unchecked Sendable {
        let aDone = Atomic<Bool>(false)
        let sawADone = Atomic<Bool>(false)
    }

    let name = "test.race-to-the-end"
    let guarantees = "test"
    let summary = "one thread's 30 steps against another's one"
    let actorCount = 2
    let live = LiveCounter()
    let explorationBlocker: String? = nil

    func makeState(_ choices: inout IterationChoices) -> State { State() }

    func act(_ actor: Int, on state: State) {
        if actor == 0 {
            for _ in 0..<30 {
                Exploration.syncPoint(.atomicUpdate)
            }
            state.aDone.store(true, ordering: .releasing)
        } else {
            Exploration.syncPoint(.atomicLoad)
            state.sawADone.store(state.aDone.load(ordering: .acquiring), ordering: .relaxed)
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        state.sawADone.load(ordering: .relaxed) ? .aFirst : .bFirst
    }
}

final class ExplorationTruthTests: XCTestCase {
    private final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var text: String { lock.withLock { lines.joined(separator: "\n") } }
    }

    // MARK: - Exhaustive divergence

    func testADivergentExhaustiveSearchReportsTheDivergenceAndFails() throws {
        var settings = ExplorationSettings(strategy: .exhaustive, seed: 1, limit: .iterations(1000))
        settings.leakGraceSeconds = 1
        let result = Explorer(settings).run(UnsteadyScenario())
        let exploration = try XCTUnwrap(result.exploration)
        let divergence = try XCTUnwrap(exploration.divergence, "the search replays prefixes that change")
        XCTAssertTrue(divergence.description.hasPrefix("diverged at step "), divergence.description)
        XCTAssertEqual(result.verdict, .failed, "a search that diverged did not run every schedule")
        XCTAssertEqual(result.count(of: "explore.diverged"), 1)
        let table = ResultTable.render(result)
        XCTAssertTrue(table.contains("not every schedule was run"), table)
        XCTAssertFalse(table.contains("every schedule was run for"), table)
    }

    func testADeterministicExhaustiveSearchDoesNotDiverge() throws {
        var settings = ExplorationSettings(strategy: .exhaustive, seed: 1, limit: .iterations(10_000))
        settings.preemptionBound = 10
        settings.leakGraceSeconds = 1
        let result = Explorer(settings).run(LostUpdateScenario())
        XCTAssertNil(result.exploration?.divergence)
        XCTAssertEqual(result.count(of: "explore.diverged"), 0)
        XCTAssertEqual(result.exploration?.exhausted, true)
    }

    // MARK: - Replay strings

    func testAScheduleRecordsItsBuildAndStepsAndRoundTrips() throws {
        var settings = ExplorationSettings(strategy: .pct, seed: 5, limit: .iterations(300))
        settings.leakGraceSeconds = 1
        let schedule = try XCTUnwrap(Explorer(settings).run(LostUpdateScenario(padding: 2)).exploration?.failingSchedule)
        XCTAssertEqual(schedule.build, Exploration.buildIdentity)
        XCTAssertEqual(schedule.runnable?.count, schedule.choices.count)
        XCTAssertEqual(schedule.stepKinds?.count, schedule.choices.count)
        let text = schedule.description
        XCTAssertEqual(text.split(separator: ":").count, 5, text)
        XCTAssertEqual(try Schedule(parsing: text), schedule)
    }

    func testAReplayThatLeavesTheRecordedScheduleStopsWithTheStepInsteadOfAVerdict() throws {
        // Recorded with two padding steps; replayed where thread a has three:
        // the same threads can run, but a stops at a load where the
        // recording has it at its store.
        var settings = ExplorationSettings(strategy: .random, seed: 3, limit: .iterations(300))
        settings.leakGraceSeconds = 1
        let schedule = try XCTUnwrap(Explorer(settings).run(LostUpdateScenario(padding: 2)).exploration?.failingSchedule)
        let output = Output()
        let command = StressCommand(scenarios: [LostUpdateScenario(padding: 3)], output: { output.append($0) })
        XCTAssertEqual(command.main(["--replay", schedule.description]), StressCommand.usageError)
        XCTAssertTrue(output.text.contains("diverged at step "), output.text)
        XCTAssertTrue(output.text.contains("expected thread "), output.text)
        XCTAssertTrue(output.text.contains("found atomic load"), output.text)
        XCTAssertFalse(output.text.contains("[FORBIDDEN]"), "no verdict: \(output.text)")
        XCTAssertFalse(output.text.contains("[acceptable]"), "no verdict: \(output.text)")
        // The same schedule on the build it was recorded for replays cleanly.
        let same = Output()
        let sameCommand = StressCommand(scenarios: [LostUpdateScenario(padding: 2)], output: { same.append($0) })
        XCTAssertEqual(sameCommand.main(["--replay", schedule.description]), StressCommand.failure, same.text)
        XCTAssertTrue(same.text.contains("1 x lost-update [FORBIDDEN]"), same.text)
    }

    func testARunnableSetThatDiffersIsADivergenceEvenWhenTheThreadCanRun() {
        // Thread a's recorded first step had only a runnable; here b can run too.
        var strategy = ReplayStrategy([0, 0], runnable: [0b01, 0b11])
        _ = strategy.beginSchedule()
        XCTAssertEqual(strategy.choose(among: [0, 1], previous: nil), 0)
        XCTAssertEqual(
            strategy.divergence?.description, "diverged at step 1: expected runnable {a}, then a, found runnable {a, b}")
    }

    func testAScheduleFromAnotherBuildIsRefusedAndAnOlderOneIsReplayedWithANote() throws {
        var settings = ExplorationSettings(strategy: .random, seed: 3, limit: .iterations(300))
        settings.leakGraceSeconds = 1
        let scenario = LostUpdateScenario(padding: 2)
        let schedule = try XCTUnwrap(Explorer(settings).run(scenario).exploration?.failingSchedule)
        let foreign = Schedule(
            scenario: schedule.scenario, stateSeed: schedule.stateSeed, choices: schedule.choices,
            build: "exploration+broken-cell", runnable: schedule.runnable, stepKinds: schedule.stepKinds)
        let output = Output()
        let command = StressCommand(scenarios: [scenario], output: { output.append($0) })
        XCTAssertEqual(command.main(["--replay", foreign.description]), StressCommand.usageError)
        XCTAssertTrue(
            output.text.contains("recorded on a build with exploration+broken-cell, this build has \(Exploration.buildIdentity)"),
            output.text)
        // The older text (scenario:seed:runs) still replays, unchecked, and says so.
        let older = Output()
        let olderCommand = StressCommand(scenarios: [scenario], output: { older.append($0) })
        let text = "\(schedule.scenario):\(String(schedule.stateSeed, radix: 16)):\(Schedule.encodeRuns(schedule.choices))"
        XCTAssertEqual(olderCommand.main(["--replay", text]), StressCommand.failure, older.text)
        XCTAssertTrue(older.text.contains("the replay could not check"), older.text)
    }

    func testBadStepTextSaysWhatIsExpected() {
        let cases: [(String, String)] = [
            ("test.lost-update:1:a:plain:a", "a step is the runnable threads' letters"),
            ("test.lost-update:1:a2:plain:aC", "records 2 steps but 1 runnable sets"),
            ("test.lost-update:1:b:plain:aC", "does not hold"),
            ("test.lost-update:1:a:pl ain:aC", "is not a build"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try Schedule(parsing: text), text) { error in
                XCTAssertTrue("\(error)".contains(message), "\(text): \(error)")
            }
        }
    }

    // MARK: - PCT

    /// Records the priorities' effect: which thread PCT picks.
    func testPCTGivesAStartedThreadAFreshPriorityNotItsSlotsLoweredOne() {
        // Depth 2: one change point. Find a seed whose change point lowers
        // the thread that runs first; after it is lowered, a fresh start of
        // the same slot must be able to outrank the other thread again.
        var freshWins = 0
        for seed in 0..<200 as Range<UInt64> {
            var strategy = PCTStrategy(threads: 2, depth: 2, seed: seed)
            _ = strategy.beginSchedule()
            var lowered: Int?
            var last = -1
            for _ in 0..<40 {
                let chosen = strategy.choose(among: [0, 1], previous: last)
                if last >= 0 && chosen != last && lowered == nil {
                    lowered = last
                }
                last = chosen
            }
            guard let lowered else { continue }
            // The lowered thread's slot takes a new block: a fresh priority,
            // above every lowered one, so it wins against the other about
            // half the time instead of never.
            strategy.threadStarted(lowered)
            if strategy.choose(among: [0, 1], previous: last) == lowered {
                freshWins += 1
            }
        }
        XCTAssertGreaterThan(freshWins, 0, "a started thread never outranked the other: it kept a lowered priority")
    }

    func testPCTCountsChangePointsOnlyAtStepsWithAChoice() {
        var strategy = PCTStrategy(threads: 2, depth: 3, seed: 9)
        for _ in 0..<50 {
            _ = strategy.beginSchedule()
            // Ten steps where only thread 0 can run, then ten with a choice.
            for _ in 0..<10 { _ = strategy.choose(among: [0], previous: 0) }
            for _ in 0..<10 { _ = strategy.choose(among: [0, 1], previous: nil) }
            strategy.endSchedule(steps: 20)
        }
        XCTAssertEqual(strategy.totalChoiceSteps, 500, "only the steps with two runnable threads count")
        XCTAssertEqual(strategy.changePointsDrawn, 100)
        XCTAssertGreaterThan(strategy.changePointsReached, 0)
        XCTAssertLessThanOrEqual(strategy.changePointsReached, strategy.changePointsDrawn)
    }

    func testAPCTRunReportsItsChangePointCounts() throws {
        var settings = ExplorationSettings(strategy: .pct, seed: 4, limit: .iterations(200))
        settings.leakGraceSeconds = 1
        let result = Explorer(settings).run(LostUpdateScenario(padding: 3))
        let points = try XCTUnwrap(result.exploration?.changePoints)
        XCTAssertEqual(points.drawn, 400, "depth 3: two change points a schedule")
        XCTAssertGreaterThan(points.reached, 0)
        XCTAssertGreaterThan(points.choiceSteps, 0)
        let table = ResultTable.render(result)
        XCTAssertTrue(table.contains("pct change points: \(points.reached) of 400 drawn were reached"), table)
        print("PCT change points (lost update, padding 3, 200 schedules): \(points.reached) of \(points.drawn) reached at \(points.choiceSteps) choice steps")
    }

    // MARK: - Random reaches every acceptable outcome

    func testRandomExplorationReachesAnOutcomeThatNeedsOneThreadToRunFarAhead() throws {
        var settings = ExplorationSettings(strategy: .random, seed: 1, limit: .iterations(1000))
        settings.leakGraceSeconds = 1
        let result = Explorer(settings).run(RaceToTheEndScenario())
        XCTAssertEqual(result.unseenAcceptable, [], ResultTable.render(result))
        XCTAssertGreaterThan(result.count(of: "a-finished-first"), 5, ResultTable.render(result))
        XCTAssertGreaterThan(result.count(of: "b-looked-first"), 500, "half the schedules stay uniform")
    }

    func testRandomExplorationReachesEveryAcceptableOutcomeOfTheCancelScenario() throws {
        var settings = ExplorationSettings(strategy: .random, seed: 1, limit: .iterations(600))
        settings.leakGraceSeconds = 2
        let result = Explorer(settings).run(ValuesCancelVersusDelivery())
        XCTAssertEqual(result.forbiddenCount, 0)
        XCTAssertEqual(result.unseenAcceptable, [], ResultTable.render(result))
    }
}
