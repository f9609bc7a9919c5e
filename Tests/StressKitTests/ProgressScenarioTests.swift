import Dispatch
import Foundation
import Schedulers
import XCTest
@testable import StressKit

/// The progress scenarios grade what failed to happen: a target that holds
/// a second job until the first ends loses parallelism, a timer whose
/// action waits behind work enqueued after it fell due is starved; the
/// platform's references are reported and never gated.
final class ProgressScenarioTests: XCTestCase {
    /// `count` iterations of `scenario`, whatever share of `--iterations` it takes.
    private func run(_ scenario: any StressScenario, iterations count: Int, seed: UInt64 = 1) -> ScenarioResult {
        StressRunner(limit: .iterations(count * scenario.iterationDivisor), seed: seed, leakGraceSeconds: 1).run(scenario)
    }

    func testARegisteredSerialSchedulerDeclaredParallelLosesParallelism() throws {
        let registration = StressScheduler(
            SchedulerRegistration("one-at-a-time") { SerialDispatchQueueScheduler(internalSerialQueueName: "one-at-a-time") }
        ).promisingParallelism()
        let scenario = try XCTUnwrap(
            try ScenarioCatalog.all(registering: [registration]).first { $0.name == "parallel-progress.one-at-a-time" })
        let result = run(scenario, iterations: 2)
        XCTAssertEqual(result.iterations, 2)
        XCTAssertEqual(result.count(of: ParallelProgress.Outcome.serialized.id), 2, ResultTable.render(result))
        XCTAssertEqual(result.verdict, .failed)
    }

    func testARegisteredConcurrentSchedulerDeclaredParallelRunsBothJobsAtOnce() throws {
        let queue = DispatchQueue(label: "user-concurrent", attributes: .concurrent)
        let registration = StressScheduler(
            SchedulerRegistration("user-concurrent", gate: { scheduler, block in
                scheduler.queue.async(flags: .barrier, execute: block)
            }) { Unordered(queue: queue) }
        ).promisingParallelism()
        let scenario = try XCTUnwrap(
            try ScenarioCatalog.all(registering: [registration]).first { $0.name == "parallel-progress.user-concurrent" })
        let result = run(scenario, iterations: 20)
        XCTAssertEqual(result.count(of: ParallelProgress.Outcome.overlapped.id), 20, ResultTable.render(result))
        XCTAssertEqual(result.verdict, .passed)
    }

    func testOnlyRegistrationsDeclaredParallelGetTheParallelismScenario() throws {
        let names = try ScenarioCatalog.all(registering: [
            StressScheduler(SchedulerRegistration("plain-serial") { SerialDispatchQueueScheduler(internalSerialQueueName: "p") })
        ]).map(\.name)
        XCTAssertFalse(names.contains("parallel-progress.plain-serial"))
        for expected in [
            "parallel-progress.concurrent-dispatch", "parallel-progress.operation-queue.width-2",
            "parallel-progress.operation-queue.width-2.task-executor", "due-order.serial-dispatch",
            "periodic-progress.serial-dispatch", "reference.executor-fifo.main-actor",
            "reference.parallel-progress.global-concurrent-executor",
        ] {
            XCTAssertTrue(names.contains(expected), expected)
        }
    }

    /// A serial queue whose timers reach it only 300 ms after they fall due,
    /// as a timer handler stuck behind an open batch does.
    private static let lateTimers = SerialProgressTarget(name: "late-timers") {
        let queue = DispatchQueue(label: "late-timers")
        return .init(
            after: { seconds, work in
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds + 0.3) { queue.async(execute: work) }
            },
            action: { work in queue.async(execute: work) },
            job: { work in queue.async(execute: work) },
            periodic: { _, _ in .init(dispose: {}, skippedTicks: { nil }) },
            settle: { seconds in
                let done = DispatchSemaphore(value: 0)
                queue.async { done.signal() }
                return done.wait(timeout: .now() + seconds) == .success
            },
            finish: {}, isIsolated: nil)
    }

    func testATimerStarvedBehindWorkEnqueuedAfterItFellDueIsForbidden() {
        let result = run(DueOrderProgress(Self.lateTimers), iterations: 12, seed: 3)
        let starved = result.count(of: DueOrderProgress.Outcome.timerOvertakenByJobs.id)
            + result.count(of: DueOrderProgress.Outcome.timerOvertakenByActions.id)
        XCTAssertGreaterThan(starved, 0, ResultTable.render(result))
        XCTAssertEqual(result.count(of: DueOrderProgress.Outcome.actionOvertakenByJobs.id), 0, ResultTable.render(result))
        XCTAssertEqual(result.count(of: DueOrderProgress.Outcome.actionOvertakenByActions.id), 0, ResultTable.render(result))
        XCTAssertEqual(result.verdict, .failed)
    }

    func testAReferencesForbiddenOutcomesAreReportedButNeverFailTheRun() {
        let output = OutputRecorder()
        let command = StressCommand(
            scenarios: [FakeScenario(name: "reference.fake.platform") { $0 == 3 ? .broken : .first }], output: output.record)
        XCTAssertEqual(command.main(["--iterations", "20", "--seed", "1"]), StressCommand.success, output.text)
        XCTAssertTrue(output.text.contains("[REFERENCE] reference.fake.platform"), output.text)
        XCTAssertTrue(output.text.contains("forbidden on the library, seen on this reference"), output.text)
        XCTAssertTrue(output.text.contains("references that broke the promise (reported, not gated): reference.fake.platform"), output.text)
    }

    func testAScenarioTakesItsShareOfTheIterationsOneBatchAtATime() {
        let scenario = ParallelProgress(.concurrentDispatch)
        XCTAssertEqual(scenario.batchLimit, 1)
        let result = StressRunner(limit: .iterations(1_000), seed: 1).run(scenario)
        XCTAssertEqual(result.iterations, 1_000 / scenario.iterationDivisor)
        // Fewer than one share still runs one iteration.
        XCTAssertEqual(StressRunner(limit: .iterations(3), seed: 1).run(scenario).iterations, 1)
    }
}
