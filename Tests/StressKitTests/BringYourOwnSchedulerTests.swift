import Dispatch
import Foundation
import Schedulers
import XCTest
@testable import StressKit

/// A user's scheduler registered through the public API gets the scheduler
/// scenarios, and a broken one is caught.
final class BringYourOwnSchedulerTests: XCTestCase {
    private func scenario(named name: String, registering schedulers: [StressScheduler]) throws -> any StressScenario {
        let scenarios = try ScenarioCatalog.all(registering: schedulers)
        return try XCTUnwrap(scenarios.first { $0.name == name }, "no scenario \(name)")
    }

    private func run(_ scenario: any StressScenario, iterations: Int, seed: UInt64) -> ScenarioResult {
        StressRunner(limit: .iterations(iterations), seed: seed, leakGraceSeconds: 1).run(scenario)
    }

    func testARegisteredSchedulerGetsEveryScenarioItsConformancesAllow() throws {
        let names = try ScenarioCatalog.all(registering: [
            StressScheduler("user-serial") { SerialDispatchQueueScheduler(internalSerialQueueName: "user-serial") },
            StressScheduler("user-ordered-immediate") { IgnoresDisposeScheduler() },
        ]).map(\.name)
        for expected in [
            "dispose-vs-action.user-serial", "dispose-vs-observeOn.user-serial",
            "dispose-vs-observeOn.user-serial-generic-path", "dispose-vs-subscribeOn.user-serial",
            "dispose-vs-periodic.user-serial", "dispose-vs-periodic.user-serial-emulated",
            "dispose-vs-action.user-ordered-immediate", "dispose-vs-observeOn.user-ordered-immediate",
            "scheduled-disposable.concurrent-dispose.user-serial",
            "scheduled-disposable.concurrent-dispose.user-ordered-immediate",
        ] {
            XCTAssertTrue(names.contains(expected), expected)
        }
        // Not a Scheduler: no periodic scenario.
        XCTAssertFalse(names.contains("dispose-vs-periodic.user-ordered-immediate"))
        // The library's own are still there, under their names.
        XCTAssertTrue(names.contains("dispose-vs-action.serial-dispatch"))
        XCTAssertEqual(Set(names).count, names.count, "a scenario name repeats")
    }

    func testTheLibrarysSchedulerRegisteredAsAUsersPassesDisposeVersusAction() throws {
        let scenario = try scenario(
            named: "dispose-vs-action.user-serial",
            registering: [StressScheduler("user-serial") { SerialDispatchQueueScheduler(internalSerialQueueName: "user-serial") }])
        let result = run(scenario, iterations: 2_000, seed: 11)
        XCTAssertEqual(result.forbiddenCount, 0, ResultTable.render(result))
        XCTAssertEqual(result.leaked, 0)
    }

    func testABrokenSchedulerIsReportedWithItsForbiddenOutcomeAndAReplayableSeed() throws {
        let registration = StressScheduler("ignores-dispose") { IgnoresDisposeScheduler() }
        let scenario = try scenario(named: "dispose-vs-action.ignores-dispose", registering: [registration])
        let result = run(scenario, iterations: 2_000, seed: 42)
        XCTAssertEqual(result.verdict, .failed)
        XCTAssertGreaterThan(result.count(of: ScheduledActionOutcome.ranAfterDisposeReturned.id), 0)
        let table = ResultTable.render(result)
        XCTAssertTrue(table.contains("FORBIDDEN OUTCOME SEEN"), table)
        XCTAssertTrue(table.contains("seed 42"), table)
        // The seed replays: the same seed finds it again.
        let again = run(try self.scenario(named: "dispose-vs-action.ignores-dispose", registering: [registration]), iterations: 2_000, seed: 42)
        XCTAssertGreaterThan(again.count(of: ScheduledActionOutcome.ranAfterDisposeReturned.id), 0)
    }

