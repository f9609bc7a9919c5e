/// An observer of this library that also takes an element directly, without
/// wrapping it in an `Event`.
///
/// Why it exists: this module's generic code runs unspecialised for a
/// client's element type, and every `Event<Element>` it builds, copies or
/// switches on costs a run-time metadata lookup (a hash-table probe), which
/// would dominate a per-element path. Sinks that conform receive elements
/// through `onNextElement(_:)`, which touches only `Element` itself; terminal
/// events still arrive through `on(_:)`, once per subscription.
///
/// An upstream sink binds to this entry once, at subscription, through
/// `ElementPath.nextHandler(for:)`; observers from outside the library keep
/// receiving `.next` events.
protocol ElementObserver: ObserverType {
    /// Receives the element of a `.next` event: the same as `on(.next(element))`.
    func onNextElement(_ element: Element)

    /// A closure that calls `onNextElement(_:)` on this observer.
    ///
    /// Written in each conforming class as
    /// `ElementHandler { self.onNextElement($0) }`, so that the closure calls the
    /// method directly; a partial application made in generic code would go
    /// through the protocol witness on every element.
    func makeNextHandler() -> ElementHandler<Element>
}

/// A closure taking elements, wrapped in a struct so that it keeps one
/// representation wherever it is passed.
///
/// A bare closure returned through a protocol requirement or passed to a
/// generic function is converted to the most general calling convention and
/// back, each conversion adding a reabstraction thunk to every call; a
/// struct's stored closure is never converted.
///
/// Public only because `ObserverType.makeElementHandler()` returns one;
/// nothing outside the library can make one or call it.
public struct ElementHandler<Element> {
    let call: (Element) -> Void
}

extension ElementObserver {
    /// This observer's `makeNextHandler()`: the witness of every library
    /// observer, so that binding to one needs no cast.
    ///
    /// Inlined into each conformance's witness, where the observer's type is
    /// known: called out of line, generic over `Self`, it would need
    /// `Self`'s `ElementObserver` witness table, a run-time lookup per call.
    @inline(__always)
    func makeElementHandler() -> ElementHandler<Element>? {
        makeNextHandler()
    }
}
