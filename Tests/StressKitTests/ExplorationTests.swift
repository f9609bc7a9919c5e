import Foundation
import Synchronization
import XCTest
@testable import StressKit

/// A counter incremented by a load and a separate store (a lost-update bug),
/// each a sync point, by every actor.
final class LostUpdateScenario: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case allCounted = "all-counted"
        case lostUpdate = "lost-update"

        var grade: Grade { self == .allCounted ? .acceptable : .forbidden }
        var meaning: String { self == .allCounted ? "every increment counted" : "an increment was lost" }
    }

    final class State: @unchecked Sendable {
        let counter = Atomic<Int>(0)
        let token: LiveToken

        init(_ live: LiveCounter) {
            token = LiveToken(live)
        }
    }

    let name = "test.lost-update"
    let guarantees = "test"
    let summary = "two increments by load then store"
    let actorCount: Int
    let live = LiveCounter()
    let explorationBlocker: String? = nil
    /// Sync points each actor passes before its load (more steps, same bug).
    let padding: Int

    init(actorCount: Int = 2, padding: Int = 0) {
        self.actorCount = actorCount
        self.padding = padding
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live)
    }

    func act(_ actor: Int, on state: State) {
        for _ in 0..<padding {
            Exploration.syncPoint(.atomicLoad)
        }
        Exploration.syncPoint(.atomicLoad)
        let value = state.counter.load(ordering: .acquiring)
        Exploration.syncPoint(.atomicStore)
        state.counter.store(value + 1, ordering: .releasing)
    }

    func arbitrate(_ state: State) -> Outcome {
        state.counter.load(ordering: .acquiring) == actorCount ? .allCounted : .lostUpdate
    }
}

/// Runs `body` on `parties` controlled threads under `strategy` until it is
/// exhausted or `limit` schedules ran; returns every schedule's choices.
private func explore<Strategy: ExplorationStrategy>(
    parties: Int, limit: Int, strategy: inout Strategy, _ body: @escaping (Int) -> Void
) -> [[Int]] {
    let controller = ScheduleController(parties: parties)
    defer { controller.stop() }
    return exploreSchedules(on: controller, limit: limit, strategy: &strategy, makeRecord: {}) { _ in body }
        .map(\.choices)
}

/// Each thread passes two sync points: three steps (start to the first,
/// first to second, second to the end).
private func twoSyncPoints(_ party: Int) {
    Exploration.syncPoint(.atomicUpdate)
    Exploration.syncPoint(.atomicUpdate)
}

final class ExplorationTests: XCTestCase {
    func testExhaustiveSearchRunsEveryInterleavingOfTwoThreadsOnceWhenUnbounded() {
        var strategy = ExhaustiveStrategy(preemptionBound: 10)
        let schedules = explore(parties: 2, limit: 1_000, strategy: &strategy, twoSyncPoints)
        // Two threads of three steps each: C(6, 3) = 20 interleavings.
        XCTAssertEqual(schedules.count, 20)
        XCTAssertEqual(Set(schedules).count, 20)
        XCTAssertTrue(schedules.allSatisfy { $0.count == 6 && $0.filter { $0 == 0 }.count == 3 })
        XCTAssertTrue(strategy.isExhausted)
        XCTAssertFalse(strategy.boundLeftSchedulesOut)
    }

    func testExhaustiveSearchWithinThePreemptionBoundCountsExactlyAndSaysTheBoundCut() {
        // With two threads a schedule of k runs has k - 2 preemptions (the
        // last switch is from a thread that returned). Runs of 3 steps split
        // into blocks: 2 schedules of 2 runs, 4 of 3, 8 of 4, 4 of 5, 2 of 6.
        for (bound, expected) in [(0, 2), (1, 6), (2, 14), (3, 18), (4, 20)] {
            var strategy = ExhaustiveStrategy(preemptionBound: bound)
            let schedules = explore(parties: 2, limit: 1_000, strategy: &strategy, twoSyncPoints)
            XCTAssertEqual(schedules.count, expected, "bound \(bound)")
            XCTAssertEqual(Set(schedules).count, expected, "bound \(bound)")
            XCTAssertTrue(schedules.allSatisfy { Explorer.switches($0) - 1 <= bound }, "bound \(bound)")
            XCTAssertTrue(strategy.isExhausted)
            XCTAssertEqual(strategy.boundLeftSchedulesOut, bound < 4, "bound \(bound)")
        }
    }

