import Foundation
import Schedulers
import SchedulersTesting
import Testing

/// Guarantee 9's programming errors: a negative period, a zero
/// period where the clock could never move, and an operation queue that can
/// run nothing stop the program with a message naming what is wrong. Exit
/// tests; the bad input that gets an answer instead is in `BadInputTests`.
@Suite struct BadInputStopTests {
    @Test(.tags(.guarantee9)) func zeroPeriodOnHistoricalSchedulerStopsInsteadOfHanging() async {
        // Work due now runs without moving this clock: zero-period ticks would
        // never let time pass (RxSwift hangs in advanceTo here).
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = HistoricalScheduler()
            _ = scheduler.schedulePeriodic(0, startAfter: .seconds(1), period: .seconds(0)) { $0 }
        }
        expectStopped(result, messageContaining: "period is zero, but this virtual-time scheduler")
    }

    @Test(.tags(.guarantee9)) func negativePeriodOfEmulatedPeriodicWorkStopsNamingPeriod() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = TestScheduler(initialClock: 0)
            _ = scheduler.schedulePeriodicEmulated(0, startAfter: .seconds(1), period: .milliseconds(-1)) { $0 }
        }
        expectStopped(result, messageContaining: "period must be positive")
    }

    @Test(.tags(.guarantee9)) func negativePeriodOnConcurrentDispatchQueueSchedulerStopsNamingPeriod() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = ConcurrentDispatchQueueScheduler(qos: .default)
            _ = scheduler.schedulePeriodic(0, startAfter: .seconds(0), period: .seconds(-1)) { $0 }
        }
        expectStopped(result, messageContaining: "period must be positive")
    }

    @Test(.tags(.guarantee9)) func rangeWhoseLastElementOverflowsStopsNamingTheOverflow() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // 2 + 255 - 1 = 256: one past UInt8.max.
            _ = Observable<UInt8>.range(start: 2, count: 255)
        }
        expectStopped(result, messageContaining: "range(start:count:) overflows")
    }

    @Test(.tags(.guarantee9)) func zeroMaxConcurrentOperationCountStopsNamingIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 0
            _ = OperationQueueScheduler(operationQueue: queue)
        }
        expectStopped(result, messageContaining: "maxConcurrentOperationCount")
    }
}
