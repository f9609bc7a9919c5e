extension ObservableType {
    /// A sequence whose every subscription runs `body` in a new `Task`,
    /// handing it the subscription's observer: the `async` counterpart of
    /// `create(_:)`.
    ///
    /// ```swift
    /// let ticks = Observable<Int>.createAsync { observer in
    ///     for tick in 1...3 {
    ///         try await Task.sleep(for: .milliseconds(10))
    ///         observer.onNext(tick)
    ///     }
    /// }
    /// ```
    ///
    /// - Returning from `body` completes the sequence; throwing from it sends
    ///   the error. `body` may also send `.completed` or `.error` itself:
    ///   whatever follows the first terminal event is ignored (guarantee 1).
    /// - Disposing the subscription cancels the task at once (inside
    ///   `dispose()`); nothing `body` sends afterwards reaches the observer,
    ///   and an error it throws then (`CancellationError` typically) is
    ///   dropped.
    /// - The task is unstructured and not isolated to any actor; `body` runs
    ///   on the global concurrent executor unless it hops elsewhere. It must
    ///   call the observer from one task at a time (the Rx contract).
    ///
    /// - Parameters:
    ///   - priority: The task's priority; `nil` inherits as `Task.init` does.
    ///   - body: Produces the events.
    public static func createAsync(
        priority: TaskPriority? = nil,
        _ body: @escaping @Sendable (AnyObserver<Element>) async throws -> Void
    ) -> Observable<Element> {
        Observable.create { observer in
            let transfer = UnsafeTransfer(observer)
            let task = Task(priority: priority) {
                let observer = transfer.value
                do {
                    try await body(observer)
                    observer.onCompleted()
                } catch {
                    // After dispose the observer ignores everything anyway.
                    observer.onError(error)
                }
            }
            return Disposables.create { task.cancel() }
        }
    }

    /// A sequence that iterates `sequence` once per subscription, in a new
    /// `Task`, sending each element as `.next`; the end of the iteration
    /// completes it and a thrown error is sent as `.error`.
    ///
    /// Disposing the subscription cancels the task at once: the iteration
    /// ends as `sequence` handles cancellation, and nothing more is sent. See
    /// `createAsync(priority:_:)` for where the task runs.
    ///
    /// - Parameters:
    ///   - sequence: Iterated from the start by every subscription, so it
    ///     must support several iterations if the result is subscribed to
    ///     more than once (an `AsyncStream` does not).
    ///   - priority: The task's priority; `nil` inherits as `Task.init` does.
    public static func from<Source: AsyncSequence & Sendable>(
        _ sequence: Source,
        priority: TaskPriority? = nil
    ) -> Observable<Element> where Source.Element == Element {
        createAsync(priority: priority) { observer in
            for try await element in sequence {
                observer.onNext(element)
            }
        }
    }
}

extension AsyncSequence where Self: Sendable {
    /// This sequence as an `Observable`: `Observable.from(self)`.
    public func asObservable() -> Observable<Element> {
        Observable.from(self)
    }
}
