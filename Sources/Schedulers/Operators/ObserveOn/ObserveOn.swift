extension ObservableType {
    /// Delivers the events of this sequence on `scheduler`.
    ///
    /// Picks the path with `ObserveOnPath.automatic`: the serial fast path when
    /// `scheduler` conforms to `SerialScheduler` (a dynamic check for the
    /// marker protocol, so any serial scheduler qualifies, not one class), the
    /// generic path otherwise. See `observe(on:path:)` for what both promise.
    public func observe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        observe(on: scheduler, path: .automatic)
    }

    /// The spelling of `observe(on:)` in RxSwift's Schedulers guide (and RxSwift 5).
    public func observeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        observe(on: scheduler, path: .automatic)
    }

    /// Delivers the events of this sequence on `scheduler`, through the path
    /// `path` selects.
    ///
    /// Both paths batch: upstream events go into a queue, the event that finds
    /// the queue idle schedules one drain action, and that drain delivers
    /// everything queued, looping while more arrives. There is one scheduled
    /// action per batch, not per element, and in steady state neither path
    /// allocates per element (a buffer that keeps its capacity, no
    /// closure per element, elements stored unboxed). Upstream pays, per
    /// element, a lock round trip that stays out of the kernel (an inlined
    /// compare-and-swap and a store) around a state check and an append. The
    /// price: each subscription keeps queue space for the largest backlog it
    /// has seen, until it ends; then the process keeps that space for the
    /// next subscription's queue (up to about 4 MB of free queue space in
    /// all, for elements of at most 112 bytes), so that a new subscription's
    /// flood does not call the allocator either.
    ///
    /// - Fast path (`.automatic` on a `SerialScheduler`): drains are
    ///   enqueued with `scheduleInOrder`, never inline.
    /// - Generic path (any other scheduler, or `.generic`): drains are
    ///   scheduled with `schedule`; at most one exists at a time, so even on a
    ///   concurrent scheduler the observer is never called concurrently with
    ///   itself.
    ///
    /// Guarantees: the grammar holds (guarantee 1 in Guarantees.md: nothing after a
    /// terminal event); the observer is never called concurrently with itself
    /// (guarantee 2); events arrive in upstream order, and on a serial
    /// scheduler, once `dispose()` returns on that scheduler no further event
    /// reaches the observer (guarantee 3); the sink is freed after disposal or
    /// termination (guarantee 8). Disposing from another thread stops delivery
    /// before the next event, though an event already being delivered finishes.
    public func observe(on scheduler: ImmediateSchedulerType, path: ObserveOnPath) -> Observable<Element> {
        if path == .automatic, let serial = scheduler.asSerialScheduler {
            return ObserveOnFastPath(source: asObservable(), scheduler: serial)
        }
        return ObserveOnGeneric(source: asObservable(), scheduler: scheduler)
    }
}

final class ObserveOnFastPath<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let scheduler: any SerialScheduler

    init(source: Observable<Element>, scheduler: any SerialScheduler) {
        self.source = source
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ObserveOnFastPathSink(scheduler: scheduler, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink, subscription)
    }
}

final class ObserveOnGeneric<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let scheduler: ImmediateSchedulerType

    init(source: Observable<Element>, scheduler: ImmediateSchedulerType) {
        self.source = source
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ObserveOnGenericSink(scheduler: scheduler, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink, subscription)
    }
}
