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
