/// Binds the element path from one sink to the next, once per subscription.
enum ElementPath {
    /// The fastest way to send `observer` an element: its `onNextElement(_:)`
    /// when it is one of this library's `ElementObserver`s, else a closure
    /// that sends it `.next(element)`.
    static func nextHandler<Observer: ObserverType>(for observer: Observer) -> (Observer.Element) -> Void {
        if let handler = directNextHandler(for: observer) {
            return handler
        }
        return { element in observer.on(.next(element)) }
    }

    /// `observer.onNextElement` when `observer` is an `ElementObserver`, else `nil`.
    private static func directNextHandler<Observer: ObserverType>(for observer: Observer) -> ((Observer.Element) -> Void)? {
        guard let direct = observer as? any ElementObserver else {
            return nil
        }
        return handler(of: direct, as: Observer.Element.self)
    }

    /// `direct`'s next handler typed for `Element`.
    ///
    /// `direct` is the observer itself, so its element type is `Element`; it
    /// is checked anyway, once, rather than assumed. The handler is then
    /// reinterpreted rather than cast with `as?`: both are the same type at
    /// run time, and `as?` would wrap the closure in reabstraction thunks
    /// paid on every element.
    private static func handler<Direct: ElementObserver, Element>(
        of direct: Direct, as _: Element.Type
    ) -> ((Element) -> Void)? {
        guard Direct.Element.self == Element.self else {
            return nil
        }
        return unsafeBitCast(direct.makeNextHandler(), to: NextHandler<Element>.self).call
    }
}