    func testAScheduledDisposableOnAUsersSchedulerIsDisposedOnceAndOnThatScheduler() throws {
        let scenario = try scenario(
            named: "scheduled-disposable.concurrent-dispose.marked-queue",
            registering: [StressScheduler("marked-queue", isCurrent: { $0.isCurrent }) { MarkedQueueScheduler(runsInline: false) }])
        let result = run(scenario, iterations: 2_000, seed: 5)
        XCTAssertEqual(result.forbiddenCount, 0, ResultTable.render(result))
        XCTAssertEqual(result.count(of: ScheduledDisposableOnScheduler.Outcome.disposedOnScheduler.id), 2_000)
    }

    func testAUsersSchedulerThatRunsActionsOnTheCallersThreadIsCaughtByTheScheduledDisposableScenario() throws {
        let registration = StressScheduler("runs-inline", isCurrent: { $0.isCurrent }) { MarkedQueueScheduler(runsInline: true) }
        let scenario = try scenario(named: "scheduled-disposable.concurrent-dispose.runs-inline", registering: [registration])
        let result = run(scenario, iterations: 500, seed: 9)
        XCTAssertEqual(result.verdict, .failed)
        XCTAssertEqual(result.count(of: ScheduledDisposableOnScheduler.Outcome.disposedOffScheduler.id), 500, ResultTable.render(result))
        XCTAssertTrue(ResultTable.render(result).contains("disposed-off-scheduler"))
    }

    func testASchedulerThatNeverRunsItsActionsStopsItsScenarioNamingIt() throws {
        let registration = StressScheduler("never-runs") { NeverRunsScheduler() }.stallTimeout(seconds: 0.2)
        let scenario = try scenario(named: "dispose-vs-action.never-runs", registering: [registration])
        let started = DispatchTime.now().uptimeNanoseconds
        let result = StressRunner(limit: .iterations(100_000), seed: 3, leakGraceSeconds: 0.1).run(scenario)
        // One batch, not 100,000 iterations of waiting.
        XCTAssertLessThan(result.iterations, 100_000)
        XCTAssertGreaterThan(result.count(of: ScheduledActionOutcome.hung.id), 0)
        XCTAssertEqual(result.verdict, .failed)
        let table = ResultTable.render(result)
        XCTAssertTrue(table.contains("dispose-vs-action.never-runs"), table)
        XCTAssertTrue(table.contains("STOPPED: stopped after"), table)
        XCTAssertLessThan(DispatchTime.now().uptimeNanoseconds - started, 60_000_000_000)
    }

    func testTwoSchedulersUnderOneNameAreRefused() {
        XCTAssertThrowsError(try ScenarioCatalog.all(registering: [
            StressScheduler("twin") { IgnoresDisposeScheduler() }, StressScheduler("twin") { IgnoresDisposeScheduler() },
        ])) { error in
            XCTAssertTrue("\(error)".contains("two schedulers are registered as 'twin'"), "\(error)")
        }
        // A builtin's name is taken too.
        XCTAssertThrowsError(try ScenarioCatalog.all(registering: [StressScheduler("serial-dispatch") { IgnoresDisposeScheduler() }]))
    }

    func testANameThatWouldBreakTheCSVIsRefused() {
        for name in ["", "my loop", "loop,1", "loop\"", String(repeating: "x", count: 49)] {
            XCTAssertThrowsError(try ScenarioCatalog.all(registering: [StressScheduler(name) { IgnoresDisposeScheduler() }]), name) { error in
                XCTAssertTrue("\(error)".contains("e.g. 'my-event-loop'"), "\(error)")
            }
        }
    }

    func testAnUnorderedSchedulerWithoutAGateIsRefusedAndWithOneAccepted() throws {
        let queue = DispatchQueue(label: "unordered", attributes: .concurrent)
        XCTAssertThrowsError(try ScenarioCatalog.all(registering: [StressScheduler("unordered") { Unordered(queue: queue) }])) { error in
            XCTAssertTrue("\(error)".contains("register it with a gate"), "\(error)")
        }
        let names = try ScenarioCatalog.all(registering: [
            StressScheduler("unordered", gate: { scheduler, block in scheduler.queue.async(flags: .barrier, execute: block) }) {
                Unordered(queue: queue)
            }
        ]).map(\.name)
        XCTAssertTrue(names.contains("dispose-vs-action.unordered"))
    }
}

