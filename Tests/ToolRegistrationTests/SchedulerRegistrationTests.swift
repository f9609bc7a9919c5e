import Foundation
import Schedulers
import XCTest
@testable import BenchKit
@testable import StressKit
import ToolRegistration
import ToolSupport

/// One registration for both tools: the check each runs when registering,
/// the one name rule, and the teardown every scheduler a tool makes gets.
final class SchedulerRegistrationTests: XCTestCase {
    private func ownThread(
        _ name: String = "own-thread", tracker: ThreadTracker, isCurrent: (@Sendable (OwnThreadScheduler) -> Bool)? = nil,
        teardown: Bool = true
    ) -> SchedulerRegistration {
        let onItsThread: @Sendable (OwnThreadScheduler) -> Bool = isCurrent ?? { scheduler in scheduler.isOnItsThread }
        guard teardown else {
            return SchedulerRegistration(name, isCurrent: onItsThread) { tracker.make() }
        }
        return SchedulerRegistration(name, isCurrent: onItsThread, teardown: { scheduler in scheduler.stop() }) {
            tracker.make()
        }
    }

    // MARK: - The check

    func testACorrectRegistrationPassesItsCheckAndTheCheckedSchedulerIsTornDown() throws {
        let tracker = ThreadTracker()
        defer { tracker.stopAll() }
        try ownThread(tracker: tracker).check()
        XCTAssertEqual(tracker.madeCount, 1)
        XCTAssertEqual(tracker.running, 0, "the check's scheduler was not handed to the teardown")
    }

