import Foundation
import SchedulersTesting
import Testing

@testable import Schedulers

/// Guarantee 9 in Guarantees.md for due times, on every kind of scheduler: a
/// negative due time means "due now" and `.never` means "never runs", with no
/// hang and no time in the past. `BadInputTests` checks the periods and the
/// other refused inputs.
@Suite struct GuaranteeBadInputTests {
    @Test(.tags(.guarantee9))
    func badDueTimesGetTheirDocumentedAnswer() {
        // Virtual time: a negative due time runs at the current clock (not in
        // the past), `.never` queues nothing, and running the scheduler
        // returns without moving the clock to the end of time.
        let virtual = TestScheduler(initialClock: 100, simulateProcessingDelay: false)
        var log: [String] = []
        _ = virtual.scheduleRelative((), dueTime: .seconds(-30)) { _ in
            log.append("negative at \(virtual.clock)")
            return Disposables.create()
        }
        _ = virtual.scheduleRelative((), dueTime: .never) { _ in
            log.append("never at \(virtual.clock)")
            return Disposables.create()
        }
        #expect(virtual.queuedCount == 1, "`.never` queues nothing")
        virtual.start()
        #expect(log == ["negative at 100"])
        #expect(virtual.clock == 100)

        // The same on dates.
        let start = Date(timeIntervalSince1970: 1_000_000)
        let historical = HistoricalScheduler(initialClock: start)
        var historicalRuns: [Date] = []
        _ = historical.scheduleRelative((), dueTime: .milliseconds(-1_500)) { _ in
            historicalRuns.append(historical.clock)
            return Disposables.create()
        }
        _ = historical.scheduleRelative((), dueTime: .never) { _ in
            historicalRuns.append(historical.clock)
            return Disposables.create()
        }
        historical.start()
        #expect(historicalRuns == [start])
        #expect(historical.clock == start)

        // Sequences: a timer due in the past fires now; one due `.never`
        // sends nothing, not even completion, and does not hang the test.
        let timers = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        var timerEvents: [String] = []
        _ = Observable<Int>.timer(.seconds(-5), scheduler: timers).subscribe(
            onNext: { timerEvents.append("past \($0) at \(timers.clock)") },
            onCompleted: { timerEvents.append("past completed at \(timers.clock)") }
        )
        // Kept and disposed below: a subscription that never ends lives until disposed.
        let neverTimer = Observable<Int>.timer(.never, scheduler: timers).subscribe(
            onNext: { _ in timerEvents.append("never next") },
            onCompleted: { timerEvents.append("never completed") }
        )
        _ = Observable<Int>.timer(.seconds(-5), period: .seconds(10), scheduler: timers).take(3).subscribe(
            onNext: { timerEvents.append("periodic \($0) at \(timers.clock)") }
        )
        timers.start()
        #expect(timerEvents == [
                "past 0 at 0", "past completed at 0", "periodic 0 at 0", "periodic 1 at 10", "periodic 2 at 20",
            ])
        neverTimer.dispose()

        // Periodic work whose first tick is due in the past starts now;
        // one whose first tick is due `.never` never ticks.
        let periodic = TestScheduler(initialClock: 50, simulateProcessingDelay: false)
        var ticks: [String] = []
        let late = periodic.schedulePeriodic("late", startAfter: .seconds(-5), period: .seconds(10)) { name in
            ticks.append("\(name) at \(periodic.clock)")
            return name
        }
        let never = periodic.schedulePeriodic("never", startAfter: .never, period: .seconds(10)) { name in
            ticks.append("\(name) at \(periodic.clock)")
            return name
        }
        periodic.advanceTo(70)
        #expect(ticks == ["late at 50", "late at 60", "late at 70"])
        late.dispose()
        never.dispose()
        // Real queues: SchedulerConformanceTests.negativeDueTimeIsDueNowAndNeverDueTimeNeverRuns
        // checks every scheduler.
    }
}
