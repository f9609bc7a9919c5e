import Schedulers
import SchedulersTesting
import XCTest

/// `Observable.timer`, one-shot and periodic, on virtual time.
final class TimerTests: XCTestCase {
    func testOneShotTimerSendsZeroAtDueTimeThenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        let subscription = Observable<Int>.timer(.seconds(30), scheduler: scheduler).subscribe(observer)
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(30, 0), .completed(30)])
        subscription.dispose()
    }

    func testPeriodicTimerStartsAtDueTimeThenEveryPeriod() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int64.self)
        let subscription = Observable<Int64>.timer(.seconds(5), period: .seconds(10), scheduler: scheduler)
            .subscribe(observer)
        scheduler.advanceTo(40)
        XCTAssertEqual(observer.events, [.next(5, 0), .next(15, 1), .next(25, 2), .next(35, 3)])
        subscription.dispose()
    }

    func testTimerDisposedBeforeItsDueTimeNeverFires() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        let subscription = Observable<Int>.timer(.seconds(30), scheduler: scheduler).subscribe(observer)
        scheduler.advanceTo(29)
        subscription.dispose()
        scheduler.start()
        XCTAssertEqual(observer.events, [])
    }

    func testNegativeDueTimeCountsAsZero() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let observer = scheduler.createObserver(Int.self)
        _ = Observable<Int>.timer(.seconds(-5), scheduler: scheduler).subscribe(observer)
        scheduler.advanceTo(0)
        XCTAssertEqual(observer.events, [.next(0, 0), .completed(0)])
    }

    func testNeverDueTimeNeverFires() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        let subscription = Observable<Int>.timer(.never, scheduler: scheduler).subscribe(observer)
        scheduler.advanceTo(1_000)
        XCTAssertEqual(observer.events, [])
        subscription.dispose()
    }
}
