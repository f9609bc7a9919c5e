extension ObservableType {
    /// The first `count` elements, then completion; the source subscription is
    /// disposed as soon as the last one has been sent.
    ///
    /// - Precondition: `count` is not negative. `take(0)` completes at once
    ///   without subscribing to the source.
    public func take(_ count: Int) -> Observable<Element> {
        precondition(count >= 0, "take(_:) needs a count that is not negative, got \(count)")
        if count == 0 {
            return Observable.empty()
        }
        return TakeCountObservable(source: asObservable(), count: count)
    }
}

final class TakeCountObservable<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let count: Int

    init(source: Observable<Element>, count: Int) {
        self.source = source
        self.count = count
    }

    override func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = TakeCountSink(count: count, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink, subscription)
    }
}

/// Counts down; events arrive serially (guarantee 2), so the counter needs no lock.
final class TakeCountSink<Observer: ObserverType>: Sink<Observer>, ElementObserver, @unchecked Sendable {
    typealias Element = Observer.Element

    private var remaining: Int

    init(count: Int, observer: Observer, cancel: Cancelable) {
        remaining = count
        super.init(observer: observer, cancel: cancel)
    }

    func makeNextHandler() -> ElementHandler<Element> {
        ElementHandler { self.onNextElement($0) }
    }

    func onNextElement(_ element: Element) {
        guard remaining > 0 else { return }
        remaining -= 1
        forwardNext(element)
        if remaining == 0 {
            forwardOn(.completed)
            dispose()
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            onNextElement(element)
        case .error, .completed:
            forwardOn(event)
            dispose()
        }
    }
}
