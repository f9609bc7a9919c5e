import Dispatch
import Foundation
import Schedulers
import Synchronization
import XCTest

private struct ValuesTestError: Error, Equatable {
    let code: Int
}

/// A sequence the test drives by hand: `observer` is the subscription's
/// observer once subscribed, `disposal` counts how often it was disposed.
private final class HandDrivenSource: @unchecked Sendable {
    let disposal = DisposalCounter()
    let subscriptions = Atomic<Int>(0)
    private let lock = NSLock()
    private var observer: AnyObserver<Int>?
    private var subscribedWaiters: [CheckedContinuation<Void, Never>] = []

    var observable: Observable<Int> {
        Observable.create { observer in
            self.subscriptions.add(1, ordering: .relaxed)
            let waiters: [CheckedContinuation<Void, Never>] = self.lock.withLock {
                self.observer = observer
                defer { self.subscribedWaiters.removeAll() }
                return self.subscribedWaiters
            }
            waiters.forEach { $0.resume() }
            return self.disposal
        }
    }

    /// Returns once the sequence has been subscribed to.
    func subscribed() async {
        await withCheckedContinuation { continuation in
            let already = lock.withLock {
                if observer != nil { return true }
                subscribedWaiters.append(continuation)
                return false
            }
            if already { continuation.resume() }
        }
    }

    func send(_ event: Event<Int>) {
        let observer = lock.withLock { self.observer }
        observer?.on(event)
    }
}

final class ObservableValuesTests: XCTestCase {
    func testElementsComeOutInOrderAndCompletionEndsTheIteration() async throws {
        var received: [Int] = []
        for try await value in Observable.from(Array(1...100)).values {
            received.append(value)
        }
        XCTAssertEqual(received, Array(1...100))
    }

