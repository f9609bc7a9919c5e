/// A push-based sequence of `Element`s: the class every operator returns.
///
/// Subclasses implement `subscribe(_:)`. The sequences of this library send
/// `next* (error | completed)?` (guarantee 1 in Guarantees.md), never call an
/// observer concurrently with itself (guarantee 2), and free every sink once a
/// subscription is disposed or has terminated (guarantee 8). It is immutable
/// once created, hence `Sendable`; subclasses must keep it that way.
open class Observable<Element>: ObservableType, @unchecked Sendable {
    /// Creates the sequence.
    public init() {}

    /// Starts delivering events to `observer`. Subclasses override this.
    open func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        preconditionFailure("Observable.subscribe(_:) is abstract: subclass Observable and override it, or use Observable.create")
    }

    /// Returns `self`.
    public func asObservable() -> Observable<Element> {
        self
    }
}
