import Foundation
import Schedulers
import Testing

/// Periods the dispatch and operation-queue schedulers refuse, as exit tests.
@Suite struct DispatchPeriodicStopTests {
    @Test func negativePeriodStopsWithMessageNamingPeriod() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = ConcurrentDispatchQueueScheduler(qos: .default)
            _ = scheduler.schedulePeriodic((), startAfter: .seconds(0), period: .milliseconds(-1)) { $0 }
        }
        expectStopped(result, messageContaining: "period must be positive")
    }
}