    func testAnIsCurrentThatIsFalseInsideTheSchedulersActionIsRefusedNamingTheRegistration() {
        let tracker = ThreadTracker()
        defer { tracker.stopAll() }
        // What `Thread.current.name == …` amounts to on Linux: never true.
        let registration = ownThread("named-loop", tracker: tracker, isCurrent: { _ in false })
        XCTAssertThrowsError(try registration.check()) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("registration 'named-loop'"), message)
            XCTAssertTrue(message.contains("isCurrent is false inside an action the scheduler runs"), message)
            XCTAssertTrue(message.contains("Thread.current.name"), message)
        }
        XCTAssertEqual(tracker.running, 0)
    }

    func testAnIsCurrentThatIsTrueOnTheRegisteringThreadIsRefused() {
        let tracker = ThreadTracker()
        defer { tracker.stopAll() }
        let registration = ownThread("always-current", tracker: tracker, isCurrent: { _ in true })
        XCTAssertThrowsError(try registration.check()) { error in
            XCTAssertTrue("\(error)".contains("registration 'always-current': isCurrent is true on the thread that registers it"), "\(error)")
        }
    }

    func testASchedulerThatNeverRunsTheCheckedActionIsRefusedAfterItsStallTimeout() {
        let registration = SchedulerRegistration("never-runs", isCurrent: { _ in false }) { NeverRunsScheduler() }
            .stallTimeout(seconds: 0.2)
        XCTAssertThrowsError(try registration.check()) { error in
            XCTAssertTrue("\(error)".contains("registration 'never-runs': the scheduler did not run one scheduled action"), "\(error)")
        }
    }

    func testASchedulerThatRunsTheActionOnTheCallersThreadIsLeftToTheTools() throws {
        // Its isCurrent is false everywhere, but the scheduler broke its own
        // promise (it ran inline): Stress reports that, not the check.
        try SchedulerRegistration("inline", isCurrent: { _ in false }) { InlineScheduler() }.check()
    }

    func testWithoutIsCurrentOnlyTheNameIsChecked() throws {
        try SchedulerRegistration("never-runs") { NeverRunsScheduler() }.check()
        XCTAssertThrowsError(try SchedulerRegistration("peer.mine") { NeverRunsScheduler() }.check())
    }

    func testBothToolsRefuseARegistrationThatFailsItsCheckAndTheSameNames() {
        let tracker = ThreadTracker()
        defer { tracker.stopAll() }
        let wrong = ownThread("wrong-is-current", tracker: tracker, isCurrent: { _ in false })
        var bench = SchedulerRegistry.standard
        XCTAssertThrowsError(try bench.register(BenchScheduler(wrong)))
        var stress = StressRegistry.builtin
        XCTAssertThrowsError(try stress.register(StressScheduler(wrong)))
        for name in ["", "my loop", "a,b", "peer.mine", "reference.x", "peer", ".dot", "a..b", "end.", String(repeating: "x", count: 49)] {
            let registration = SchedulerRegistration(name) { NeverRunsScheduler() }
            XCTAssertThrowsError(try bench.register(BenchScheduler(registration)), "BenchRunner took '\(name)'")
            XCTAssertThrowsError(try stress.register(StressScheduler(registration)), "Stress took '\(name)'")
        }
        let good = SchedulerRegistration("my-loop.v2") { NeverRunsScheduler() }
        XCTAssertNoThrow(try bench.register(BenchScheduler(good)))
        XCTAssertNoThrow(try stress.register(StressScheduler(good)))
    }

    // MARK: - Teardown

    func testEveryStressScenarioHandsItsSchedulerToTheTeardownSoNoThreadIsLeft() throws {
        let tracker = ThreadTracker()
        defer { tracker.stopAll() }
        let scenarios = try ScenarioCatalog.all(registering: [StressScheduler(ownThread(tracker: tracker))])
            .filter { $0.name.hasSuffix(".own-thread") || $0.name.hasSuffix(".own-thread-generic-path") }
        XCTAssertGreaterThanOrEqual(scenarios.count, 5, "\(scenarios.map(\.name))")
        let made = tracker.madeCount
        for scenario in scenarios {
            let result = StressRunner(limit: .iterations(64), seed: 1, leakGraceSeconds: 1).run(scenario)
            XCTAssertEqual(result.forbiddenCount, 0, ResultTable.render(result))
        }
        XCTAssertGreaterThanOrEqual(tracker.madeCount - made, scenarios.count)
        XCTAssertEqual(tracker.running, 0, "threads left running after the scenarios")
    }

    func testWithoutATeardownEachStressScenarioLeavesItsThreadBehind() throws {
        // The control: the same scheduler registered without a teardown.
        let tracker = ThreadTracker()
        defer { tracker.stopAll() }
        let scenario = try XCTUnwrap(
            try ScenarioCatalog.all(registering: [StressScheduler(ownThread(tracker: tracker, teardown: false))])
                .first { $0.name == "dispose-vs-action.own-thread" })
        _ = StressRunner(limit: .iterations(64), seed: 1, leakGraceSeconds: 1).run(scenario)
        // The check's scheduler and the scenario's, both still running.
        XCTAssertEqual(tracker.madeCount, 2)
        XCTAssertEqual(tracker.running, 2)
    }

    func testEveryBenchmarkSessionHandsItsSchedulerToTheTeardownSoNoThreadIsLeft() throws {
        SchedulerRegistry.activate(.standard)
        let tracker = ThreadTracker()
        defer { tracker.stopAll() }
        var registry = SchedulerRegistry.standard
        try registry.register(BenchScheduler(ownThread(tracker: tracker)))
        var configuration = SuiteConfiguration.tiny(recursionProbe: nil)
        configuration.minimumRepetitionSeconds = 0
        let runner = SuiteRunner(
            configuration: configuration, benchmarks: BenchmarkCatalog.all(registry),
            filter: BenchmarkFilter([
                "observeOn.throughput/own-thread", "observeOn.subscription/own-thread", "scheduler.recursion/own-thread",
            ]),
            counter: .disabled)
        let rows = try runner.run(progress: ProgressReporter(style: .silent))
        XCTAssertTrue(rows.contains { $0.benchmark == "scheduler.recursion" && $0.variant == "own-thread" })
        // The check's scheduler, and one per session of three benchmarks (and the generic path).
        XCTAssertGreaterThan(tracker.madeCount, 4)
        XCTAssertEqual(tracker.running, 0, "threads left running after the sessions")
    }

    // MARK: - One filter rule

    func testLoopSelectsNeitherToolsBrokenLoop() throws {
        SchedulerRegistry.activate(.standard)
        let broken = SchedulerRegistration("broken-loop") { NeverRunsScheduler() }
        let loop = SchedulerRegistration("loop") { NeverRunsScheduler() }
        var registry = SchedulerRegistry.standard
        try registry.register(BenchScheduler(broken))
        let plans = BenchmarkCatalog.all(registry).flatMap { $0.plans(for: .tiny(recursionProbe: nil)) }
        XCTAssertThrowsError(try BenchmarkFilter(["loop"]).select(plans))
        XCTAssertFalse(try BenchmarkFilter(["broken-loop"]).select(plans).isEmpty)

        let command = StressCommand(
            scenarios: try ScenarioCatalog.all(registering: [StressScheduler(broken), StressScheduler(loop)]),
            output: { _ in })
        let selected = command.selected(try StressOptions.parse(["--filter", "loop"])).map(\.name)
        XCTAssertTrue(selected.contains("dispose-vs-action.loop"))
        XCTAssertFalse(selected.contains { $0.hasSuffix("broken-loop") }, "\(selected)")
    }

    // MARK: - Messages name the program

    func testStressMessagesNameTheProgramItRunsAs() {
        let output = OutputLog()
        var command = StressCommand(scenarios: [], output: { output.append($0) })
        command.programName = "MyEventLoop stress"
        XCTAssertEqual(command.main(["--no-such-option"]), StressCommand.usageError)
        XCTAssertTrue(output.text.contains("MyEventLoop stress: error:"), output.text)
        XCTAssertTrue(output.text.contains("Run 'MyEventLoop stress --help'"), output.text)
        XCTAssertFalse(output.text.contains("Stress:"), output.text)
    }
}

/// What a command printed, collected from any thread.
final class OutputLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    var text: String { lock.withLock { lines.joined(separator: "\n") } }
}
