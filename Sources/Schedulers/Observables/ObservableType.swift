/// A type that can be turned into an `Observable`.
public protocol ObservableConvertibleType {
    /// The type of the elements of the sequence.
    associatedtype Element

    /// The sequence as an `Observable`.
    func asObservable() -> Observable<Element>
}

/// A push-based sequence: `subscribe` starts delivering events to an observer.
///
/// Every sequence of this library sends `next* (error | completed)?`
/// (guarantee 1 in Guarantees.md) and never calls an observer concurrently with
/// itself (guarantee 2).
public protocol ObservableType: ObservableConvertibleType {
    /// Starts delivering events to `observer`.
    ///
    /// - Returns: A disposable that stops the delivery and releases every
    ///   resource of the subscription.
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element
}

extension ObservableType {
    /// The sequence as an `Observable`.
    public func asObservable() -> Observable<Element> {
        Observable.create { observer in self.subscribe(observer) }
    }
}
