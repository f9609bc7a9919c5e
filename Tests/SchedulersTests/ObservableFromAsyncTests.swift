import Dispatch
import Foundation
import Schedulers
import Synchronization
import XCTest

private struct AsyncSourceError: Error, Equatable {}

/// Collects the events of one subscription, from any thread, and lets a test
/// wait for the terminal event without polling.
private final class EventCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    private let ended = DispatchSemaphore(value: 0)

    func observer() -> AnyObserver<Int> {
        AnyObserver { event in
            self.lock.withLock {
                switch event {
                case .next(let value): self.recorded.append("next(\(value))")
                case .error(let error): self.recorded.append("error(\(error))")
                case .completed: self.recorded.append("completed")
                }
            }
            if event.isStopEvent { self.ended.signal() }
        }
    }

    var events: [String] {
        lock.withLock { recorded }
    }

    func waitForEnd() {
        ended.wait()
    }
}

private extension Event {
    var isStopEvent: Bool {
        switch self {
        case .next: false
        case .error, .completed: true
        }
    }
}

final class ObservableFromAsyncTests: XCTestCase {
    func testFromAnAsyncSequenceSendsItsElementsThenCompletes() {
        let stream = AsyncStream<Int> { continuation in
            for value in 1...3 { continuation.yield(value) }
            continuation.finish()
        }
        let collector = EventCollector()
        let subscription = Observable.from(stream).subscribe(collector.observer())
        collector.waitForEnd()
        subscription.dispose()
        XCTAssertEqual(collector.events, ["next(1)", "next(2)", "next(3)", "completed"])
    }

    func testAThrownErrorBecomesTheErrorEvent() {
        let stream = AsyncThrowingStream<Int, any Error> { continuation in
            continuation.yield(1)
            continuation.finish(throwing: AsyncSourceError())
        }
        let collector = EventCollector()
        _ = stream.asObservable().subscribe(collector.observer())
        collector.waitForEnd()
        XCTAssertEqual(collector.events, ["next(1)", "error(AsyncSourceError())"])
    }

    func testDisposingCancelsTheTaskAtOnce() {
        let started = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let observable = Observable<Int>.createAsync { observer in
            observer.onNext(1)
            await withTaskCancellationHandler {
                started.signal()
                // Sleeps "forever": only cancellation ends this.
                try? await Task.sleep(for: .seconds(3_600))
            } onCancel: {
                cancelled.signal()
            }
            observer.onNext(2)
        }
        let collector = EventCollector()
        let subscription = observable.subscribe(collector.observer())
        started.wait()
        subscription.dispose()
        // The cancellation handler runs inside Task.cancel(), inside dispose().
        XCTAssertEqual(cancelled.wait(timeout: .now()), .success, "cancelled inside dispose()")
        XCTAssertEqual(collector.events, ["next(1)"], "nothing is delivered after disposal")
    }

    func testNothingIsDeliveredAfterDisposeEvenIfTheBodyGoesOn() async {
        let disposed = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let observable = Observable<Int>.createAsync { observer in
            observer.onNext(1)
            disposed.wait()
            // The body ignores cancellation and keeps sending.
            observer.onNext(2)
            observer.onCompleted()
            finished.signal()
        }
        let collector = EventCollector()
        let subscription = observable.subscribe(collector.observer())
        while collector.events.isEmpty {
            await Task.yield()
        }
        subscription.dispose()
        disposed.signal()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                finished.wait()
                continuation.resume()
            }
        }
        XCTAssertEqual(collector.events, ["next(1)"])
    }

    func testReturningCompletesAndThrowingSendsTheError() {
        let completes = EventCollector()
        _ = Observable<Int>.createAsync { observer in
            observer.onNext(1)
        }.subscribe(completes.observer())
        completes.waitForEnd()
        XCTAssertEqual(completes.events, ["next(1)", "completed"])

        let fails = EventCollector()
        _ = Observable<Int>.createAsync { _ in
            throw AsyncSourceError()
        }.subscribe(fails.observer())
        fails.waitForEnd()
        XCTAssertEqual(fails.events, ["error(AsyncSourceError())"])
    }

    func testEverySubscriptionRunsItsOwnTask() {
        let runs = Atomic<Int>(0)
        let observable = Observable<Int>.createAsync { observer in
            observer.onNext(runs.add(1, ordering: .relaxed).newValue)
        }
        let first = EventCollector()
        let second = EventCollector()
        _ = observable.subscribe(first.observer())
        first.waitForEnd()
        _ = observable.subscribe(second.observer())
        second.waitForEnd()
        XCTAssertEqual(first.events, ["next(1)", "completed"])
        XCTAssertEqual(second.events, ["next(2)", "completed"])
    }

    func testRoundTripThroughValues() async throws {
        let stream = AsyncStream<Int> { continuation in
            for value in 1...50 { continuation.yield(value) }
            continuation.finish()
        }
        var received: [Int] = []
        for try await value in Observable.from(stream).map({ $0 * 2 }).values {
            received.append(value)
        }
        XCTAssertEqual(received, (1...50).map { $0 * 2 })
    }
}