    func testRandomAndPCTChooseTheSameSchedulesForTheSameSeedAndOthersForAnother() {
        let body: (Int) -> Void = { _ in
            for _ in 0..<4 {
                Exploration.syncPoint(.atomicUpdate)
            }
        }
        func randomSchedules(_ seed: UInt64) -> [[Int]] {
            var strategy = RandomStrategy(seed: seed)
            return explore(parties: 3, limit: 40, strategy: &strategy, body)
        }
        func pctSchedules(_ seed: UInt64) -> [[Int]] {
            var strategy = PCTStrategy(threads: 3, depth: 3, seed: seed)
            return explore(parties: 3, limit: 40, strategy: &strategy, body)
        }
        XCTAssertEqual(randomSchedules(42), randomSchedules(42))
        XCTAssertNotEqual(randomSchedules(42), randomSchedules(43))
        XCTAssertEqual(pctSchedules(42), pctSchedules(42))
        XCTAssertNotEqual(pctSchedules(42), pctSchedules(43))
        // PCT with depth 1 never preempts: each schedule is three runs.
        var depthOne = PCTStrategy(threads: 3, depth: 1, seed: 5)
        let schedules = explore(parties: 3, limit: 20, strategy: &depthOne, body)
        XCTAssertTrue(schedules.allSatisfy { Explorer.switches($0) == 2 })
    }

    func testEveryStrategyFindsTheLostUpdateAndItsScheduleReplaysTheSameOutcomeAHundredTimes() throws {
        for strategy in ExplorationStrategyKind.allCases {
            let scenario = LostUpdateScenario(padding: 3)
            var settings = ExplorationSettings(strategy: strategy, seed: 11, limit: .iterations(500))
            settings.leakGraceSeconds = 1
            let result = Explorer(settings).run(scenario)
            XCTAssertGreaterThan(result.count(of: "lost-update"), 0, "\(strategy)")
            XCTAssertGreaterThan(result.count(of: "all-counted"), 0, "\(strategy)")
            XCTAssertEqual(result.verdict, .failed)
            XCTAssertEqual(result.leaked, 0)
            let schedule = try XCTUnwrap(result.exploration?.failingSchedule, "\(strategy)")
            // Shrunk: the padding steps are gone, one thread preempted once.
            XCTAssertLessThanOrEqual(schedule.switches, 2, "\(strategy): \(schedule)")

            let parsed = try Schedule(parsing: schedule.description)
            XCTAssertEqual(parsed, schedule)
            let replays = Explorer.replay(parsed, on: scenario, times: 100)
            XCTAssertEqual(replays.count, 100)
            XCTAssertTrue(replays.allSatisfy { $0.outcome.id == "lost-update" && $0.divergence == nil })
            XCTAssertEqual(Set(replays.map(\.choices)).count, 1, "every replay makes the same choices")
        }
    }

    func testExhaustiveSearchOfTheLostUpdateRunsTheWholeSpace() {
        var settings = ExplorationSettings(strategy: .exhaustive, seed: 1, limit: .iterations(10_000))
        settings.preemptionBound = 10
        settings.leakGraceSeconds = 1
        let result = Explorer(settings).run(LostUpdateScenario())
        // Three steps per thread: 20 schedules; the increments are lost
        // whenever both loads come before both stores: 2 × 2 × 2 orders of
        // the two loads and two stores... counted by brute force below.
        XCTAssertEqual(result.iterations, 20)
        XCTAssertEqual(result.exploration?.exhausted, true)
        // The state makes no seeded choice: one search covers it.
        XCTAssertEqual(result.exploration?.statesSearched, 1)
        var lost = 0
        for schedule in allInterleavings(3, 3) {
            // Thread steps: 0 start→load point, 1 load→store point, 2 store→end.
            // The load happens at step 1's start, the store at step 2's start.
            var loads: [Int: Int] = [:]
            var counter = 0
            var position = [0, 0]
            for thread in schedule {
                position[thread] += 1
                if position[thread] == 2 {
                    loads[thread] = counter
                } else if position[thread] == 3 {
                    counter = loads[thread].unsafelyUnwrapped + 1
                }
            }
            if counter != 2 { lost += 1 }
        }
        XCTAssertEqual(result.count(of: "lost-update"), lost)
        XCTAssertEqual(result.count(of: "all-counted"), 20 - lost)
    }

