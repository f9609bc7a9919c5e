import Dispatch
import Foundation
import Schedulers
import XCTest

/// Where non-isolated async code runs: whether the caller is on `queue` (a
/// queue-specific value), or on `operationQueue`.
private func runningOn(_ key: DispatchSpecificKey<String>) async -> String? {
    DispatchQueue.getSpecific(key: key)
}

private func currentOperationQueueName() async -> String? {
    OperationQueue.current?.name
}

/// Blocks the calling thread, without suspending, until `semaphore` is
/// signalled or 10 s pass; returns whether it was signalled.
private func blockUntilSignalled(_ semaphore: DispatchSemaphore) -> Bool {
    semaphore.wait(timeout: .now() + 10) == .success
}

/// Starts a task on `executor` that blocks its thread until a second task on
/// the same executor has started, starts that second task once the first is
/// running, and returns whether the second started while the first still
/// ran (`false` when the first gave up after 10 s: the second waited for
/// the first's thread).
private func secondTaskStartsWhileTheFirstRuns(on executor: some TaskExecutor) async -> Bool {
    let firstRuns = DispatchSemaphore(value: 0)
    let secondStarted = DispatchSemaphore(value: 0)
    let first = Task(executorPreference: executor) {
        firstRuns.signal()
        return blockUntilSignalled(secondStarted)
    }
    // The second job is enqueued only while the first one runs: enqueued
    // before, it would find a run of the executor still idle.
    guard blockUntilSignalled(firstRuns) else { return false }
    let second = Task(executorPreference: executor) {
        _ = secondStarted.signal()
    }
    let startedWhileFirstRan = await first.value
    await second.value
    return startedWhileFirstRan
}

final class SchedulerTaskExecutorTests: XCTestCase {
    func testATaskPreferringAConcurrentDispatchSchedulerRunsOnItsQueue() async {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "task-executor.concurrent", attributes: .concurrent)
        queue.setSpecific(key: key, value: "task-executor.concurrent")
        let scheduler = ConcurrentDispatchQueueScheduler(queue: queue)
        let seen = await Task(executorPreference: scheduler.taskExecutor) {
            let inBody = DispatchQueue.getSpecific(key: key)
            let inNonisolatedCall = await runningOn(key)
            async let child = runningOn(key)
            return [inBody, inNonisolatedCall, await child]
        }.value
        XCTAssertEqual(seen, ["task-executor.concurrent", "task-executor.concurrent", "task-executor.concurrent"])
        let elsewhere = await Task { DispatchQueue.getSpecific(key: key) }.value
        XCTAssertNil(elsewhere, "without the preference the task runs on the global executor")
    }

    /// Jobs of many tasks at once all run on the scheduler's queue, several
    /// at a time when the machine has the processors, and once the tasks
    /// have ended nothing keeps the executor.
    func testAFloodOfTasksRunsEveryJobOnTheQueueAndThenLetsTheExecutorGo() async throws {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "task-executor.flood", attributes: .concurrent)
        queue.setSpecific(key: key, value: "task-executor.flood")
        weak var weakExecutor: SchedulerTaskExecutor?
        let onQueue = try await { () async throws -> [Bool] in
            let executor = ConcurrentDispatchQueueScheduler(queue: queue).taskExecutor
            weakExecutor = executor
            return await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<2_000 {
                    group.addTask(executorPreference: executor) {
                        let first = DispatchQueue.getSpecific(key: key) != nil
                        await Task.yield()
                        return first && DispatchQueue.getSpecific(key: key) != nil
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }()
        XCTAssertEqual(onQueue.count, 2_000)
        XCTAssertTrue(onQueue.allSatisfy { $0 }, "every job ran on the scheduler's queue")
        // The last run of the executor's block lets it go as it ends, just
        // after the last job returned.
        let deadline = Date().addingTimeInterval(5)
        while weakExecutor != nil, Date() < deadline {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        XCTAssertNil(weakExecutor, "nothing keeps the executor once its tasks have ended")
    }

    /// Jobs run at once on up to `width` threads (one per processor): a job
    /// enqueued while another runs starts on a second thread, not after the
    /// first ends, also when the first never suspends.
    func testAJobStartsWhileAnotherJobOfTheConcurrentDispatchExecutorRuns() async throws {
        try XCTSkipIf(ProcessInfo.processInfo.activeProcessorCount < 2, "one processor: the executor runs one job at a time")
        let queue = DispatchQueue(label: "task-executor.parallel", attributes: .concurrent)
        let executor = ConcurrentDispatchQueueScheduler(queue: queue).taskExecutor
        let parallel = await secondTaskStartsWhileTheFirstRuns(on: executor)
        XCTAssertTrue(parallel, "the second job waited for the first job's thread")
    }

    /// The same on an operation queue that runs two operations at once.
    func testAJobStartsWhileAnotherJobOfTheOperationQueueExecutorRuns() async {
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 2
        let executor = OperationQueueScheduler(operationQueue: operationQueue).taskExecutor
        let parallel = await secondTaskStartsWhileTheFirstRuns(on: executor)
        XCTAssertTrue(parallel, "the second job waited for the first job's operation")
    }

    func testATaskPreferringAnOperationQueueSchedulerRunsOnItsOperationQueue() async {
        let operationQueue = OperationQueue()
        operationQueue.name = "task-executor.operations"
        operationQueue.maxConcurrentOperationCount = 2
        let scheduler = OperationQueueScheduler(operationQueue: operationQueue)
        let seen = await Task(executorPreference: scheduler.taskExecutor) {
            let inBody = OperationQueue.current?.name
            let inNonisolatedCall = await currentOperationQueueName()
            return [inBody, inNonisolatedCall]
        }.value
        XCTAssertEqual(seen, ["task-executor.operations", "task-executor.operations"])
    }
}
