import Schedulers
import SchedulersTesting
import Testing

/// `VirtualTimeScheduler` misuse that stops the program with a message, as
/// exit tests, on a bare scheduler of one-second ticks built from the public API.
@Suite struct VirtualTimeSchedulerStopTests {
    @Test func advanceToAPastTimeStopsWithAMessageNamingVirtualTime() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = VirtualTimeScheduler(
                initialClock: 50, converter: TestSchedulerVirtualTimeConverter(resolution: 1.0))
            scheduler.advanceTo(10)
        }
        expectStopped(result, messageContaining: "virtualTime 10 is before the clock 50")
    }

    @Test func advanceToFromARunningActionStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = VirtualTimeScheduler(
                initialClock: 0, converter: TestSchedulerVirtualTimeConverter(resolution: 1.0))
            _ = scheduler.scheduleAbsoluteVirtual((), time: 1) { _ in
                scheduler.advanceTo(5)
                return Disposables.create()
            }
            scheduler.start()
        }
        expectStopped(result, messageContaining: "advanceTo(_:) was called while the scheduler is running")
    }

    @Test func negativeSleepStopsWithAMessageNamingVirtualInterval() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = VirtualTimeScheduler(
                initialClock: 0, converter: TestSchedulerVirtualTimeConverter(resolution: 1.0))
            scheduler.sleep(-3)
        }
        expectStopped(result, messageContaining: "virtualInterval -3 is negative")
    }
}
