extension ObservableConvertibleType {
    /// The sequence's elements as an `AsyncSequence`, buffering every element
    /// the consumer has not taken yet (`.unbounded`).
    ///
    /// See `values(bufferingPolicy:)` for the contract; an Observable pushes
    /// at its own pace, so a producer faster than the consumer grows the
    /// buffer without limit: choose a bounded policy for such sources.
    public var values: ObservableValues<Element> {
        values(bufferingPolicy: .unbounded)
    }

    /// The sequence's elements as an `AsyncSequence`.
    ///
    /// ```swift
    /// for try await value in Observable.of(1, 2, 3).values { print(value) }
    /// ```
    ///
    /// - Each iteration (each `makeAsyncIterator()`) subscribes once, on its
    ///   first `next()`, on the thread that calls it.
    /// - `.next` elements come out in order; `.completed` ends the iteration
    ///   (`next()` returns `nil`); `.error(e)` makes `next()` throw `e` once
    ///   every element before it has been taken, then return `nil`.
    /// - Cancelling the consuming task while it waits in `next()` disposes the
    ///   subscription at once (inside `Task.cancel()`), drops what is
    ///   buffered, and ends the iteration: `next()` returns `nil`. If the
    ///   cancellation lands while the first `next()` is still inside the
    ///   source's `subscribe` (the disposable does not exist yet), the
    ///   subscription is disposed as soon as `subscribe` returns, before that
    ///   `next()` returns. A task cancelled between two `next()` calls is
    ///   seen at the next call.
    /// - Abandoning the iterator (leaving the `for` loop with `break`,
    ///   `return` or a thrown error) disposes the subscription when the
    ///   iterator is released.
    /// - Elements that arrive while the buffer is full are dropped as
    ///   `bufferingPolicy` says.
    ///
    /// - Parameter bufferingPolicy: What to keep when the consumer is slower
    ///   than the sequence.
    public func values(bufferingPolicy: ObservableValuesBufferingPolicy) -> ObservableValues<Element> {
        ObservableValues(source: asObservable(), bufferingPolicy: bufferingPolicy)
    }
}

/// What `values(bufferingPolicy:)` keeps of the elements the consumer has not
/// taken yet.
public enum ObservableValuesBufferingPolicy: Sendable, Hashable {
    /// Keeps every element (the default of `values`).
    case unbounded
    /// Keeps the oldest `limit` elements and drops newer ones while full.
    /// A limit below 1 keeps nothing: only a consumer already waiting in
    /// `next()` gets an element.
    case bufferingOldest(Int)
    /// Keeps the newest `limit` elements, dropping the oldest to make room.
    /// A limit below 1 keeps nothing: only a consumer already waiting in
    /// `next()` gets an element.
    case bufferingNewest(Int)
}

/// An Observable's elements as an `AsyncSequence`: see
/// `ObservableConvertibleType.values(bufferingPolicy:)`.
public struct ObservableValues<Element>: AsyncSequence, Sendable {
    public typealias Failure = any Error

    let source: Observable<Element>
    /// What is kept while the consumer is slower than the sequence.
    public let bufferingPolicy: ObservableValuesBufferingPolicy

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(state: ObservableValuesIteration(source: source, bufferingPolicy: bufferingPolicy))
    }

    /// Takes the elements of one subscription; releasing it disposes the
    /// subscription.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = any Error

        let owner: ObservableValuesIterationOwner<Element>

        init(state: ObservableValuesIteration<Element>) {
            owner = ObservableValuesIterationOwner(state)
        }

        /// The next element; `nil` after completion, after a thrown error, or
        /// once the task is cancelled. Throws the sequence's error.
        public mutating func next() async throws(any Error) -> Element? {
            try await next(isolation: nil)
        }

        /// The next element; `nil` after completion, after a thrown error, or
        /// once the task is cancelled. Throws the sequence's error.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Element? {
            let state = owner.state
            let outcome = await withTaskCancellationHandler {
                await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<ValuesOutcome<Element>, Never>) in
                    state.next(continuation)
                }
            } onCancel: {
                state.cancel()
            }
            switch outcome {
            case .element(let transfer):
                return transfer.value
            case .finished:
                return nil
            case .failed(let error):
                throw error
            }
        }
    }
}

/// What one `next()` resumes with.
enum ValuesOutcome<Element>: @unchecked Sendable {
    // Elements cross from the producing thread to the consumer: the Rx
    // contract (one event at a time) and the lock make the hand-over safe,
    // as `AsyncStream` does for non-`Sendable` elements.
    case element(UnsafeTransfer<Element>)
    case finished
    case failed(any Error)
}

/// Disposes the iteration when the iterator that owns it is released. The
/// subscription's observer holds the iteration, not this.
final class ObservableValuesIterationOwner<Element>: @unchecked Sendable {
    let state: ObservableValuesIteration<Element>

    init(_ state: ObservableValuesIteration<Element>) {
        self.state = state
    }

    deinit {
        state.cancel()
    }
}

/// One iteration of `values`: the subscription, the buffer, the waiting
/// consumer. Every field is guarded by `lock`; continuations are resumed and
/// disposables disposed outside it.
final class ObservableValuesIteration<Element>: ObserverType, @unchecked Sendable {
    private enum Phase {
        /// `next()` was never called: not subscribed.
        case idle
        /// Subscribed (or subscribing), taking events.
        case active
        /// Completed, or failed with an error already thrown: `next()` returns `nil`.
        case finished
        /// Failed: `next()` throws this error once the buffer is empty.
        case failed(any Error)
    }

