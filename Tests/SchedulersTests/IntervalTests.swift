import Schedulers
import SchedulersTesting
import XCTest

/// `Observable.interval` on virtual time.
final class IntervalTests: XCTestCase {
    func testIntervalCountsOnePerPeriodStartingAfterOnePeriod() {
        let scheduler = TestScheduler(initialClock: 0)
        var ticks: [(time: Int, value: Int)] = []
        let subscription = Observable<Int>.interval(.seconds(10), scheduler: scheduler)
            .subscribe(onNext: { ticks.append((scheduler.clock, $0)) })
        scheduler.advanceTo(45)
        XCTAssertEqual(ticks.map(\.value), [0, 1, 2, 3])
        XCTAssertEqual(ticks.map(\.time), [10, 20, 30, 40])
        subscription.dispose()
    }

    func testIntervalIsGenericOverTheIntegerType() {
        let scheduler = TestScheduler(initialClock: 0)
        var values: [UInt8] = []
        let subscription = Observable<UInt8>.interval(.seconds(1), scheduler: scheduler)
            .subscribe(onNext: { values.append($0) })
        scheduler.advanceTo(3)
        XCTAssertEqual(values, [0, 1, 2])
        subscription.dispose()
    }

    func testIntervalWrapsAroundAtTheIntegerMaximum() {
        let scheduler = TestScheduler(initialClock: 0)
        var values: [Int8] = []
        let subscription = Observable<Int8>.interval(.seconds(1), scheduler: scheduler)
            .subscribe(onNext: { values.append($0) })
        scheduler.advanceTo(130)
        XCTAssertEqual(values.count, 130)
        XCTAssertEqual(values[127], 127)
        XCTAssertEqual(values[128], -128)
        subscription.dispose()
    }

    func testDisposedIntervalStopsTicking() {
        let scheduler = TestScheduler(initialClock: 0)
        var values: [Int] = []
        let subscription = Observable<Int>.interval(.seconds(5), scheduler: scheduler)
            .subscribe(onNext: { values.append($0) })
        scheduler.advanceTo(12)
        subscription.dispose()
        scheduler.advanceTo(100)
        XCTAssertEqual(values, [0, 1])
    }

    func testIntervalThroughTakeCompletesAndStops() {
        let scheduler = TestScheduler(initialClock: 0)
        let (events, _) = sequencesRecord(Observable<Int>.interval(.seconds(1), scheduler: scheduler).take(3))
        scheduler.start()
        XCTAssertEqual(events(), [.next(0), .next(1), .next(2), .completed])
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
