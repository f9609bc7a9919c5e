import Schedulers
import XCTest

/// The sources, `map`, `filter`, `take` and the `subscribe` overloads.
final class ObservableTests: XCTestCase {
    func testJustSendsOneElementThenCompletes() {
        let (events, _) = sequencesRecord(Observable.just(7))
        XCTAssertEqual(events(), [.next(7), .completed])
    }

    func testOfSendsElementsInOrderThenCompletes() {
        let (events, _) = sequencesRecord(Observable.of(1, 2, 3))
        XCTAssertEqual(events(), [.next(1), .next(2), .next(3), .completed])
    }

    func testFromArrayAndSequence() {
        XCTAssertEqual(sequencesRecord(Observable.from([4, 5])).events(), [.next(4), .next(5), .completed])
        XCTAssertEqual(sequencesRecord(Observable.from(Set([9]))).events(), [.next(9), .completed])
        XCTAssertEqual(sequencesRecord(Observable<Int>.from(1...3)).events(), [.next(1), .next(2), .next(3), .completed])
    }

    func testRangeCountsFromStart() {
        XCTAssertEqual(
            sequencesRecord(Observable<Int>.range(start: 5, count: 3)).events(),
            [.next(5), .next(6), .next(7), .completed]
        )
        XCTAssertEqual(sequencesRecord(Observable<UInt8>.range(start: 0, count: 0)).events(), [.completed])
    }

    func testRangeEndingAtTheTypesMaximumDoesNotTrap() {
        // The last element is start + count - 1: these end exactly at the maximum.
        let bytes = sequencesRecord(Observable<UInt8>.range(start: 1, count: 255)).events()
        XCTAssertEqual(bytes, (1...255).map { .next(UInt8($0)) } + [.completed])
        XCTAssertEqual(
            sequencesRecord(Observable<Int>.range(start: .max, count: 1)).events(),
            [.next(.max), .completed]
        )
        XCTAssertEqual(
            sequencesRecord(Observable<Int8>.range(start: 126, count: 2, scheduler: InlineScheduler())).events(),
            [.next(126), .next(127), .completed]
        )
    }

    func testOfOnAnotherSchedulerSendsEachElementThroughIt() {
        let scheduler = ManualSerialScheduler()
        let (events, _) = sequencesRecord(Observable.of(1, 2, scheduler: scheduler))
        XCTAssertEqual(events(), [])
        scheduler.runQueued()
        XCTAssertEqual(events(), [.next(1), .next(2), .completed])
        XCTAssertEqual(scheduler.scheduledCount, 3)
    }

    func testJustOnASchedulerSendsThroughIt() {
        let scheduler = ManualSerialScheduler()
        let (events, _) = sequencesRecord(Observable.just(1, scheduler: scheduler))
        XCTAssertEqual(events(), [])
        scheduler.runQueued()
        XCTAssertEqual(events(), [.next(1), .completed])
    }

    func testDisposingDuringFromStopsPullingElements() {
        var pulled = 0
        let counted = (0..<1_000).lazy.map { value -> Int in
            pulled += 1
            return value
        }
        let (events, _) = sequencesRecord(Observable.from(counted).take(3))
        XCTAssertEqual(events(), [.next(0), .next(1), .next(2), .completed])
        XCTAssertLessThanOrEqual(pulled, 4, "the loop stops once take(3) has disposed it")
    }

    func testEmptyNeverAndError() {
        XCTAssertEqual(sequencesRecord(Observable<Int>.empty()).events(), [.completed])
        XCTAssertEqual(sequencesRecord(Observable<Int>.never()).events(), [])
        XCTAssertEqual(sequencesRecord(Observable<Int>.error(SequencesTestError())).events(), [.error("test error")])
    }

