/// A type-erased observer: forwards every event to the wrapped observer or closure.
///
/// The observer handed to the closure of `Observable.create` is an
/// `AnyObserver`; calling it allocates nothing.
public struct AnyObserver<Element>: ObserverType {
    /// The closure type behind an `AnyObserver`.
    public typealias EventHandler = (Event<Element>) -> Void

    private let observer: EventHandler

    /// Creates an observer that calls `eventHandler` for each event.
    public init(eventHandler: @escaping EventHandler) {
        observer = eventHandler
    }

    /// Creates an observer that forwards to `observer`.
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        self.observer = observer.on
    }

    /// Forwards `event`.
    public func on(_ event: Event<Element>) {
        observer(event)
    }

    /// Returns `self`.
    public func asObserver() -> AnyObserver<Element> {
        self
    }
}
