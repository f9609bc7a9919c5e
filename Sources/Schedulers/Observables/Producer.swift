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

/// A `Producer` with one upstream sequence, `source`: the operators (`map`,
/// `filter`, `take`, `observe(on:)`, `subscribe(on:)`) keep their upstream
/// here, and their `run(_:cancel:)` hands its sink to `subscribeSource(_:)`
/// or to `start(_:)`.
class SourceProducer<SourceElement, Element>: Producer<Element>, @unchecked Sendable {
    final let source: Observable<SourceElement>

    init(source: Observable<SourceElement>) {
        self.source = source
    }

    /// Subscribes `sink` to `source`: what `run(_:cancel:)` returns for an
    /// operator whose sink observes its upstream as soon as it is made.
    @inline(__always)
    final func subscribeSource<UpstreamSink: ObserverType & Disposable>(
        _ sink: UpstreamSink
    ) -> (sink: Disposable, subscription: Disposable) where UpstreamSink.Element == SourceElement {
        (sink, source.subscribe(sink))
    }
}

/// A sink that starts its own subscription: `run()` subscribes (or schedules
/// the subscription or the emission) and returns what cancels it.
protocol StartingSink: Disposable {
    func run() -> Disposable
}

extension Producer {
    /// Starts `sink`: what `run(_:cancel:)` returns for a sink that
    /// subscribes by itself (`subscribe(on:)`, `from`, `of`, `range`).
    @inline(__always)
    final func start<Starting: StartingSink>(_ sink: Starting) -> (sink: Disposable, subscription: Disposable) {
        (sink, sink.run())
    }
}
