/// Binds the element path from one sink to the next, once per subscription.
enum ElementPath {
    /// The fastest way to send `observer` an element: its `onNextElement(_:)`
    /// when it is one of this library's `ElementObserver`s, else a closure
    /// that sends it `.next(element)`.
    ///
    /// The observer says which through `ObserverType.makeElementHandler()`, a
    /// call through its witness table, where a cast to `ElementObserver` would
    /// be a run-time conformance lookup. The handler comes back typed for the
    /// observer's own element type and stored in a struct, so it is never
    /// converted between calling conventions: no reabstraction thunk on any
    /// element.
    static func nextHandler<Observer: ObserverType>(for observer: Observer) -> (Observer.Element) -> Void {
        if let handler = observer.makeElementHandler() {
            return handler.call
        }
        return { element in observer.on(.next(element)) }
    }
}
