import Synchronization
import ToolSupport
import XCTest
@testable import StressKit

final class HarnessTests: XCTestCase {
    private func run(_ scenario: FakeScenario, iterations: Int = 200, seed: UInt64 = 7) -> ScenarioResult {
        StressRunner(limit: .iterations(iterations), seed: seed, leakGraceSeconds: 0.05, batchSize: 16).run(scenario)
    }

    func testRunnerCountsEachIterationUnderTheOutcomeTheArbiterReturns() {
        let scenario = FakeScenario { iteration in
            switch iteration % 4 {
            case 0: .first
            case 1, 2: .second
            default: .rare
            }
        }
        let result = run(scenario, iterations: 200)
        XCTAssertEqual(result.iterations, 200)
        XCTAssertEqual(result.count(of: "first"), 50)
        XCTAssertEqual(result.count(of: "second"), 100)
        XCTAssertEqual(result.count(of: "rare"), 50)
        XCTAssertEqual(result.count(of: "broken"), 0)
        XCTAssertEqual(result.rows.map(\.outcome.id), ["first", "second", "rare", "broken"])
        XCTAssertEqual(result.verdict, .passed)
        XCTAssertEqual(result.leaked, 0)
    }

    func testEveryActorRunsOnceOnEveryIteration() {
        let scenario = FakeScenario(actorCount: 3) { _ in .first }
        let runner = StressRunner(limit: .iterations(100), seed: 1, leakGraceSeconds: 0, batchSize: 8)
        let states = CapturedStates()
        _ = runner.run(CapturingScenario(scenario, into: states))
        XCTAssertEqual(states.all.count, 100)
        for state in states.all {
            XCTAssertEqual(state.actorsRan.withLock { $0.sorted() }, [0, 1, 2])
        }
    }

    func testForbiddenOutcomeFailsTheScenario() {
        let scenario = FakeScenario { iteration in iteration == 17 ? .broken : (iteration.isMultiple(of: 2) ? .first : .second) }
        let result = run(scenario)
        XCTAssertEqual(result.forbiddenCount, 1)
        XCTAssertEqual(result.verdict, .failed)
        XCTAssertTrue(ResultTable.render(result).contains("FORBIDDEN OUTCOME SEEN"))
    }

    func testForbiddenOutcomeMakesTheCommandExitWithOne() {
        let output = OutputRecorder()
        let command = StressCommand(
            scenarios: [FakeScenario { _ in .broken }],
            output: output.record
        )
        XCTAssertEqual(command.main(["--iterations", "20", "--seed", "1"]), 1)
        XCTAssertTrue(output.text.contains("[FAILED] fake.scenario"))
        XCTAssertTrue(output.text.contains("1 FAILED"))
    }

    func testUnseenAcceptableOutcomeIsReportedAsNotExercised() {
        let output = OutputRecorder()
        let command = StressCommand(scenarios: [FakeScenario { _ in .first }], output: output.record)
        XCTAssertEqual(command.main(["--iterations", "20"]), 0)
        XCTAssertTrue(output.text.contains("[NOT EXERCISED] fake.scenario"))
        XCTAssertTrue(output.text.contains("acceptable outcome(s) never seen: second"))
        XCTAssertTrue(output.text.contains("1 NOT EXERCISED"))
        let result = run(FakeScenario { _ in .first })
        XCTAssertEqual(result.unseenAcceptable, ["second"])
        XCTAssertEqual(result.verdict, .notExercised)
    }

    func testUnseenInterestingOutcomeDoesNotCountAsNotExercised() {
        let result = run(FakeScenario { $0.isMultiple(of: 2) ? .first : .second })
        XCTAssertEqual(result.count(of: "rare"), 0)
        XCTAssertEqual(result.verdict, .passed)
    }

    func testInstancesStillAliveAfterTearDownFailTheScenario() {
        let result = run(FakeScenario(leak: true) { $0.isMultiple(of: 2) ? .first : .second }, iterations: 10)
        XCTAssertEqual(result.leaked, 10)
        XCTAssertEqual(result.verdict, .failed)
        XCTAssertTrue(ResultTable.render(result).contains("leak"))
    }

