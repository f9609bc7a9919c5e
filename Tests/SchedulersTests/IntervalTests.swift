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

    func testIntervalWithANeverPeriodNeverSendsAnything() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        let subscription = Observable<Int>.interval(.never, scheduler: scheduler).subscribe(observer)
        scheduler.advanceTo(1_000_000)
        // As RxSwift's: the first element would be due after one period.
        XCTAssertEqual(observer.events, [])
        subscription.dispose()
    }

    func testIntervalWithANeverPeriodOnADispatchSchedulerNeverSendsAnything() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.interval.never")
        let probe = DispatchProbe()
        let subscription = Observable<Int>.interval(.never, scheduler: scheduler)
            .subscribe(onNext: { probe.record("\($0)") }, onCompleted: { probe.record("completed") })
        usleep(20_000)
        dispatchDrain(scheduler)
        XCTAssertEqual(probe.events, [])
        subscription.dispose()
    }

    /// A `.never` period: the first tick after `startAfter`, no other, as
    /// RxSwift's; here on the emulation (virtual time).
    func testSchedulePeriodicWithANeverPeriodTicksOnceAfterStartAfter() {
        let scheduler = TestScheduler(initialClock: 0)
        var ticks: [Int] = []
        let job = scheduler.schedulePeriodic(0, startAfter: .seconds(30), period: .never) { count in
            ticks.append(scheduler.clock)
            return count + 1
        }
        scheduler.advanceTo(1_000_000)
        XCTAssertEqual(ticks, [30])
        job.dispose()
    }

    /// The same natively, on a dispatch timer of each scheduler that has one.
    func testSchedulePeriodicWithANeverPeriodOnADispatchSchedulerTicksOnce() {
        let schedulers: [any Scheduler] = [
            SerialDispatchQueueScheduler(internalSerialQueueName: "test.periodic.never"),
            ConcurrentDispatchQueueScheduler(qos: .default),
            OperationQueueScheduler(operationQueue: OperationQueue()),
        ]
        for scheduler in schedulers {
            let probe = DispatchProbe()
            let job = scheduler.schedulePeriodic(0, startAfter: .milliseconds(1), period: .never) { count in
                probe.record("\(count)")
                return count + 1
            }
            XCTAssertTrue(dispatchEventually { !probe.events.isEmpty }, "\(type(of: scheduler))")
            usleep(20_000)
            XCTAssertEqual(probe.events, ["0"], "\(type(of: scheduler))")
            XCTAssertEqual((job as? PeriodicDisposable)?.skippedTicks, 0, "\(type(of: scheduler))")
            job.dispose()
        }
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
