import Dispatch
import Foundation
@testable import Schedulers
import XCTest

/// The element path: elements pass between this library's sinks without an
/// `Event` (`ElementObserver`), and must behave exactly as `.next` events
/// would, grammar (guarantee 1) and disposal included.
final class ElementPathTests: XCTestCase {
    /// An observer from outside the library: it only has `on(_:)`.
    private final class ForeignObserver: ObserverType, @unchecked Sendable {
        var events: [SequencesRecordedEvent<Int>] = []

        func on(_ event: Event<Int>) {
            events.append(SequencesRecordedEvent(event))
        }
    }

    func testAnyObserverMadeFromAClosureReceivesOnNextAsANextEvent() {
        var received: [SequencesRecordedEvent<Int>] = []
        let observer = AnyObserver<Int> { received.append(SequencesRecordedEvent($0)) }
        observer.onNext(1)
        observer.on(.next(2))
        observer.onCompleted()
        XCTAssertEqual(received, [.next(1), .next(2), .completed])
    }

    func testAnyObserverWrappingAForeignObserverSendsItNextEvents() {
        let foreign = ForeignObserver()
        let observer = AnyObserver(foreign)
        observer.onNext(1)
        observer.onCompleted()
        XCTAssertEqual(foreign.events, [.next(1), .completed])
    }

    func testAForeignObserverBehindOperatorsReceivesNextEvents() {
        let foreign = ForeignObserver()
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onNext(3)
            observer.onCompleted()
            return Disposables.create()
        }
        .map { $0 * 10 }
        .filter { $0 != 20 }
        .subscribe(foreign)
        XCTAssertEqual(foreign.events, [.next(10), .next(30), .completed])
        subscription.dispose()
    }

    func testLibrarySinksAreBoundToTheNextSinksElementEntry() {
        let sink = ClosureObserver<Int>(onNext: nil, onError: nil, onCompleted: nil, onTerminated: Disposables.create())
        XCTAssertTrue((sink as Any) is any ElementObserver)
        XCTAssertFalse((ForeignObserver() as Any) is any ElementObserver)
    }

    /// Each library observer offers its element entry through
    /// `makeElementHandler()`, called generically as a sink does (through the
    /// witness table); an observer from outside offers none. The compiler
    /// picks the witness from the conformances: were any library observer
    /// given the `nil` default, its upstream would send it `Event`s, still
    /// correct but slower, and no other test would notice.
    func testEveryLibraryObserverOffersItsElementEntryThroughTheWitnessAndAForeignOneDoesNot() throws {
        var received: [Int] = []
        let end = ClosureObserver<Int>(
            onNext: { received.append($0) }, onError: nil, onCompleted: nil, onTerminated: Disposables.create())
        let cancel = BooleanDisposable()
        let scheduler = ManualSerialScheduler()

        let handlers: [(String, ((Int) -> Void)?)] = [
            ("ClosureObserver", handler(of: end)),
            ("AnyObserver", handler(of: AnyObserver(end))),
            ("MapSink", handler(of: MapSink<Int, ClosureObserver<Int>>(transform: { $0 }, observer: end, cancel: cancel))),
            ("FilterSink", handler(of: FilterSink(predicate: { _ in true }, observer: end, cancel: cancel))),
            ("TakeCountSink", handler(of: TakeCountSink(count: 100, observer: end, cancel: cancel))),
            ("AnonymousObservableSink", handler(of: AnonymousObservableSink(observer: end, cancel: cancel))),
            ("ObserveOnFastPathSink", handler(of: ObserveOnFastPathSink(scheduler: scheduler, observer: end, cancel: cancel))),
            ("ObserveOnGenericSink", handler(of: ObserveOnGenericSink(scheduler: scheduler, observer: end, cancel: cancel))),
        ]
        for (index, (name, offered)) in handlers.enumerated() {
            let call = try XCTUnwrap(offered, "\(name) offers no element entry")
            call(index)
        }
        scheduler.runQueued()
        XCTAssertEqual(received, Array(handlers.indices), "every entry delivers its element to the end observer")
        XCTAssertNil(handler(of: ForeignObserver()), "an observer from outside the library receives .next events")
    }

    /// What a sink is given for `observer`, asked as a sink asks: generically.
    private func handler<Observer: ObserverType>(of observer: Observer) -> ((Observer.Element) -> Void)? {
        observer.makeElementHandler()?.call
    }

    func testCreateDropsElementsSentAfterCompletionOnTheElementPath() {
        var received: [Int] = []
        var completions = 0
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onCompleted()
            observer.onNext(2)
            return Disposables.create()
        }
        .subscribe(onNext: { received.append($0) }, onCompleted: { completions += 1 })
        XCTAssertEqual(received, [1])
        XCTAssertEqual(completions, 1)
        subscription.dispose()
    }

    func testCreateDropsElementsSentAfterDisposeOnTheElementPath() {
        var captured: AnyObserver<Int>?
        var received: [Int] = []
        let subscription = Observable<Int>.create { observer in
            captured = observer
            return Disposables.create()
        }
        .subscribe(onNext: { received.append($0) })
        captured?.onNext(1)
        subscription.dispose()
        captured?.onNext(2)
        XCTAssertEqual(received, [1])
    }

    func testMapFilterAndTakeOnTheElementPathKeepTheGrammar() {
        var received: [SequencesRecordedEvent<Int>] = []
        let subscription = Observable<Int>.create { observer in
            for value in 1...10 {
                observer.onNext(value)
            }
            observer.onCompleted()
            return Disposables.create()
        }
        .map { $0 * 2 }
        .filter { $0 % 4 == 0 }
        .take(2)
        .subscribe { received.append(SequencesRecordedEvent($0)) }
        XCTAssertEqual(received, [.next(4), .next(8), .completed])
        subscription.dispose()
    }

    func testMapThatThrowsOnTheElementPathEndsWithTheError() {
        var received: [SequencesRecordedEvent<Int>] = []
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onNext(3)
            return Disposables.create()
        }
        .map { value -> Int in
            if value == 2 { throw SequencesTestError() }
            return value
        }
        .subscribe { received.append(SequencesRecordedEvent($0)) }
        XCTAssertEqual(received, [.next(1), .error(String(describing: SequencesTestError()))])
        subscription.dispose()
    }

    func testFilterWhosePredicateThrowsOnTheElementPathEndsWithTheErrorAndStopsTheSource() {
        var received: [SequencesRecordedEvent<Int>] = []
        var sourceDisposed = false
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onNext(3)
            return Disposables.create { sourceDisposed = true }
        }
        .filter { value in
            if value == 2 { throw SequencesTestError() }
            return true
        }
        .subscribe { received.append(SequencesRecordedEvent($0)) }
        XCTAssertEqual(received, [.next(1), .error(String(describing: SequencesTestError()))])
        XCTAssertTrue(sourceDisposed, "the failed filter disposed its subscription to the source")
        subscription.dispose()
    }
}