    func testSameSeedReplaysTheSameChoices() {
        let first = FakeScenario { _ in .first }
        let second = FakeScenario { _ in .first }
        let other = FakeScenario { _ in .first }
        let firstStates = CapturedStates()
        let secondStates = CapturedStates()
        let otherStates = CapturedStates()
        _ = StressRunner(limit: .iterations(64), seed: 42, leakGraceSeconds: 0, batchSize: 16).run(CapturingScenario(first, into: firstStates))
        _ = StressRunner(limit: .iterations(64), seed: 42, leakGraceSeconds: 0, batchSize: 5).run(CapturingScenario(second, into: secondStates))
        _ = StressRunner(limit: .iterations(64), seed: 43, leakGraceSeconds: 0, batchSize: 16).run(CapturingScenario(other, into: otherStates))
        let describe = { (states: [FakeScenario.State]) in states.map { "\($0.pick) \($0.delays) \($0.order)" } }
        XCTAssertEqual(describe(firstStates.all), describe(secondStates.all))
        XCTAssertNotEqual(describe(firstStates.all), describe(otherStates.all))
    }

    func testChoicesDependOnTheScenarioNameNotOnOtherScenarios() {
        var generatorA = SeededGenerator(seed: 5, scenario: "a")
        var generatorAAgain = SeededGenerator(seed: 5, scenario: "a")
        var generatorB = SeededGenerator(seed: 5, scenario: "b")
        let a = (0..<8).map { _ in generatorA.next() }
        XCTAssertEqual(a, (0..<8).map { _ in generatorAAgain.next() })
        XCTAssertNotEqual(a, (0..<8).map { _ in generatorB.next() })
    }

    func testChoicesStayWithinTheirBounds() {
        var generator = SeededGenerator(seed: 9)
        for _ in 0..<500 {
            var choices = IterationChoices(actorCount: 3, generator: &generator)
            XCTAssertEqual(choices.order.sorted(), [0, 1, 2])
            XCTAssertTrue(choices.delays.allSatisfy { (0...IterationChoices.maximumDelay).contains($0) })
            XCTAssertTrue((0..<7).contains(choices.pick(7)))
        }
    }

    func testDurationLimitRunsAtLeastOneBatch() {
        let result = StressRunner(limit: .duration(seconds: 0.01), seed: 3, batchSize: 4)
            .run(FakeScenario { $0.isMultiple(of: 2) ? .first : .second })
        XCTAssertGreaterThanOrEqual(result.iterations, 4)
    }

    func testSelfCheckExitsZeroOnlyWhenTheHarnessCatchesTheBrokenSubject() {
        let printed = Mutex("")
        let caught = StressCommand(
            scenarios: [], selfCheck: FakeScenario { _ in .broken }, output: { line in printed.withLock { $0 += line + "\n" } })
        XCTAssertEqual(caught.main(["--self-check", "--iterations", "10"]), 0)
        // Its success reads as one: the broken subject was caught, nothing failed.
        let text = printed.withLock { $0 }
        XCTAssertTrue(text.contains("[CAUGHT, as it must be: deliberately broken] fake.scenario"), text)
        XCTAssertFalse(text.contains("FAILED"), text)
        let missed = StressCommand(
            scenarios: [], selfCheck: FakeScenario { $0.isMultiple(of: 2) ? .first : .second }, output: { _ in }
        )
        XCTAssertEqual(missed.main(["--self-check", "--iterations", "10"]), 1)
    }

    func testRealDisposableScenariosPassAShortRun() {
        let runner = StressRunner(limit: .iterations(300), seed: 11, batchSize: 16)
        for scenario in [
            SerialDisposableReplaceVersusDispose() as any StressScenario,
            CompositeInsertVersusDispose(),
            TrampolineFromManyThreads(),
        ] {
            let result = runner.run(scenario)
            XCTAssertEqual(result.forbiddenCount, 0, result.name)
            XCTAssertEqual(result.leaked, 0, result.name)
        }
    }
}

/// Keeps every state a wrapped fake scenario made, past its tear-down.
final class CapturedStates: @unchecked Sendable {
    var all: [FakeScenario.State] = []
}

/// Runs a fake scenario and captures its states before tear-down.
final class CapturingScenario: StressScenario, @unchecked Sendable {
    typealias State = FakeScenario.State
    typealias Outcome = FakeOutcome

    private let inner: FakeScenario
    private let captured: CapturedStates
    var name: String { inner.name }
    var guarantees: String { inner.guarantees }
    var summary: String { inner.summary }
    var actorCount: Int { inner.actorCount }
    var live: LiveCounter { inner.live }

    init(_ inner: FakeScenario, into captured: CapturedStates) {
        self.inner = inner
        self.captured = captured
    }

    func makeState(_ choices: inout IterationChoices) -> State { inner.makeState(&choices) }
    func act(_ actor: Int, on state: State) { inner.act(actor, on: state) }
    func arbitrate(_ state: State) -> FakeOutcome { inner.arbitrate(state) }
    func tearDown() {
        captured.all = inner.states
        inner.tearDown()
    }
}
