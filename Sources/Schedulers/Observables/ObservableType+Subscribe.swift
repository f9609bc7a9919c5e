import Synchronization

extension ObservableType {
    /// Subscribes with closures.
    ///
    /// The closures are called following the grammar (guarantee 1 in Guarantees.md),
    /// never concurrently with themselves (guarantee 2). `onDisposed` runs
    /// once, after a terminal event or when the returned disposable is disposed.
    ///
    /// - Returns: A disposable that ends the subscription.
    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onError: ((Swift.Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let disposeCallback: Disposable
        if let onDisposed {
            disposeCallback = Disposables.create(with: onDisposed)
        } else {
            disposeCallback = Disposables.create()
        }
        let observer = ClosureObserver<Element>(
            onNext: onNext, onError: onError, onCompleted: onCompleted, onTerminated: disposeCallback
        )
        return Disposables.create(asObservable().subscribe(observer), disposeCallback)
    }

    /// Subscribes with one closure that receives every event, following the
    /// grammar (guarantee 1).
    public func subscribe(_ on: @escaping (Event<Element>) -> Void) -> Disposable {
        subscribe(AnonymousObserver(on))
    }
}

/// An observer over a closure that ignores everything after a terminal event
/// (guarantee 1).
final class AnonymousObserver<Element>: ObserverType, @unchecked Sendable {
    private let handler: (Event<Element>) -> Void
    private let stopped = SyncAtomic<Bool>(false)

    init(_ handler: @escaping (Event<Element>) -> Void) {
        self.handler = handler
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if !stopped.load(ordering: .acquiring) {
                handler(event)
            }
        case .error, .completed:
            if !stopped.exchange(true, ordering: .acquiringAndReleasing) {
                handler(event)
            }
        }
    }
}

/// The observer behind `subscribe(onNext:onError:onCompleted:onDisposed:)`:
/// one switch per event straight into the user's closures (no intermediate
/// event closure), ignoring everything after a terminal event (guarantee 1).
/// Elements from this library's sinks arrive through `onNextElement(_:)`.
final class ClosureObserver<Element>: ElementObserver, @unchecked Sendable {
    private let onNext: ((Element) -> Void)?
    private let onError: ((Swift.Error) -> Void)?
    private let onCompleted: (() -> Void)?
    private let onTerminated: Disposable
    private let stopped = SyncAtomic<Bool>(false)

    init(
        onNext: ((Element) -> Void)?,
        onError: ((Swift.Error) -> Void)?,
        onCompleted: (() -> Void)?,
        onTerminated: Disposable
    ) {
        self.onNext = onNext
        self.onError = onError
        self.onCompleted = onCompleted
        self.onTerminated = onTerminated
    }

    func makeNextHandler() -> ElementHandler<Element> {
        ElementHandler { self.onNextElement($0) }
    }

    func onNextElement(_ element: Element) {
        if !stopped.load(ordering: .acquiring) {
            onNext?(element)
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let value):
            if !stopped.load(ordering: .acquiring) {
                onNext?(value)
            }
        case .error(let error):
            if !stopped.exchange(true, ordering: .acquiringAndReleasing) {
                onError?(error)
                onTerminated.dispose()
            }
        case .completed:
            if !stopped.exchange(true, ordering: .acquiringAndReleasing) {
                onCompleted?()
                onTerminated.dispose()
            }
        }
    }
}
