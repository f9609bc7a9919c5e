extension ObservableType {
    /// Transforms each element with `transform`; an error it throws ends the
    /// sequence with that error.
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Observable<Result> {
        MapObservable(source: asObservable(), transform: transform)
    }
}

final class MapObservable<SourceElement, Element>: Producer<Element>, @unchecked Sendable {
    typealias Transform = (SourceElement) throws -> Element

    private let source: Observable<SourceElement>
    private let transform: Transform

    init(source: Observable<SourceElement>, transform: @escaping Transform) {
        self.source = source
        self.transform = transform
    }

    override func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = MapSink(transform: transform, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink, subscription)
    }
}

final class MapSink<SourceElement, Observer: ObserverType>: Sink<Observer>, ElementObserver, @unchecked Sendable {
    typealias Transform = (SourceElement) throws -> Observer.Element

    private let transform: Transform

    init(transform: @escaping Transform, observer: Observer, cancel: Cancelable) {
        self.transform = transform
        super.init(observer: observer, cancel: cancel)
    }

    func makeNextHandler() -> ElementHandler<SourceElement> {
        ElementHandler { self.onNextElement($0) }
    }

    func onNextElement(_ element: SourceElement) {
        do {
            forwardNext(try transform(element))
        } catch {
            forwardErrorAndDispose(error)
        }
    }

    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            onNextElement(element)
        case .error(let error):
            forwardOn(.error(error))
            dispose()
        case .completed:
            forwardOn(.completed)
            dispose()
        }
    }
}
