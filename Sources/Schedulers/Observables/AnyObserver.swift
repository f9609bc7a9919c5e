/// A type-erased observer: forwards every event to the wrapped observer or closure.
///
/// The observer handed to the closure of `Observable.create` is an
/// `AnyObserver`; calling it allocates nothing. Wrapping one of this
/// library's sinks, its `onNext(_:)` hands the element straight to the sink
/// (see `ElementObserver`), without building an `Event`.
public struct AnyObserver<Element>: ObserverType {
    /// The closure type behind an `AnyObserver`.
    public typealias EventHandler = (Event<Element>) -> Void

    @usableFromInline
    let observer: EventHandler
    /// Takes elements: the wrapped sink's element path, or a closure that
    /// sends `.next`. Not optional: unwrapping an optional closure to call it
    /// retains and releases its context on every element.
    @usableFromInline
    let nextHandler: (Element) -> Void

    /// Creates an observer that calls `eventHandler` for each event.
    @inlinable
    public init(eventHandler: @escaping EventHandler) {
        observer = eventHandler
        nextHandler = { element in eventHandler(.next(element)) }
    }

    /// Creates an observer that forwards to `observer`.
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        self.observer = observer.on
        nextHandler = ElementPath.nextHandler(for: observer)
    }

    /// Forwards `event`.
    public func on(_ event: Event<Element>) {
        observer(event)
    }

    /// Sends `.next(element)`; into the wrapped sink's element path when it
    /// has one.
    @inlinable
    public func onNext(_ element: Element) {
        nextHandler(element)
    }

    /// Returns `self`.
    public func asObserver() -> AnyObserver<Element> {
        self
    }
}

/// An `AnyObserver` passed to an operator keeps the element path of what it
/// wraps: the operator's sink calls its `nextHandler` directly.
extension AnyObserver: ElementObserver {
    func onNextElement(_ element: Element) {
        nextHandler(element)
    }

    func makeNextHandler() -> ElementHandler<Element> {
        ElementHandler(call: nextHandler)
    }

    /// The handler this observer was made with: its own element path.
    public func makeElementHandler() -> ElementHandler<Element>? {
        makeNextHandler()
    }
}