    /// The sequence to subscribe to, dropped once subscribed (or cancelled):
    /// an observer the source keeps (a subject's, or one a `create` closure
    /// stored) must not keep the source alive through this iteration.
    private var source: Observable<Element>?
    private let bufferingPolicy: ObservableValuesBufferingPolicy
    private let lock = Lock()
    private var phase = Phase.idle
    private var buffer: [Element] = []
    /// Index of the oldest element of `buffer` not yet taken.
    private var head = 0
    private var waiting: CheckedContinuation<ValuesOutcome<Element>, Never>?
    private var subscription: Disposable?
    /// Set by cancellation or release: nothing more is delivered or kept.
    private var cancelled = false

    init(source: Observable<Element>, bufferingPolicy: ObservableValuesBufferingPolicy) {
        self.source = source
        self.bufferingPolicy = bufferingPolicy
    }

    private var buffered: Int { buffer.count - head }

    /// What `next(_:)` does once it has looked at the state.
    private enum NextAction {
        case resume(ValuesOutcome<Element>)
        case subscribe(Observable<Element>)
        case wait
    }

    /// Resumes `continuation` with the next outcome, now or when it arrives;
    /// subscribes on the first call.
    func next(_ continuation: CheckedContinuation<ValuesOutcome<Element>, Never>) {
        let action: NextAction = lock.withLock {
            if cancelled {
                return .resume(.finished)
            }
            if buffered > 0 {
                return .resume(.element(UnsafeTransfer(takeOldest())))
            }
            switch phase {
            case .idle:
                guard let subscribeTo = source else { return .resume(.finished) }
                source = nil
                phase = .active
                waiting = continuation
                return .subscribe(subscribeTo)
            case .active:
                precondition(waiting == nil, "ObservableValues: next() called while another next() of the same iterator is waiting")
                waiting = continuation
                return .wait
            case .finished:
                return .resume(.finished)
            case .failed(let error):
                phase = .finished
                return .resume(.failed(error))
            }
        }
        switch action {
        case .resume(let outcome):
            continuation.resume(returning: outcome)
        case .wait:
            break
        case .subscribe(let subscribeTo):
            let disposable = subscribeTo.subscribe(self)
            let disposeNow = lock.withLock {
                if cancelled {
                    return true
                }
                if case .active = phase {
                    subscription = disposable
                    return false
                }
                // Terminated while subscribing: nothing more to hold.
                return true
            }
            if disposeNow {
                disposable.dispose()
            }
        }
    }

    /// Takes the oldest buffered element. Called under `lock`, `buffered > 0`.
    private func takeOldest() -> Element {
        let element = buffer[head]
        head += 1
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= buffer.count {
            buffer.removeFirst(head)
            head = 0
        }
        return element
    }

    func on(_ event: Event<Element>) {
        var resume: (CheckedContinuation<ValuesOutcome<Element>, Never>, ValuesOutcome<Element>)?
        var finishedSubscription: Disposable?
        lock.withLock {
            guard !cancelled, case .active = phase else { return }
            switch event {
            case .next(let element):
                if let waiter = waiting {
                    waiting = nil
                    resume = (waiter, .element(UnsafeTransfer(element)))
                } else {
                    keep(element)
                }
            case .completed:
                phase = .finished
                finishedSubscription = subscription
                subscription = nil
                if let waiter = waiting {
                    waiting = nil
                    resume = (waiter, .finished)
                }
            case .error(let error):
                finishedSubscription = subscription
                subscription = nil
                if let waiter = waiting {
                    waiting = nil
                    phase = .finished
                    resume = (waiter, .failed(error))
                } else {
                    phase = .failed(error)
                }
            }
        }
        // The sequence has ended: release what it held now, not when the
        // iterator goes (the source disposes itself too; this is idempotent).
        finishedSubscription?.dispose()
        if let (continuation, outcome) = resume {
            continuation.resume(returning: outcome)
        }
    }

    /// Buffers `element` as the policy says. Called under `lock`.
    private func keep(_ element: Element) {
        switch bufferingPolicy {
        case .unbounded:
            buffer.append(element)
        case .bufferingOldest(let limit):
            if buffered < limit {
                buffer.append(element)
            }
        case .bufferingNewest(let limit):
            guard limit > 0 else { return }
            if buffered >= limit {
                head += 1
            }
            buffer.append(element)
            if head >= 64 && head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
        }
    }

    /// Ends the iteration: disposes the subscription, drops the buffer,
    /// resumes a waiting `next()` with `nil`. Idempotent.
    func cancel() {
        var waiter: CheckedContinuation<ValuesOutcome<Element>, Never>?
        var toDispose: Disposable?
        var dropped: [Element] = []
        var unsubscribedSource: Observable<Element>?
        lock.withLock {
            guard !cancelled else { return }
            cancelled = true
            waiter = waiting
            waiting = nil
            toDispose = subscription
            subscription = nil
            unsubscribedSource = source
            source = nil
            swap(&dropped, &buffer)
            head = 0
        }
        toDispose?.dispose()
        waiter?.resume(returning: .finished)
        // The dropped elements and a never-subscribed source are released
        // here, outside the lock.
        _ = dropped
        _ = unsubscribedSource
    }
}