    func testExhaustiveSearchSearchesFurtherStatesWhenTheStateMakesSeededChoices() {
        // FakeScenario's state picks a number: each state seed is a new
        // state. Two actors without sync points: two schedules per state.
        var settings = ExplorationSettings(strategy: .exhaustive, seed: 1, limit: .iterations(1_000))
        settings.maximumExhaustiveStates = 5
        settings.leakGraceSeconds = 1
        let result = Explorer(settings).run(FakeScenario { _ in .first })
        XCTAssertEqual(result.iterations, 10)
        XCTAssertEqual(result.exploration?.statesSearched, 5)
        XCTAssertEqual(result.exploration?.exhausted, true)
    }

    func testADeadlockIsReportedNotHung() {
        // Each thread takes one lock, then waits for the other's: the
        // controller sees both waiting and reports a deadlock.
        let held = [Flag(), Flag()]
        let controller = ScheduleController(parties: 2)
        var strategy = ReplayStrategy([0, 1, 0, 1])
        _ = strategy.beginSchedule()
        let (_, end) = controller.run({ party in
            Exploration.syncPoint(.lockAcquire)
            held[party].set()
            Exploration.syncPoint(.lockAcquire)
            // Bounded spin once released to run freely, so the test's threads end.
            var rounds = 0
            while held[1 - party].isSet && rounds < 1_000 {
                if !Exploration.syncPoint(.spinWait) { rounds += 1 }
            }
        }, chooser: &strategy)
        XCTAssertEqual(end, .deadlock)
        XCTAssertTrue(controller.isBroken)
    }

    func testAScheduleOverTheStepBudgetIsReportedAsNoProgress() {
        let controller = ScheduleController(parties: 1, stepBudget: 50)
        var strategy = RandomStrategy(seed: 1)
        _ = strategy.beginSchedule()
        let (choices, end) = controller.run({ _ in
            for _ in 0..<100 {
                Exploration.syncPoint(.atomicLoad)
            }
        }, chooser: &strategy)
        XCTAssertEqual(end, .stepBudgetExceeded)
        XCTAssertEqual(choices.count, 50)
    }

    func testScheduleTextRoundTripsAndBadTextSaysWhatIsExpected() throws {
        let schedule = Schedule(scenario: "a.b-c", stateSeed: 0xbeef, choices: [0, 0, 0, 1, 1, 0, 2])
        XCTAssertEqual(schedule.description, "a.b-c:beef:a3b2ac")
        XCTAssertEqual(try Schedule(parsing: "a.b-c:beef:a3b2ac"), schedule)
        XCTAssertEqual(schedule.switches, 3)
        XCTAssertEqual(try Schedule.decodeRuns("b12"), Array(repeating: 1, count: 12))
        for bad in ["nothing", "x:zz:a", "x:1:3a", "x:1:a0", "x:1:A", ":1:a"] {
            XCTAssertThrowsError(try Schedule(parsing: bad), bad) { error in
                XCTAssertTrue("\(error)".contains("schedule") || "\(error)".contains("run"), "\(bad): \(error)")
            }
        }
    }

    func testOutsideAControlledThreadASyncPointReturnsAtOnce() {
        XCTAssertFalse(Exploration.syncPoint(.lockAcquire))
        XCTAssertFalse(Exploration.isControlledThread)
    }
}

