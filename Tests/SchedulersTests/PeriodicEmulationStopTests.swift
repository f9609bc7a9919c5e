import Schedulers
import SchedulersTesting
import Testing

/// Periods the emulation refuses: they stop the program with a message, as exit tests.
@Suite struct PeriodicEmulationStopTests {
    @Test func zeroPeriodOnAVirtualClockThatWouldNeverMoveStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
            _ = scheduler.schedulePeriodicEmulated((), startAfter: .seconds(1), period: .seconds(0)) { _ in }
        }
        expectStopped(result, messageContaining: "period is zero, but this virtual-time scheduler")
    }

    @Test func negativePeriodStopsWithAMessageNamingPeriod() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = TestScheduler(initialClock: 0)
            _ = scheduler.schedulePeriodic((), startAfter: .seconds(1), period: .milliseconds(-10)) { _ in }
        }
        expectStopped(result, messageContaining: "period must be positive")
    }
}
