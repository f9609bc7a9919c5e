/// What the two `observe(on:)` sinks share: the queue, the state machine and
/// the drain loop. Subclasses say only how one drain is scheduled.
///
/// Upstream events are queued under the lock; the first event that finds the
/// sink idle schedules one drain, later ones only queue. The drain takes the
/// whole queue under the lock (by swapping two ring buffers), delivers it
/// outside the lock, and repeats until it finds the queue empty, at which
/// point the sink is idle again. So there is one scheduled action per batch,
/// not per element, and at most one drain exists at a time: deliveries never
/// overlap (guarantee 2) and keep upstream order (guarantee 3). The disposed
/// flag is checked before every delivery, so after `dispose()` returns no
/// further event is delivered by a drain that starts or continues after it
/// (guarantee 3 on a serial scheduler).
class ObserveOnSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let lock = Lock()
    private var machine: ObserveOnStateMachine<Element>
    /// Owned by the running drain only (at most one exists).
    private var batch = RingBuffer<Event<Element>>()

    override init(observer: Observer, cancel: Cancelable) {
        machine = ObserveOnStateMachine(queue: RingBuffer())
        super.init(observer: observer, cancel: cancel)
    }

    /// Receives an upstream event.
    final func on(_ event: Event<Element>) {
        let action = lock.withLock { machine.enqueue(event) }
        switch action {
        case .scheduleDrain:
            scheduleDrain()
        case .none:
            break
        }
    }

    /// Schedules one call of `drain()` on the scheduler. Overridden.
    func scheduleDrain() {
        preconditionFailure("ObserveOnSink.scheduleDrain() is abstract")
    }

    /// Delivers every queued event, including those queued meanwhile.
    final func drain() {
        while lock.withLock({ machine.takeBatch(into: &batch) }) {
            while batch.count > 0 {
                if isDisposed {
                    batch.removeAll()
                    break
                }
                let event = batch.removeFirst()
                if batch.count == 0, event.isStopEvent {
                    // A terminal event is always the last one queued.
                    observer.on(event)
                    dispose()
                } else {
                    observer.on(event)
                }
            }
        }
    }

    override func dispose() {
        super.dispose()
        lock.withLock { machine.dispose() }
    }
}
