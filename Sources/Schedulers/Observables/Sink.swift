import Synchronization

/// The per-subscription half of an operator: receives upstream events and
/// forwards them to the observer.
///
/// Once disposed it forwards nothing more, so an operator that disposes itself
/// after forwarding a terminal event keeps the grammar (guarantee 1 in Guarantees.md).
/// `cancel` disposes the whole subscription (the sink's upstream included).
class Sink<Observer: ObserverType>: Disposable, @unchecked Sendable {
    // Stored properties of a fixed size come first, on purpose: a field
    // declared after `observer`, whose size depends on the generic
    // parameter, sits at an offset that unspecialised code reads from the
    // class's metadata on every access, while these two are read per element.

    /// Sends `observer` an element: straight into its `onNextElement(_:)`
    /// when it is one of this library's sinks (no `Event` built, see
    /// `ElementObserver`), else as `.next`.
    private final let nextHandler: (Observer.Element) -> Void
    private let disposed = SyncAtomic<Bool>(false)
    final let cancel: Cancelable
    final let observer: Observer

    init(observer: Observer, cancel: Cancelable) {
        self.observer = observer
        self.cancel = cancel
        nextHandler = ElementPath.nextHandler(for: observer)
        LiveInstances.sinkCreated()
    }

    /// Forwards `event` unless the sink has been disposed.
    @inline(__always)
    final func forwardOn(_ event: Event<Observer.Element>) {
        if disposed.load(ordering: .acquiring) {
            return
        }
        observer.on(event)
    }

    /// Forwards `element` unless the sink has been disposed; the same as
    /// `forwardOn(.next(element))`, without building the event.
    @inline(__always)
    final func forwardNext(_ element: Observer.Element) {
        if disposed.load(ordering: .acquiring) {
            return
        }
        nextHandler(element)
    }

    /// Forwards `error`, then disposes: the failure path of an operator's
    /// element handler (a `map` transform or a `filter` predicate that
    /// throws). Out of line on purpose: inlined, it makes the optimiser fetch
    /// `Event<Element>`'s metadata from the runtime on every element, so every
    /// `onNext` would pay for the error path (about a third of an element's
    /// instructions on the element path, per operator).
    @inline(never)
    final func forwardErrorAndDispose(_ error: any Error) {
        forwardOn(.error(error))
        dispose()
    }

    /// Forwards `element` without checking for disposal: for a caller that
    /// has just checked `isDisposed` itself.
    @inline(__always)
    final func forwardNextUnchecked(_ element: Observer.Element) {
        nextHandler(element)
    }

    /// Whether `dispose()` has been called.
    @inline(__always)
    final var isDisposed: Bool {
        disposed.load(ordering: .acquiring)
    }

    /// Stops forwarding and disposes the subscription.
    func dispose() {
        disposed.store(true, ordering: .releasing)
        cancel.dispose()
    }

    deinit {
        LiveInstances.sinkFreed()
    }
}
