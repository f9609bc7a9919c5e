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