    func testElementsFromAnotherThreadComeOutInOrder() async throws {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "values.producer")
        var received: [Int] = []
        for try await value in Observable.from(Array(0..<10_000), scheduler: scheduler).values {
            received.append(value)
        }
        XCTAssertEqual(received, Array(0..<10_000))
    }

    func testAnErrorIsThrownAfterTheElementsBeforeIt() async {
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onError(ValuesTestError(code: 7))
            observer.onNext(3)
            return Disposables.create()
        }
        var received: [Int] = []
        do {
            for try await value in source.values {
                received.append(value)
            }
            XCTFail("the iteration ended without the error")
        } catch {
            XCTAssertEqual(error as? ValuesTestError, ValuesTestError(code: 7))
        }
        XCTAssertEqual(received, [1, 2])
    }

    func testAfterTheErrorTheIteratorReturnsNil() async throws {
        var iterator = Observable<Int>.error(ValuesTestError(code: 1)).values.makeAsyncIterator()
        do {
            _ = try await iterator.next()
            XCTFail("expected the error")
        } catch {
            XCTAssertEqual(error as? ValuesTestError, ValuesTestError(code: 1))
        }
        let after = try await iterator.next()
        XCTAssertNil(after)
    }

    func testTheFailureTypeIsAnyError() {
        func failure<S: AsyncSequence>(of _: S.Type) -> Any.Type { S.Failure.self }
        XCTAssertTrue(failure(of: ObservableValues<Int>.self) == (any Error).self)
    }

    func testCancellingTheWaitingTaskDisposesTheSubscriptionInsideCancel() async throws {
        let source = HandDrivenSource()
        let firstReceived = Atomic<Bool>(false)
        let task = Task { () -> [Int] in
            var received: [Int] = []
            for try await value in source.observable.values {
                received.append(value)
                firstReceived.store(true, ordering: .releasing)
            }
            return received
        }
        await source.subscribed()
        source.send(.next(1))
        // Wait until the element is taken, so the task waits in next() again.
        while !firstReceived.load(ordering: .acquiring) {
            await Task.yield()
        }
        XCTAssertEqual(source.disposal.disposeCount, 0)
        task.cancel()
        // Disposed by the cancellation handler, before cancel() returned
        // (or, if the task was between two next() calls, at its next call).
        let received = try await task.value
        XCTAssertEqual(source.disposal.disposeCount, 1)
        XCTAssertEqual(received, [1])
        // Nothing is delivered after cancellation.
        source.send(.next(2))
        XCTAssertEqual(source.disposal.disposeCount, 1)
    }

    func testCancellationWhileWaitingDisposesBeforeCancelReturns() async throws {
        let source = HandDrivenSource()
        let waiting = Task {
            var iterator = source.observable.values.makeAsyncIterator()
            return try await iterator.next()
        }
        await source.subscribed()
        // Subscribed means next() is waiting: it stores its continuation,
        // then subscribes, inside the cancellation handler's scope. The
        // source's subscribe may not have returned yet, so the disposable may
        // not exist when cancel() runs: then it is disposed as soon as
        // subscribe returns, before next() returns (inside cancel() once the
        // subscription is in place: testCancellingTheWaitingTask…).
        XCTAssertEqual(source.disposal.disposeCount, 0)
        waiting.cancel()
        XCTAssertLessThanOrEqual(source.disposal.disposeCount, 1)
        let value = try await waiting.value
        XCTAssertEqual(source.disposal.disposeCount, 1, "disposed by the time the cancelled next() returns")
        XCTAssertNil(value, "cancellation ends the iteration")
        source.send(.next(1))
        XCTAssertEqual(source.disposal.disposeCount, 1)
    }

    func testLeavingTheLoopDisposesTheSubscription() async throws {
        let source = HandDrivenSource()
        let producer = Task {
            await source.subscribed()
            for value in 1...5 {
                source.send(.next(value))
            }
        }
        for try await value in source.observable.values where value == 3 {
            break
        }
        await producer.value
        XCTAssertEqual(source.disposal.disposeCount, 1)
    }

    func testBufferingNewestKeepsTheLatest() async throws {
        let (first, rest, error) = try await takeFirstThenFloodWithFive(.bufferingNewest(2), ending: .completed)
        XCTAssertEqual(first, 1)
        XCTAssertEqual(rest, [5, 6])
        XCTAssertNil(error)
    }

    func testBufferingOldestKeepsTheFirst() async throws {
        let (first, rest, error) = try await takeFirstThenFloodWithFive(
            .bufferingOldest(2), ending: .error(ValuesTestError(code: 2)))
        XCTAssertEqual(first, 1)
        XCTAssertEqual(rest, [2, 3])
        XCTAssertEqual(error as? ValuesTestError, ValuesTestError(code: 2), "the error comes after what was kept")
    }

    /// Takes element 1 through the first `next()` (which subscribes), then
    /// sends 2...6 and `ending` while nobody waits, and drains what the
    /// policy kept: the first element, the rest, and the error thrown, if any.
    private func takeFirstThenFloodWithFive(
        _ policy: ObservableValuesBufferingPolicy, ending: Event<Int>
    ) async throws -> (Int?, [Int], (any Error)?) {
        let source = HandDrivenSource()
        var iterator = source.observable.values(bufferingPolicy: policy).makeAsyncIterator()
        // The first next() subscribes; deliver during it from another task.
        let first = Task {
            await source.subscribed()
            source.send(.next(1))
        }
        let one = try await iterator.next()
        await first.value
        for value in 2...6 {
            source.send(.next(value))
        }
        source.send(ending)
        var rest: [Int] = []
        do {
            while let value = try await iterator.next() {
                rest.append(value)
            }
            return (one, rest, nil)
        } catch {
            return (one, rest, error)
        }
    }

    func testEachIterationSubscribesOnceOnItsFirstNext() async throws {
        let source = HandDrivenSource()
        let values = source.observable.values
        let iterator = values.makeAsyncIterator()
        XCTAssertEqual(source.subscriptions.load(ordering: .relaxed), 0, "making the iterator does not subscribe")
        _ = iterator
        var count = 0
        for try await _ in Observable.of(1, 2).values {
            count += 1
        }
        for try await _ in Observable.of(1, 2).values {
            count += 1
        }
        XCTAssertEqual(count, 4)
    }

    /// A sequence that sends `first` and then waits: its subscription holds
    /// `token` until disposed.
    private func holding(_ token: LifetimeToken, first: Int?) -> Observable<Int> {
        Observable<Int>.create { observer in
            if let first { observer.onNext(first) }
            return Disposables.create { withExtendedLifetime(token) {} }
        }
    }

    func testAbandoningTheIteratorReleasesTheSubscription() async throws {
        weak var weakToken: LifetimeToken?
        do {
            let token = LifetimeToken()
            weakToken = token
            var iterator = holding(token, first: 1).values.makeAsyncIterator()
            let value = try await iterator.next()
            XCTAssertEqual(value, 1)
            XCTAssertNotNil(weakToken, "the subscription is alive while the iterator is")
            // The iterator is released here, while the sequence still runs.
        }
        XCTAssertNil(weakToken, "abandoning the iterator disposes and releases the subscription")
    }

    func testCancellationReleasesTheSubscription() async throws {
        weak var weakToken: LifetimeToken?
        let task: Task<Void, any Error>
        do {
            let token = LifetimeToken()
            weakToken = token
            let source = holding(token, first: nil)
            task = Task {
                for try await _ in source.values {}
            }
        }
        // The task holds the sequence, which holds the token, until it ends.
        task.cancel()
        try await task.value
        XCTAssertNil(weakToken)
    }

    /// Found by the `cancel-vs-values.task` stress scenario: a source that
    /// keeps its subscriber's observer (as a `create` closure storing it
    /// does) was kept alive by the iteration holding the source, a cycle that
    /// outlived the cancelled task.
    func testASourceThatKeepsItsObserverIsFreedOnceTheCancelledIterationEnds() async throws {
        weak var weakSource: HandDrivenSource?
        let task: Task<Void, any Error>
        do {
            let source = HandDrivenSource()
            weakSource = source
            let observable = source.observable
            task = Task {
                for try await _ in observable.values {}
            }
            await source.subscribed()
        }
        task.cancel()
        try await task.value
        XCTAssertNil(weakSource, "the iteration let go of the source it subscribed to")
    }

    func testCompletionDisposesTheSubscriptionBeforeTheIteratorGoes() async throws {
        let source = HandDrivenSource()
        var iterator = source.observable.values.makeAsyncIterator()
        let producer = Task {
            await source.subscribed()
            source.send(.next(1))
            source.send(.completed)
        }
        let one = try await iterator.next()
        await producer.value
        XCTAssertEqual(one, 1)
        XCTAssertEqual(source.disposal.disposeCount, 1, "completion disposes the subscription")
        let end = try await iterator.next()
        XCTAssertNil(end)
    }
}
