import Foundation
import Schedulers
import Testing

/// An operation queue that can run nothing stops the program with a message
/// naming `maxConcurrentOperationCount`, as exit tests.
@Suite struct OperationQueueSchedulerStopTests {
    @Test func zeroMaxConcurrentOperationCountStopsWithMessageNamingIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 0
            _ = OperationQueueScheduler(operationQueue: queue)
        }
        expectStopped(result, messageContaining: "maxConcurrentOperationCount")
    }

    @Test func zeroMaxConcurrentOperationCountSetLaterStopsScheduleWithMessageNamingIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = OperationQueue()
            let scheduler = OperationQueueScheduler(operationQueue: queue)
            queue.maxConcurrentOperationCount = 0
            _ = scheduler.schedule(()) { _ in Disposables.create() }
        }
        expectStopped(result, messageContaining: "maxConcurrentOperationCount")
    }
}
