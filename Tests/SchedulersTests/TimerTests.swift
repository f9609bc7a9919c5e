import Schedulers
import SchedulersTesting
import XCTest

/// `Observable.timer`, one-shot and periodic, on virtual time.
final class TimerTests: XCTestCase {
    func testOneShotTimerSendsZeroAtDueTimeThenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let box = SequencesEventBox<Int>()
        let subscription = Observable<Int>.timer(.seconds(30), scheduler: scheduler).subscribe { event in
            times.append(scheduler.clock)
            box.append(SequencesRecordedEvent(event))
        }
        scheduler.start()
        XCTAssertEqual(box.events, [.next(0), .completed])
        XCTAssertEqual(times, [30, 30])
        subscription.dispose()
    }

    func testPeriodicTimerStartsAtDueTimeThenEveryPeriod() {
        let scheduler = TestScheduler(initialClock: 0)
        var ticks: [(time: Int, value: Int64)] = []
        let subscription = Observable<Int64>.timer(.seconds(5), period: .seconds(10), scheduler: scheduler)
            .subscribe(onNext: { ticks.append((scheduler.clock, $0)) })
        scheduler.advanceTo(40)
        XCTAssertEqual(ticks.map(\.value), [0, 1, 2, 3])
        XCTAssertEqual(ticks.map(\.time), [5, 15, 25, 35])
        subscription.dispose()
    }

    func testTimerDisposedBeforeItsDueTimeNeverFires() {
        let scheduler = TestScheduler(initialClock: 0)
        let (events, subscription) = sequencesRecord(Observable<Int>.timer(.seconds(30), scheduler: scheduler))
        scheduler.advanceTo(29)
        subscription.dispose()
        scheduler.start()
        XCTAssertEqual(events(), [])
    }

    func testNegativeDueTimeCountsAsZero() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let (events, _) = sequencesRecord(Observable<Int>.timer(.seconds(-5), scheduler: scheduler))
        scheduler.advanceTo(0)
        XCTAssertEqual(events(), [.next(0), .completed])
    }

    func testNeverDueTimeNeverFires() {
        let scheduler = TestScheduler(initialClock: 0)
        let (events, subscription) = sequencesRecord(Observable<Int>.timer(.never, scheduler: scheduler))
        scheduler.advanceTo(1_000)
        XCTAssertEqual(events(), [])
        subscription.dispose()
    }
}
