import Schedulers
import SchedulersTesting
import XCTest

/// `Observable.interval` on virtual time.
final class IntervalTests: XCTestCase {
    func testIntervalCountsOnePerPeriodStartingAfterOnePeriod() {
        // --- doc: Sources/Schedulers/Schedulers.docc/PeriodicWork.md ---
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        let subscription = Observable<Int>.interval(.seconds(10), scheduler: scheduler).subscribe(observer)
        scheduler.advanceTo(45)
        XCTAssertEqual(observer.events, [.next(10, 0), .next(20, 1), .next(30, 2), .next(40, 3)])
        subscription.dispose()
        // --- end ---
    }

    func testIntervalIsGenericOverTheIntegerType() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(UInt8.self)
        let subscription = Observable<UInt8>.interval(.seconds(1), scheduler: scheduler).subscribe(observer)
        scheduler.advanceTo(3)
        XCTAssertEqual(observer.events, [.next(1, 0), .next(2, 1), .next(3, 2)])
        subscription.dispose()
    }

    func testIntervalWrapsAroundAtTheIntegerMaximum() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int8.self)
        let subscription = Observable<Int8>.interval(.seconds(1), scheduler: scheduler).subscribe(observer)
        scheduler.advanceTo(130)
        XCTAssertEqual(observer.events.count, 130)
        XCTAssertEqual(observer.events[127], .next(128, 127))
        XCTAssertEqual(observer.events[128], .next(129, -128))
        subscription.dispose()
    }

    func testDisposedIntervalStopsTicking() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        let subscription = Observable<Int>.interval(.seconds(5), scheduler: scheduler).subscribe(observer)
        scheduler.advanceTo(12)
        subscription.dispose()
        scheduler.advanceTo(100)
        XCTAssertEqual(observer.events, [.next(5, 0), .next(10, 1)])
    }

    func testIntervalThroughTakeCompletesAndStops() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        _ = Observable<Int>.interval(.seconds(1), scheduler: scheduler).take(3).subscribe(observer)
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(1, 0), .next(2, 1), .next(3, 2), .completed(3)])
    }

    func testIntervalOnASerialDispatchQueueUsesTheNativeTimer() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "interval-native")
        let finished = expectation(description: "three ticks")
        let box = SequencesEventBox<Int>()
        let subscription = Observable<Int>.interval(.milliseconds(1), scheduler: scheduler)
            .take(3)
            .subscribe { event in
                box.append(SequencesRecordedEvent(event))
                if event.isStopEvent { finished.fulfill() }
            }
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(box.events, [.next(0), .next(1), .next(2), .completed])
        subscription.dispose()
    }
}
