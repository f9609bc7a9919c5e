extension ObservableType {
    /// A sequence of one element, then completion, sent on subscription.
    public static func just(_ element: Element) -> Observable<Element> {
        JustObservable(element: element)
    }

    /// A sequence of one element, then completion, sent through `scheduler`.
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Observable<Element> {
        ObservableSequence(elements: CollectionOfOne(element), scheduler: scheduler)
    }
}

final class JustObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let element: Element

    init(element: Element) {
        self.element = element
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        observer.on(.next(element))
        observer.on(.completed)
        return Disposables.create()
    }
}
