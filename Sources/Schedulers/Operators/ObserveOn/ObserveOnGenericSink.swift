/// The generic path of `observe(on:)`, for any scheduler.
///
/// The drain is scheduled with `schedule`, which on a concurrent scheduler may
/// run on any thread and on some schedulers runs inline, inside the upstream
/// call: both are safe because the state machine lets only one drain exist at
/// a time and the lock is never held while the observer runs. Deliveries
/// therefore never overlap (guarantee 2) and keep order (guarantee 3), even on
/// a concurrent scheduler. A drain scheduled before disposal still runs,
/// delivers nothing and releases the sink. Steady state allocates nothing per
/// element, as on the serial path.
///
/// A drain the scheduler drops without running it (an operation cancelled by
/// `cancelAllOperations()` on an `OperationQueueScheduler`'s queue) is
/// scheduled again at once: the state machine still counts it as scheduled,
/// so without a new one the events queued for it, and every later one,
/// would wait for ever.
final class ObserveOnGenericSink<Observer: ObserverType>: ObserveOnSink<Observer>, DroppedActionHandling,
    @unchecked Sendable
{
    private let scheduler: ImmediateSchedulerType
    private let drainAction: (ObserveOnGenericSink<Observer>) -> Disposable = { sink in
        sink.drain()
        return Disposables.create()
    }

    init(scheduler: ImmediateSchedulerType, observer: Observer, cancel: Cancelable) {
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    override func scheduleDrain() {
        _ = scheduler.schedule(self, action: drainAction)
    }

    /// The scheduled drain will never run: the replacement takes its place,
    /// so there is still exactly one drain on its way.
    func scheduledActionWasDropped() {
        scheduleDrain()
    }
}
