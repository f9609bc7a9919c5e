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
