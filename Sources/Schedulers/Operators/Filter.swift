extension ObservableType {
    /// Keeps the elements for which `predicate` returns `true`; an error it
    /// throws ends the sequence with that error.
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        FilterObservable(source: asObservable(), predicate: predicate)
    }
}

final class FilterObservable<Element>: Producer<Element>, @unchecked Sendable {
    typealias Predicate = (Element) throws -> Bool

    private let source: Observable<Element>
    private let predicate: Predicate

    init(source: Observable<Element>, predicate: @escaping Predicate) {
        self.source = source
        self.predicate = predicate
    }

    override func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = FilterSink(predicate: predicate, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink, subscription)
    }
}

final class FilterSink<Observer: ObserverType>: Sink<Observer>, ElementObserver, @unchecked Sendable {
    typealias Element = Observer.Element
    typealias Predicate = (Element) throws -> Bool

    private let predicate: Predicate

    init(predicate: @escaping Predicate, observer: Observer, cancel: Cancelable) {
        self.predicate = predicate
        super.init(observer: observer, cancel: cancel)
    }

    func makeNextHandler() -> ElementHandler<Element> {
        ElementHandler { self.onNextElement($0) }
    }

    func onNextElement(_ element: Element) {
        do {
            if try predicate(element) {
                forwardNext(element)
            }
        } catch {
            forwardErrorAndDispose(error)
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
