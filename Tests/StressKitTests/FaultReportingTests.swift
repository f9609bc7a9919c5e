import Dispatch
import Foundation
import Schedulers
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

/// A fault anywhere in a scenario's run is an outcome: its set-up (a
/// registration's `make`) is watched, a child that shows no progress is
/// ended by its parent, a killed child keeps the counts it reported, and a
/// failed scenario's replay command runs exactly it again with the same choices.
final class FaultsNeverSufferedTests: XCTestCase {
    func testARegistrationWhoseMakeBlocksIsReportedHung() throws {
        let release = DispatchSemaphore(value: 0)
        let registration = StressScheduler(SchedulerRegistration("blocks-in-make") { () -> SerialDispatchQueueScheduler in
            release.wait()
            return SerialDispatchQueueScheduler(internalSerialQueueName: "blocks-in-make")
        })
        let scenario = try XCTUnwrap(
            try ScenarioCatalog.all(registering: [registration]).first { $0.name == "dispose-vs-action.blocks-in-make" })
        let reported = Mutex<ScenarioResult?>(nil)
        let hung = DispatchSemaphore(value: 0)
        var runner = StressRunner(limit: .iterations(10), seed: 4, leakGraceSeconds: 1)
        runner.hangSeconds = 0.3
        runner.onHang = { result in
            reported.withLock { $0 = result }
            hung.signal()
        }
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread { [runner] in
            _ = runner.run(scenario)
            finished.signal()
        }
        thread.start()
        XCTAssertEqual(hung.wait(timeout: .now() + 30), .success, "the watchdog never reported the make that blocks")
        // Let make return so the test leaves no thread behind.
        release.signal()
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success)
        let result = try XCTUnwrap(reported.withLock { $0 })
        XCTAssertEqual(result.count(of: "hung"), 1)
        XCTAssertEqual(result.iterations, 0)
        XCTAssertEqual(result.verdict, .failed)
        let stopped = try XCTUnwrap(result.stoppedBecause)
        XCTAssertTrue(stopped.contains("setting the scenario up"), stopped)
    }

    /// A child process that stands in for Stress's own: for each scenario it
    /// does what `behaviour` says, in the shell.
    private func childScript(_ behaviour: [String: String]) throws -> String {
        var text = """
            #!/bin/sh
            scenario=""; csv=""
            while [ $# -gt 0 ]; do
                case "$1" in
                    --child-scenario) scenario="$2"; shift ;;
                    --child-csv) csv="$2"; shift ;;
                esac
                shift
            done
            case "$scenario" in

            """
        for (name, commands) in behaviour {
            text += "    \(name)) \(commands) ;;\n"
        }
        text += "esac\n"
        let path = NSTemporaryDirectory() + "stress-child-\(UInt32.random(in: 0...UInt32.max)).sh"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// `text` written by the shell to `file` (a variable of the script).
    private func write(_ text: String, to file: String) -> String {
        "printf '%s' '\(text)' > \"\(file)\""
    }

    func testAChildThatShowsNoProgressIsKilledReportedHungWithItsCountsAndTheNextScenarioRuns() throws {
        let hangs = FakeScenario(name: "fake.hangs") { _ in .first }
        let next = FakeScenario(name: "fake.next") { _ in .first }
        let partial = ScenarioResult.partial(
            name: "fake.hangs", guarantees: "test", summary: "", seed: 1, declared: hangs.declaredOutcomes,
            iterations: 64, counts: [40, 24, 0, 0], seconds: 0.5)
        let passed = StressRunner(limit: .iterations(8), seed: 1, leakGraceSeconds: 0, batchSize: 4)
            .run(FakeScenario(name: "fake.next") { $0.isMultiple(of: 2) ? .first : .second })
        let script = try childScript([
            "fake.hangs": write(ResultCSV.render([partial]), to: "$csv.progress") + "; exec sleep 600",
            "fake.next": write(ResultCSV.render([passed]), to: "$csv"),
        ])
        let csvPath = NSTemporaryDirectory() + "stress-silent-\(UInt32.random(in: 0...UInt32.max)).csv"
        defer { try? FileManager.default.removeItem(atPath: csvPath) }
        let output = OutputRecorder()
        var command = StressCommand(scenarios: [hangs, next], output: output.record)
        command.executablePath = script
        command.childGraceSeconds = 1
        let started = DispatchTime.now().uptimeNanoseconds
        let status = command.main(["--hang-seconds", "0.2", "--iterations", "8", "--seed", "1", "--csv", csvPath])
        XCTAssertEqual(status, StressCommand.failure, output.text)
        XCTAssertLessThan(DispatchTime.now().uptimeNanoseconds - started, 60_000_000_000, "the parent waited without a bound")
        let results = try ResultCSV.parse(String(contentsOfFile: csvPath, encoding: .utf8))
        XCTAssertEqual(results.map(\.name), ["fake.hangs", "fake.next"], output.text)
        XCTAssertEqual(results[0].count(of: "hung"), 1)
        XCTAssertEqual(results[0].count(of: "first"), 40, "the counts the child reported are kept")
        XCTAssertEqual(results[0].count(of: "second"), 24)
        XCTAssertEqual(results[0].iterations, 64)
        XCTAssertEqual(results[1].verdict, .passed, output.text)
        XCTAssertTrue(output.text.contains("showed no progress"), output.text)
        XCTAssertTrue(output.text.contains("the counts are those it reported last, after 64 iteration(s)"), output.text)
        XCTAssertTrue(output.text.contains("--scenario fake.hangs --seed 1 --iterations 8 --hang-seconds 0.2"), output.text)
    }

    func testAChildKilledFromOutsideKeepsItsCountsOrSaysTheyWereLostAndClaimsNoStack() throws {
        let killed = FakeScenario(name: "fake.killed") { _ in .first }
        let early = FakeScenario(name: "fake.killed-early") { _ in .first }
        let partial = ScenarioResult.partial(
            name: "fake.killed", guarantees: "test", summary: "", seed: 3, declared: killed.declaredOutcomes,
            iterations: 128, counts: [100, 27, 1, 0], seconds: 2)
        let script = try childScript([
            "fake.killed": write(ResultCSV.render([partial]), to: "$csv.progress") + "; kill -KILL $$",
            "fake.killed-early": write(ResultCSV.header + "\n", to: "$csv") + "; kill -KILL $$",
        ])
        let output = OutputRecorder()
        var command = StressCommand(scenarios: [killed, early], output: output.record)
        command.executablePath = script
        command.childGraceSeconds = 30
        XCTAssertEqual(command.main(["--iterations", "8", "--seed", "3"]), StressCommand.failure, output.text)
        let text = output.text
        XCTAssertTrue(text.contains("killed by signal 9 (SIGKILL), sent from outside it"), text)
        XCTAssertFalse(text.contains("printed above"), text)
        XCTAssertTrue(text.contains("128 iterations"), text)
        XCTAssertTrue(text.contains("the counts are those it reported last, after 128 iteration(s)"), text)
        XCTAssertTrue(text.contains("its counts were lost: it reported none"), text)
    }

    func testATrapSaysWhereItsStackIsOnlyIfTheRuntimeWroteOne() {
        let trap = AbnormalEnding.signal(SIGILL).outcome.meaning
        XCTAssertTrue(trap.contains("when it wrote one"), trap)
        let outside = AbnormalEnding.signal(SIGTERM).outcome.meaning
        XCTAssertTrue(outside.contains("no stack was printed"), outside)
    }

    func testTheReplayCommandRunsExactlyTheFailedScenarioAgainWithTheSameOutcome() throws {
        func scenarios() -> [any StressScenario] {
            [SeededFakeScenario(name: "fake.seeded"), SeededFakeScenario(name: "fake.seeded-generic-path")]
        }
        let output = OutputRecorder()
        let command = StressCommand(scenarios: scenarios(), output: output.record)
        XCTAssertEqual(
            command.main(["--filter", "fake.seeded", "--iterations", "300", "--seed", "77", "--hang-seconds", "9"]),
            StressCommand.failure, output.text)
        let line = try XCTUnwrap(
            output.text.split(separator: "\n").first { $0.contains("run it alone again with:") && $0.contains("fake.seeded ") },
            output.text)
        let replay = String(line.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces)
        var words = replay.split(separator: " ").map(String.init)
        XCTAssertEqual(words.first, StressCommand.programName)
        words.removeFirst()
        for option in ["--seed", "--iterations", "--hang-seconds", "--scenario"] {
            XCTAssertTrue(words.contains(option), "\(option) missing from \(replay)")
        }
        let csvPath = NSTemporaryDirectory() + "stress-replay-\(UInt32.random(in: 0...UInt32.max)).csv"
        defer { try? FileManager.default.removeItem(atPath: csvPath) }
        let first = try ResultCSV.parse(ResultCSV.render([
            StressRunner(limit: .iterations(300), seed: 77).run(SeededFakeScenario(name: "fake.seeded"))
        ]))[0]
        let again = OutputRecorder()
        let status = StressCommand(scenarios: scenarios(), output: again.record).main(words + ["--csv", csvPath])
        XCTAssertEqual(status, StressCommand.failure, again.text)
        let replayed = try ResultCSV.parse(String(contentsOfFile: csvPath, encoding: .utf8))
        XCTAssertEqual(replayed.map(\.name), ["fake.seeded"], "the replay selects exactly the failed scenario")
        XCTAssertEqual(replayed[0].rows.map(\.count), first.rows.map(\.count), "the replay reproduces the counts")
        XCTAssertGreaterThan(replayed[0].count(of: "broken"), 0)
    }

    func testTheReplayCommandRepeatsTheDurationAndTheStrategysParameters() throws {
        let command = StressCommand(scenarios: [], output: { _ in })
        let real = command.replayCommand(
            "a.b", seed: 5, try StressOptions.parse(["--duration", "0.5", "--stop-at-first-forbidden", "--hang-seconds", "3"]))
        XCTAssertTrue(real.hasSuffix("--no-isolate --scenario a.b --seed 5 --duration 0.5 --hang-seconds 3.0 --stop-at-first-forbidden"), real)
        let pct = command.replayCommand("a.b", seed: 5, try StressOptions.parse(["--explore", "pct", "--pct-depth", "4"]))
        XCTAssertTrue(pct.hasSuffix("--iterations 2000 --hang-seconds 30.0 --explore pct --pct-depth 4"), pct)
        let exhaustive = command.replayCommand(
            "a.b", seed: 5, try StressOptions.parse(["--explore", "exhaustive", "--preemptions", "3", "--iterations", "9"]))
        XCTAssertTrue(exhaustive.hasSuffix("--iterations 9 --hang-seconds 30.0 --explore exhaustive --preemptions 3"), exhaustive)
    }
}

/// A scenario whose outcome is the iteration's seeded choice: the same seed
/// gives the same counts, another seed other ones.
final class SeededFakeScenario: StressScenario, @unchecked Sendable {
    final class State: @unchecked Sendable {
        let pick: Int
        init(_ pick: Int) { self.pick = pick }
    }

    let name: String
    let guarantees = "test"
    let summary = "a fake scenario whose outcomes follow the seed"
    let actorCount = 2
    let live = LiveCounter()

    init(name: String) {
        self.name = name
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(choices.pick(100))
    }

    func act(_ actor: Int, on state: State) {}

    func arbitrate(_ state: State) -> FakeOutcome {
        state.pick < 3 ? .broken : (state.pick.isMultiple(of: 2) ? .first : .second)
    }
}
