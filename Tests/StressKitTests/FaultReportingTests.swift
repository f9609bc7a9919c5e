import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import StressKit

/// A fault in the code under test is a reported outcome: a hung batch is
/// graded `hung` by the watchdog with the counts so far, a child that traps
/// or that a sanitizer stops is graded by how it ended, and results survive
/// the trip through the CSV a child writes.
final class FaultReportingTests: XCTestCase {
    /// A scenario whose actor 0 blocks on `gate` in iteration `hangAt`.
    final class HangingScenario: StressScenario, @unchecked Sendable {
        enum Outcome: String, ScenarioOutcome {
            case ran
            var grade: Grade { .acceptable }
            var meaning: String { "the iteration ran" }
        }
        final class State: @unchecked Sendable {
            let iteration: Int
            init(_ iteration: Int) { self.iteration = iteration }
        }

        let name = "test.hanging"
        let guarantees = "test"
        let summary = "hangs in one iteration"
        let actorCount = 2
        let live = LiveCounter()
        let gate = DispatchSemaphore(value: 0)
        private let hangAt: Int
        private let made = Atomic<Int>(0)

        init(hangAt: Int) {
            self.hangAt = hangAt
        }

        func makeState(_ choices: inout IterationChoices) -> State {
            State(made.wrappingAdd(1, ordering: .relaxed).oldValue)
        }

        func act(_ actor: Int, on state: State) {
            if actor == 0 && state.iteration == hangAt {
                gate.wait()
            }
        }

        func arbitrate(_ state: State) -> Outcome { .ran }
    }

    func testABatchThatNeverFinishesIsReportedHungWithTheCountsSoFar() throws {
        let scenario = HangingScenario(hangAt: 40)
        let reported = Mutex<ScenarioResult?>(nil)
        let hung = DispatchSemaphore(value: 0)
        let runner = {
            var runner = StressRunner(limit: .iterations(100), seed: 5, leakGraceSeconds: 0, batchSize: 16)
            runner.hangSeconds = 0.3
            runner.onHang = { result in
                reported.withLock { $0 = result }
                hung.signal()
            }
            return runner
        }()
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = runner.run(scenario)
            finished.signal()
        }
        thread.start()
        XCTAssertEqual(hung.wait(timeout: .now() + 30), .success, "the watchdog never reported the hung batch")
        // Unblock the hung actor so the test leaves no thread behind.
        scenario.gate.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + 30), .success)
        let result = try XCTUnwrap(reported.withLock { $0 })
        XCTAssertEqual(result.iterations, 32, "two batches of 16 finished before the one holding iteration 40")
        XCTAssertEqual(result.count(of: "ran"), 32)
        XCTAssertEqual(result.count(of: "hung"), 1)
        XCTAssertEqual(result.verdict, .failed)
        XCTAssertEqual(result.seed, 5)
        let stopped = try XCTUnwrap(result.stoppedBecause)
        XCTAssertTrue(stopped.contains("the batch of iterations 33-48"), stopped)
        XCTAssertTrue(stopped.contains("seed 5"), stopped)
    }

    func testAChildKilledByASignalIsACrashedOutcomeNamingTheSignal() {
        let scenario = FakeScenario { _ in .first }
        let ending = ChildRun(status: SIGILL, killedBySignal: true, launchError: nil).ending(csv: "/nonexistent")
        guard case .abnormal(let abnormal) = ending else {
            return XCTFail("a child killed by a signal has no result of its own")
        }
        let result = abnormal.result(for: scenario, seed: 9, replay: "Stress --no-isolate --filter fake.scenario --seed 9")
        XCTAssertEqual(result.count(of: "crashed"), 1)
        XCTAssertEqual(result.verdict, .failed)
        XCTAssertEqual(result.rows.map(\.outcome.id), FakeOutcome.allCases.map(\.id) + ["crashed"])
        XCTAssertTrue(result.rows.last?.outcome.meaning.contains("signal 4 (SIGILL, a Swift trap)") == true)
        XCTAssertTrue(result.stoppedBecause?.contains("--no-isolate --filter fake.scenario --seed 9") == true)
    }

    func testAChildThatASanitizerStoppedIsASanitizerReportOutcome() {
        let ending = ChildRun(status: 66, killedBySignal: false, launchError: nil).ending(csv: "/nonexistent")
        guard case .abnormal(let abnormal) = ending else {
            return XCTFail("a child stopped by a sanitizer has no result of its own")
        }
        XCTAssertTrue(abnormal.isSanitizerStop)
        XCTAssertEqual(abnormal.outcome.id, "sanitizer-report")
    }

    func testAChildThatExitedWithoutItsResultIsNotTakenForAPass() {
        let ending = ChildRun(status: 0, killedBySignal: false, launchError: nil).ending(csv: "/nonexistent/result.csv")
        guard case .abnormal(.noResult(0)) = ending else {
            return XCTFail("expected no-result, got \(ending)")
        }
    }

    func testAResultSurvivesTheChildsCSV() throws {
        let result = StressRunner(limit: .iterations(40), seed: 3, batchSize: 8)
            .run(FakeScenario { $0 == 7 ? .broken : ($0.isMultiple(of: 2) ? .first : .second) })
        let parsed = try ResultCSV.parse(ResultCSV.render([result]))
        XCTAssertEqual(parsed.count, 1)
        XCTAssertEqual(parsed[0].name, result.name)
        XCTAssertEqual(parsed[0].seed, 3)
        XCTAssertEqual(parsed[0].iterations, 40)
        XCTAssertEqual(parsed[0].rows.map(\.count), result.rows.map(\.count))
        XCTAssertEqual(parsed[0].rows.map(\.outcome.grade), result.rows.map(\.outcome.grade))
        XCTAssertEqual(parsed[0].verdict, .failed)
        XCTAssertEqual(ResultCSV.render(parsed), ResultCSV.render([result]))
    }

    func testAMalformedResultFileNamesItsLine() {
        let text = ResultCSV.header + "\n1,fake,test,4,0.1,0,OK,first,ACCEPTABLE,two\n"
        XCTAssertThrowsError(try ResultCSV.parse(text)) { error in
            XCTAssertEqual((error as? ResultFileError)?.line, 2)
        }
        XCTAssertThrowsError(try ResultCSV.parse("scenario,count\n")) { error in
            XCTAssertEqual((error as? ResultFileError)?.line, 1)
        }
    }
}
