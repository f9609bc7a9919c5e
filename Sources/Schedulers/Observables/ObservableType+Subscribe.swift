import Synchronization

extension ObservableType {
    /// Subscribes with closures.
    ///
    /// The closures are called following the grammar (DESIGN.md guarantee 1),
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
        let observer = AnonymousObserver<Element> { event in
            switch event {
            case .next(let value):
                onNext?(value)
            case .error(let error):
                onError?(error)
                disposeCallback.dispose()
            case .completed:
                onCompleted?()
                disposeCallback.dispose()
            }
        }
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
    private let stopped = Atomic<Bool>(false)

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
