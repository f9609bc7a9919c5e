/// An `Observable` built from a sink per subscription.
///
/// `subscribe` creates a `SinkDisposer`, lets `run` create the sink and
/// subscribe upstream, then hands both to the disposer, which disposes each
/// exactly once (guarantee 7 in Guarantees.md) and thereby frees the sink
/// (guarantee 8).
///
/// The outermost subscription on a thread runs inside a
/// `CurrentThreadScheduler` action, so that sources emitting on the
/// trampoline (`of`, `from`, `range`) start only once the whole chain of
/// disposers is wired: a downstream `take` that disposes after its last
/// element then really stops the source loop.
class Producer<Element>: Observable<Element>, @unchecked Sendable {
    override init() {}

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        CurrentThreadScheduler.instance.runAsAction { subscribeNow(observer) }
    }

    private func subscribeNow<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let disposer = SinkDisposer()
        let (sink, subscription) = run(observer, cancel: disposer)
        disposer.setSinkAndSubscription(sink: sink, subscription: subscription)
        return disposer
    }

    /// Creates the sink for `observer` and subscribes upstream.
    ///
    /// - Parameter cancel: Disposes the whole subscription; the sink calls it
    ///   after a terminal event.
    /// - Returns: The sink and the upstream subscription.
    func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        preconditionFailure("Producer.run(_:cancel:) is abstract")
    }
}
