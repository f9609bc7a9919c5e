import Synchronization

extension ObservableType {
    /// Creates a sequence whose subscription runs `subscribe`.
    ///
    /// `subscribe` runs on the thread that subscribes (unless `subscribe(on:)`
    /// says otherwise) and receives an observer that enforces the grammar:
    /// after the first `.error` or `.completed`, or after disposal, further
    /// calls are ignored (guarantee 1 in Guarantees.md). The closure must not call the
    /// observer from two threads at once (the Rx contract, guarantee 2).
    ///
    /// - Parameter subscribe: Starts producing; returns what to dispose when
    ///   the subscription ends.
    public static func create(
        _ subscribe: @escaping (AnyObserver<Element>) -> Disposable
    ) -> Observable<Element> {
        AnonymousObservable(subscribe)
    }
}

final class AnonymousObservable<Element>: Producer<Element>, @unchecked Sendable {
    typealias SubscribeHandler = (AnyObserver<Element>) -> Disposable

    private let subscribeHandler: SubscribeHandler

    init(_ subscribeHandler: @escaping SubscribeHandler) {
        self.subscribeHandler = subscribeHandler
    }

    override func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = AnonymousObservableSink(observer: observer, cancel: cancel)
        let subscription = subscribeHandler(AnyObserver(sink))
        return (sink, subscription)
    }
}

/// Forwards what the `create` closure sends, dropping everything after a
/// terminal event (guarantee 1).
///
/// The `AnyObserver` the closure receives calls `onNextElement(_:)` for
/// `onNext`, so an element reaches the next sink without an `Event` built.
final class AnonymousObservableSink<Observer: ObserverType>: Sink<Observer>, ElementObserver, @unchecked Sendable {
    typealias Element = Observer.Element

    /// Set by the first terminal event or by `dispose()`: one flag for the
    /// element path to check, rather than this and the disposed flag.
    private let stopped = SyncAtomic<Bool>(false)

    func makeNextHandler() -> ElementHandler<Element> {
        ElementHandler { self.onNextElement($0) }
    }

    func onNextElement(_ element: Element) {
        if stopped.load(ordering: .acquiring) {
            return
        }
        forwardNextUnchecked(element)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if stopped.load(ordering: .acquiring) {
                return
            }
            forwardOn(event)
        case .error, .completed:
            if stopped.exchange(true, ordering: .acquiringAndReleasing) {
                return
            }
            forwardOn(event)
            dispose()
        }
    }

    override func dispose() {
        stopped.store(true, ordering: .releasing)
        super.dispose()
    }
}
