extension ObservableType {
    /// A sequence that completes at once, with no element.
    public static func empty() -> Observable<Element> {
        EmptyObservable()
    }
}

final class EmptyObservable<Element>: Observable<Element>, @unchecked Sendable {
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        observer.on(.completed)
        return Disposables.create()
    }
}