/// An `AnyObserver` handed on keeps the element path of what it wraps.
final class AnyObserverElementPathTests: XCTestCase {
    func testAnAnyObserverIsAnElementObserver() {
        let observer = AnyObserver<Int> { _ in }
        XCTAssertTrue((observer as Any) is any ElementObserver)
    }

    func testSubscribingAnAnyObserverDeliversEveryEventInOrder() {
        var received: [SequencesRecordedEvent<Int>] = []
        let observer = AnyObserver<Int> { received.append(SequencesRecordedEvent($0)) }
        let subscription = Observable<Int>.create { inner in
            inner.onNext(1)
            inner.onNext(2)
            inner.onCompleted()
            inner.onNext(3)
            return Disposables.create()
        }
        .map { $0 + 1 }
        .subscribe(observer)
        XCTAssertEqual(received, [.next(2), .next(3), .completed])
        subscription.dispose()
    }

    func testWrappingAnAnyObserverAgainForwardsEveryEvent() {
        var received: [SequencesRecordedEvent<Int>] = []
        let inner = AnyObserver<Int> { received.append(SequencesRecordedEvent($0)) }
        let outer = AnyObserver(inner)
        outer.onNext(1)
        outer.on(.next(2))
        outer.onError(SequencesTestError())
        XCTAssertEqual(received, [.next(1), .next(2), .error(String(describing: SequencesTestError()))])
    }
}
