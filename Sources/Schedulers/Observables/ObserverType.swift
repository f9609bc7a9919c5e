/// Receives the events of a sequence.
///
/// The library calls an observer according to the grammar
/// `next* (error | completed)?` (guarantee 1 in Guarantees.md) and never concurrently
/// with itself (guarantee 2), provided the sources it is built on obey the
/// same contract, as every source and operator of this library does.
public protocol ObserverType {
    /// The type of the elements received.
    associatedtype Element

    /// Receives one event.
    func on(_ event: Event<Element>)

    /// How the library's operators hand this observer an element without
    /// wrapping it in an `Event`, or `nil` to receive `.next` events.
    ///
    /// Provided: `nil` for every observer, a handler for the library's own,
    /// and the compiler picks the right one from the observer's
    /// conformances. An observer outside the library cannot return anything
    /// but `nil` (`ElementHandler` has no public initialiser), so it has no
    /// reason to implement it. A sink asks its downstream observer once, at
    /// subscription. It is a requirement, not a cast, because asking the
    /// same question with a cast (`as? any ElementObserver`, internal) is a
    /// run-time conformance lookup paid by every sink of every subscription.
    func makeElementHandler() -> ElementHandler<Element>?
}

extension ObserverType {
    /// `nil`: this observer receives elements as `.next` events.
    public func makeElementHandler() -> ElementHandler<Element>? {
        nil
    }
}

extension ObserverType {
    /// Sends `.next(element)`.
    @inlinable
    public func onNext(_ element: Element) {
        on(.next(element))
    }

    /// Sends `.completed`.
    @inlinable
    public func onCompleted() {
        on(.completed)
    }

    /// Sends `.error(error)`.
    @inlinable
    public func onError(_ error: Swift.Error) {
        on(.error(error))
    }

    /// This observer, type-erased.
    public func asObserver() -> AnyObserver<Element> {
        AnyObserver(self)
    }
}
