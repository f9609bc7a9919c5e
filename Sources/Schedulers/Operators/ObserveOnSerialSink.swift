/// The serial fast path of `observe(on:)`.
///
/// Used when the scheduler conforms to `SerialScheduler`: the drain is
/// enqueued with `scheduleInOrder`, which never runs inline and runs actions
/// one at a time in order, so the sink needs no re-entrancy handling and no
/// bookkeeping of the scheduled action (a drain that runs after disposal finds
/// the sink disposed and only returns). Steady state allocates nothing per
/// element: the queue is a ring buffer that keeps its capacity, the drain
/// action is one closure made at subscription, and elements stay unboxed.
final class ObserveOnSerialSink<Observer: ObserverType>: ObserveOnSink<Observer>, @unchecked Sendable {
    private let scheduler: any SerialScheduler
    private let drainAction: (ObserveOnSerialSink<Observer>) -> Disposable = { sink in
        sink.drain()
        return Disposables.create()
    }

    init(scheduler: any SerialScheduler, observer: Observer, cancel: Cancelable) {
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    override func scheduleDrain() {
        _ = scheduler.scheduleInOrder(self, action: drainAction)
    }
}
