extension ObservableType {
    /// A sequence that fails at once with `error`.
    public static func error(_ error: Swift.Error) -> Observable<Element> {
        ErrorObservable(error: error)
    }
}

final class ErrorObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let error: Swift.Error

    init(error: Swift.Error) {
        self.error = error
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        observer.on(.error(error))
        return Disposables.create()
    }
}
