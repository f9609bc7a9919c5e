import Schedulers
import SchedulersTesting
import XCTest

/// The RxTest-style helpers of SchedulersTesting, used on the operators.
final class ObservableTestingHelpersTests: XCTestCase {
    func testStartRecordsAHotObservableThroughMapAndFilter() {
        // --- doc: Sources/Schedulers/Schedulers.docc/TestingOnVirtualTime.md ---
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([
            .next(150, 1),
            .next(210, 2),
            .next(220, 3),
            .next(230, 4),
            .completed(300),
            .next(310, 5),
        ])
        let observer = scheduler.start {
            source.map { $0 * 10 }.filter { $0 != 30 }
        }
        XCTAssertEqual(observer.events, [
            .next(210, 20),
            .next(230, 40),
            .completed(300),
        ])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 300)])
        // --- end ---
    }

    func testColdObservableTimesAreRelativeToSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createColdObservable([
            .next(10, "a"),
            .next(20, "b"),
            .error(30, SequencesTestError(), String.self),
        ])
        let observer = scheduler.start(created: 100, subscribed: 200, disposed: 1000) { source }
        XCTAssertEqual(observer.events, [
            .next(210, "a"),
            .next(220, "b"),
            .error(230, SequencesTestError(), String.self),
        ])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 1000)], "subscribed directly: nothing disposes it before 1000")
    }

    func testDisposalTimeCutsTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.next(210, 1), .next(260, 2)])
        let observer = scheduler.start(disposed: 250) { source.take(5) }
        XCTAssertEqual(observer.events, [.next(210, 1)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 250)])
    }

    func testObserveOnAndSubscribeOnOnTheTestScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230, Int.self)])
        let observer = scheduler.start { source.subscribe(on: scheduler).observe(on: scheduler) }
        XCTAssertEqual(observer.events, [.next(211, 1), .next(221, 2), .completed(231)])
        XCTAssertEqual(source.subscriptions, [Subscription(201, 231)])
    }

    func testIntervalThroughStart() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.start(disposed: 245) {
            Observable<Int>.interval(.seconds(10), scheduler: scheduler)
        }
        XCTAssertEqual(observer.events, [.next(210, 0), .next(220, 1), .next(230, 2), .next(240, 3)])
    }

    func testCreateObserverRecordsWithTheClock() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(5) { observer.onNext(1) }
        scheduler.scheduleAt(7) { observer.onCompleted() }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(5, 1), .completed(7)])
        XCTAssertEqual(Subscription(1).debugDescription, "(1 : Infinity)")
    }
}
