import Schedulers
import Testing

/// `checkIsolated()` off the scheduler's queue stops with a message naming the queue, as an exit test.
@Suite struct SerialSchedulerExecutorStopTests {
    @Test func checkIsolatedStopsOffTheSchedulersQueue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "executor.check-isolated")
            scheduler.executor.checkIsolated()
        }
        expectStopped(
            result,
            messageContaining: "Not running on the scheduler of this SerialSchedulerExecutor: dispatch queue 'executor.check-isolated'")
    }
}