/// Broken: a serial queue whose disposables do nothing, so an action runs
/// even when its `dispose()` returned long before it started.
final class IgnoresDisposeScheduler: SerialScheduler, @unchecked Sendable {
    private let queue = DispatchQueue(label: "ignores-dispose")

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleInOrder(state, action: action)
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let work = QueuedAction(state: state, action: action)
        queue.async { work.run().dispose() }
        return Disposables.create()
    }
}

/// An action and its state, carried to the queue that runs it.
private final class QueuedAction<StateType>: @unchecked Sendable {
    let state: StateType
    let action: (StateType) -> Disposable
    init(state: StateType, action: @escaping (StateType) -> Disposable) {
        self.state = state
        self.action = action
    }
    func run() -> Disposable { action(state) }
}

/// A serial queue that knows its own thread. With `runsInline`, broken: it
/// runs every action at once on the caller's thread, not on its queue.
final class MarkedQueueScheduler: SerialScheduler, @unchecked Sendable {
    private static let key = DispatchSpecificKey<Int>()
    private let queue = DispatchQueue(label: "marked-queue")
    private let runsInline: Bool

    init(runsInline: Bool) {
        self.runsInline = runsInline
        queue.setSpecific(key: Self.key, value: 1)
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == 1 }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleInOrder(state, action: action)
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let cancel = SingleAssignmentDisposable()
        if runsInline {
            cancel.setDisposable(action(state))
            return cancel
        }
        let work = QueuedAction(state: state, action: action)
        queue.async {
            if !cancel.isDisposed {
                cancel.setDisposable(work.run())
            }
        }
        return cancel
    }
}

/// Broken: never runs what it is given.
final class NeverRunsScheduler: SerialScheduler, @unchecked Sendable {
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        Disposables.create()
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        Disposables.create()
    }
}

/// Not a SerialScheduler: actions on a concurrent queue.
final class Unordered: ImmediateScheduler, @unchecked Sendable {
    let queue: DispatchQueue
    init(queue: DispatchQueue) { self.queue = queue }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        ConcurrentDispatchQueueScheduler(queue: queue).schedule(state, action: action)
    }
}

final class StressCSVAfterEveryScenarioTests: XCTestCase {
    /// A scheduler that traps in one scenario ends the process; the CSV must
    /// already hold the scenarios before it. The second scenario reads the
    /// file while it runs: the first one's row must be there.
    func testTheCSVHoldsEveryFinishedScenarioBeforeTheNextStarts() throws {
        let path = NSTemporaryDirectory() + "stress-csv-\(UInt32.random(in: 0...UInt32.max)).csv"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let second = FakeScenario(name: "fake.second") { _ in
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.contains("fake.first") ? .first : .broken
        }
        let output = OutputRecorder()
        let command = StressCommand(
            scenarios: [FakeScenario(name: "fake.first") { _ in .first }, second], output: output.record)
        XCTAssertEqual(command.main(["--iterations", "10", "--seed", "1", "--csv", path]), StressCommand.success, output.text)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("fake.first") && text.contains("fake.second"), text)
    }
}

extension StressScheduler {
    /// `StressScheduler(SchedulerRegistration(name, isCurrent: isCurrent, gate: gate, make: make))`,
    /// shorter for these tests' many registrations.
    fileprivate init<S: ImmediateScheduler & SendableMetatype>(
        _ name: String, isCurrent: (@Sendable (S) -> Bool)? = nil,
        gate: (@Sendable (S, _ block: @escaping @Sendable () -> Void) -> Void)? = nil,
        make: @escaping @Sendable () -> S
    ) {
        self.init(SchedulerRegistration(name, isCurrent: isCurrent, gate: gate, make: make))
    }
}
