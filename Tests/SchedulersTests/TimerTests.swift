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

    func testTimerWithANeverPeriodSendsZeroOnceAndNothingMore() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        let subscription = Observable<Int>.timer(.seconds(30), period: .never, scheduler: scheduler).subscribe(observer)
        scheduler.advanceTo(1_000)
        // As RxSwift's repeating timer with a `.never` interval: one fire, no completion.
        XCTAssertEqual(observer.events, [.next(30, 0)])
        subscription.dispose()
    }

    func testTimerWithANeverPeriodOnADispatchSchedulerSendsZeroOnce() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.timer.never-period")
        let probe = DispatchProbe()
        let subscription = Observable<Int>.timer(.milliseconds(1), period: .never, scheduler: scheduler)
            .subscribe(onNext: { probe.record("\($0)") }, onCompleted: { probe.record("completed") })
        XCTAssertTrue(dispatchEventually { !probe.events.isEmpty })
        usleep(20_000)
        dispatchDrain(scheduler)
        XCTAssertEqual(probe.events, ["0"])
        subscription.dispose()
    }

    func testTimerDueAtOnceWithPeriodOneNeverTicksTwiceAtOneTime() {
        // RxTest's expectations: subscribed at 200, the first tick runs at 201
        // (the processing delay of work due now) and every later tick one
        // period after it.
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.start(disposed: 205) {
            Observable<Int>.timer(.seconds(0), period: .seconds(1), scheduler: scheduler)
        }
        XCTAssertEqual(observer.events, [.next(201, 0), .next(202, 1), .next(203, 2), .next(204, 3)])
    }

    func testTimerDueAtOnceKeepsItsPeriodFromTheDelayedFirstTickLikeRxSwift() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.start(disposed: 230) {
            Observable<Int>.timer(.seconds(0), period: .seconds(10), scheduler: scheduler)
        }
        XCTAssertEqual(observer.events, [.next(201, 0), .next(211, 1), .next(221, 2)])
    }
}
