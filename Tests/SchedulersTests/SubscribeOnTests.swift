import Dispatch
import Foundation
import Schedulers
import SchedulersTesting
import XCTest

/// `subscribe(on:)`: where subscription and disposal run, and the race with dispose.
final class SubscribeOnTests: XCTestCase {
    func testSubscriptionRunsOnTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        var subscribedAt: Int?
        let observable = Observable<Int>.create { observer in
            subscribedAt = scheduler.clock
            observer.onNext(1)
            return Disposables.create()
        }
        let observer = scheduler.createObserver(Int.self)
        let subscription = observable.subscribe(on: scheduler).subscribe(observer)
        XCTAssertNil(subscribedAt, "not subscribed inside subscribe()")
        scheduler.advanceTo(5)
        XCTAssertEqual(subscribedAt, 1)
        XCTAssertEqual(observer.events, [.next(1, 1)])
        subscription.dispose()
        // The disposal is scheduled on the scheduler, and the source captures
        // the scheduler: run it, so the test leaves no cycle behind.
        scheduler.advanceTo(10)
    }

    func testDisposalRunsOnTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        var disposedAt: Int?
        let observable = Observable<Int>.create { _ in
            Disposables.create { disposedAt = scheduler.clock }
        }
        let subscription = observable.subscribeOn(scheduler).subscribe()
        scheduler.advanceTo(10)
        subscription.dispose()
        XCTAssertNil(disposedAt, "disposal is scheduled, not run inline")
        scheduler.advanceTo(20)
        XCTAssertEqual(disposedAt, 11)
    }

    func testDisposeBeforeThePendingSubscriptionMeansItNeverRuns() {
        let scheduler = ManualSerialScheduler()
        var subscriptions = 0
        let observable = Observable<Int>.create { _ in
            subscriptions += 1
            return Disposables.create()
        }
        let subscription = observable.subscribe(on: scheduler).subscribe()
        subscription.dispose()
        // This scheduler ignores disposal of its actions: the sink itself refuses.
        scheduler.runQueued()
        XCTAssertEqual(subscriptions, 0)
    }

    func testSubscribeOnADispatchQueueSubscribesOffTheCallingThread() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "subscribe-on")
        let subscribed = expectation(description: "subscribed")
        let disposed = expectation(description: "disposed")
        let threadOfDisposal = SequencesEventBox<Bool>()
        let callerThread = Thread.current
        let observable = Observable<Int>.create { observer in
            XCTAssertFalse(Thread.current == callerThread)
            subscribed.fulfill()
            return Disposables.create {
                threadOfDisposal.append(.next(Thread.isMainThread))
                disposed.fulfill()
            }
        }
        let subscription = observable.subscribe(on: scheduler).subscribe()
        wait(for: [subscribed], timeout: 10)
        subscription.dispose()
        wait(for: [disposed], timeout: 10)
        XCTAssertEqual(threadOfDisposal.events, [.next(false)])
    }

    func testEventsPassThroughAndCompletionDisposesTheSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(Int.self)
        _ = Observable.of(1, 2).subscribe(on: scheduler).subscribe(observer)
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(1, 1), .next(1, 2), .completed(1)])
    }
}