/// Every interleaving of two threads of `a` and `b` steps.
private func allInterleavings(_ a: Int, _ b: Int) -> [[Int]] {
    if a == 0 { return [Array(repeating: 1, count: b)] }
    if b == 0 { return [Array(repeating: 0, count: a)] }
    return allInterleavings(a - 1, b).map { [0] + $0 } + allInterleavings(a, b - 1).map { [1] + $0 }
}

final class ExplorationCommandTests: XCTestCase {
    private final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        var text: String { lock.withLock { lines.joined(separator: "\n") } }
        func append(_ line: String) { lock.withLock { lines.append(line) } }
    }

    private func command(_ output: Output) -> StressCommand {
        StressCommand(
            scenarios: [],
            brokenVariants: [
                BrokenVariant(
                    label: "lost update", window: "one step", scenario: LostUpdateScenario(padding: 2),
                    explorationMustFind: true)
            ],
            output: { output.append($0) })
    }

    func testExplorationOptionsParseAndBadValuesSayWhatIsNeeded() throws {
        let options = try StressOptions.parse(["--explore", "pct", "--pct-depth", "4", "--preemptions", "0"])
        XCTAssertEqual(options.explore, .pct)
        XCTAssertEqual(options.pctDepth, 4)
        XCTAssertEqual(options.preemptions, 0)
        XCTAssertEqual(options.explorationLimit, .iterations(StressOptions.defaultSchedules))
        let cases: [([String], String)] = [
            (["--explore", "dfs"], "The value 'dfs' is invalid for '--explore <strategy>': needs one of random, pct, exhaustive"),
            (["--preemptions", "11"], "The value '11' is invalid for '--preemptions <n>': needs a whole number from 0 to 10"),
            (["--replay", "x:1:a", "--explore", "random"], "--replay runs one schedule: give it without --explore and --self-check"),
            (["--explore", "random", "--self-check"], "--self-check measures every strategy itself: give it without --explore"),
        ]
        for (arguments, message) in cases {
            XCTAssertThrowsError(try StressOptions.parse(arguments), "\(arguments)") { error in
                XCTAssertEqual(StressOptions.message(for: error), message, "\(arguments)")
            }
        }
    }

    func testReplayReproducesTheForbiddenOutcomeEveryTimeAndExitsWithFailure() throws {
        var settings = ExplorationSettings(strategy: .random, seed: 3, limit: .iterations(300))
        settings.leakGraceSeconds = 1
        let scenario = LostUpdateScenario(padding: 2)
        let schedule = try XCTUnwrap(Explorer(settings).run(scenario).exploration?.failingSchedule)
        let output = Output()
        XCTAssertEqual(command(output).main(["--replay", schedule.description, "--iterations", "100"]), StressCommand.failure)
        XCTAssertTrue(output.text.contains("100 x lost-update [FORBIDDEN]"), output.text)
        XCTAssertFalse(output.text.contains("all-counted"), output.text)
    }

    func testReplayOfABadScheduleIsAUsageErrorThatSaysWhy() {
        let cases: [(String, String)] = [
            ("nothing", "is not a schedule"),
            ("test.unknown:1:a", "no scenario is named 'test.unknown'"),
            ("test.lost-update:1:c", "has 2 threads"),
            // Thread a passes four sync points (two padding, load, store), so
            // it has five steps: a sixth cannot run.
            ("test.lost-update:1:a6", "the schedule does not fit"),
        ]
        for (text, message) in cases {
            let output = Output()
            XCTAssertEqual(command(output).main(["--replay", text]), StressCommand.usageError, text)
            XCTAssertTrue(output.text.contains(message), "\(text): \(output.text)")
        }
    }

    func testExploreWithoutTheLibrarysSyncPointsSaysHowToBuild() throws {
        try XCTSkipIf(Exploration.libraryIsInstrumented, "this build has the Exploration trait")
        let output = Output()
        let command = StressCommand(scenarios: [LostUpdateScenario()], output: { output.append($0) })
        XCTAssertEqual(command.main(["--explore", "random"]), StressCommand.usageError)
        XCTAssertTrue(output.text.contains("--traits Exploration"), output.text)
    }
}