    func testCreateForwardsEventsAndDisposesItsResourceOnce() {
        var disposals = 0
        let observable = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            return Disposables.create { disposals += 1 }
        }
        let (events, subscription) = sequencesRecord(observable)
        XCTAssertEqual(events(), [.next(1), .next(2)])
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(disposals, 1)
    }

    func testCreateDisposesItsResourceAfterCompletion() {
        var disposals = 0
        let observable = Observable<Int>.create { observer in
            observer.onCompleted()
            return Disposables.create { disposals += 1 }
        }
        _ = sequencesRecord(observable)
        XCTAssertEqual(disposals, 1)
    }

    func testMapTransformsAndATransformErrorTerminates() {
        XCTAssertEqual(sequencesRecord(Observable.of(1, 2).map { $0 * 10 }).events(), [.next(10), .next(20), .completed])
        let failing = Observable.of(1, 2, 3).map { value -> Int in
            if value == 2 { throw SequencesTestError() }
            return value
        }
        XCTAssertEqual(sequencesRecord(failing).events(), [.next(1), .error("test error")])
    }

    func testFilterKeepsMatchingElements() {
        let evens = Observable<Int>.range(start: 0, count: 7).filter { $0 % 2 == 0 }
        XCTAssertEqual(sequencesRecord(evens).events(), [.next(0), .next(2), .next(4), .next(6), .completed])
        let failing = Observable.of(1, 2).filter { _ in throw SequencesTestError() }
        XCTAssertEqual(sequencesRecord(failing).events(), [.error("test error")])
    }

    func testTakeCompletesAfterCountAndDisposesTheSource() {
        let subject = SequencesTestSubject<Int>()
        let (events, _) = sequencesRecord(subject.observable.take(2))
        subject.send(1)
        subject.send(2)
        XCTAssertEqual(events(), [.next(1), .next(2), .completed])
        XCTAssertEqual(subject.disposalCount, 1)
        XCTAssertEqual(sequencesRecord(subject.observable.take(0)).events(), [.completed])
        XCTAssertEqual(subject.subscriptionCount, 1, "take(0) does not subscribe")
    }

    func testSubscribeClosuresAreCalledAndOnDisposedRunsOnce() {
        var nexts: [Int] = []
        var completions = 0
        var disposals = 0
        let subscription = Observable.of(1, 2).subscribe(
            onNext: { nexts.append($0) },
            onError: { _ in XCTFail("no error expected") },
            onCompleted: { completions += 1 },
            onDisposed: { disposals += 1 }
        )
        XCTAssertEqual(nexts, [1, 2])
        XCTAssertEqual(completions, 1)
        XCTAssertEqual(disposals, 1)
        subscription.dispose()
        XCTAssertEqual(disposals, 1)
    }

    func testSubscribeOnDisposedRunsWhenDisposedBeforeTerminating() {
        var disposals = 0
        let subscription = Observable<Int>.never().subscribe(onDisposed: { disposals += 1 })
        XCTAssertEqual(disposals, 0)
        subscription.dispose()
        XCTAssertEqual(disposals, 1)
    }

    func testSubscribeOnErrorReceivesTheError() {
        var message: String?
        _ = Observable<Int>.error(SequencesTestError()).subscribe(onError: { message = "\($0)" })
        XCTAssertEqual(message, "test error")
    }

    func testAsObserverAndAnyObserverForward() {
        var received: [Int] = []
        let observer = AnyObserver<Int> { event in
            if case .next(let value) = event { received.append(value) }
        }
        observer.onNext(1)
        observer.asObserver().onNext(2)
        AnyObserver(observer).onNext(3)
        XCTAssertEqual(received, [1, 2, 3])
    }

    func testEventAccessors() {
        let next = Event<Int>.next(1)
        XCTAssertEqual(next.element, 1)
        XCTAssertFalse(next.isStopEvent)
        XCTAssertTrue(Event<Int>.completed.isCompleted)
        XCTAssertTrue(Event<Int>.error(SequencesTestError()).isStopEvent)
        XCTAssertNotNil(Event<Int>.error(SequencesTestError()).error)
        XCTAssertEqual(next.map { $0 + 1 }.element, 2)
        XCTAssertEqual(next.debugDescription, "next(1)")
    }

    func testASubclassOfObservableTypeConvertsToObservable() {
        struct Wrapper: ObservableType {
            typealias Element = Int
            func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Int {
                observer.onNext(42)
                observer.onCompleted()
                return Disposables.create()
            }
        }
        XCTAssertEqual(sequencesRecord(Wrapper().asObservable()).events(), [.next(42), .completed])
        XCTAssertEqual(sequencesRecord(Wrapper().map { $0 + 1 }).events(), [.next(43), .completed])
    }
}
