extension ObservableType {
    /// A sequence that never sends anything.
    public static func never() -> Observable<Element> {
        NeverObservable()
    }
}

final class NeverObservable<Element>: Observable<Element>, @unchecked Sendable {
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        Disposables.create()
    }
}
