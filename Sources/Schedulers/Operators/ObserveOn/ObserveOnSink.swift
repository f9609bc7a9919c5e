/// What the two `observe(on:)` sinks share: the queue, the state machine and
/// the drain loop. Subclasses say only how one drain is scheduled.
///
/// Upstream elements are queued under the lock; the first event that finds
/// the sink idle schedules one drain, later ones only queue. The drain takes
/// the whole queue under the lock (by exchanging the contents of two ring
/// buffers), delivers it outside the lock, and repeats until it finds the
/// queue empty, at which point the sink is idle again. So there is one
/// scheduled action per batch, not per element, and at most one drain exists
/// at a time: deliveries never overlap (guarantee 2) and keep upstream order
/// (guarantee 3). The disposed flag is checked before every delivery, so
/// after `dispose()` returns no further event is delivered by a drain that
/// starts or continues after it (guarantee 3 on a serial scheduler).
///
/// Cost per element: on the producer side one lock round trip of an inlined
/// compare-and-swap and a store (`ObserveOnQueueLock`) around a state check
/// and a ring-buffer append; on the drain side one flag check, a copy of the
/// element and the call to the observer. Elements travel unwrapped (see
/// `ElementObserver`): only the terminal event is an `Event`. Per batch: one
/// scheduled drain and one lock round trip of the drain. A waiter for the
/// lock spins, then yields, and sleeps only once a hold has outlasted many
/// yields: a lock that parks a contending thread in the kernel would cost
/// the producer and the drain a sleep and a wake-up each time they met
/// there. (Performance.md, "observeOn", has the instruction counts.)
class ObserveOnSink<Observer: ObserverType>: Sink<Observer>, ElementObserver, @unchecked Sendable {
    typealias Element = Observer.Element

    private let lock = ObserveOnQueueLock()
    /// Guarded by `lock`. Behind a pointer rather than a stored `var`: the
    /// compiler checks a class's stored `var` for exclusive access at run
    /// time (`swift_beginAccess`) on every mutation,
    /// which would be once per element; a pointee is not checked.
    private let machine: UnsafeMutablePointer<ObserveOnStateMachine>
    /// The elements queued by upstream. Guarded by `lock`.
    private let queued = RingBuffer<Element>()
    /// The elements the running drain delivers. Owned by the running drain
    /// (at most one exists); it trades contents with `queued` under the lock.
    private let batch = RingBuffer<Element>()

    override init(observer: Observer, cancel: Cancelable) {
        machine = .allocate(capacity: 1)
        machine.initialize(to: ObserveOnStateMachine())
        super.init(observer: observer, cancel: cancel)
    }

    deinit {
        machine.deinitialize(count: 1)
        machine.deallocate()
    }

    final func makeNextHandler() -> NextHandler<Element> {
        NextHandler { self.onNextElement($0) }
    }

    /// Receives an upstream element.
    ///
    /// Locks by hand rather than with `lock.withLock`: in this class's
    /// unspecialised code the closure may stay a separate function, a call
    /// and a frame per element.
    final func onNextElement(_ element: Element) {
        lock.lock()
        switch machine.pointee.elementArrived() {
        case .enqueue:
            queued.append(element)
            lock.unlock()
        case .enqueueAndScheduleDrain:
            queued.append(element)
            lock.unlock()
            scheduleDrain()
        case .drop:
            lock.unlock()
        }
    }

    /// Receives an upstream event.
    final func on(_ event: Event<Element>) {
        let terminal: ObserveOnTerminalEvent
        switch event {
        case .next(let element):
            onNextElement(element)
            return
        case .error(let error):
            terminal = .error(error)
        case .completed:
            terminal = .completed
        }
        let action = lock.withLock { machine.pointee.terminalArrived(terminal) }
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
        while true {
            let step: ObserveOnStateMachine.DrainStep = lock.withLock {
                let step = machine.pointee.drainNeedsWork(queuedCount: queued.count)
                if case .deliverQueued = step {
                    queued.exchangeContents(with: batch)
                }
                return step
            }
            guard case .deliverQueued(let terminal) = step else {
                return
            }
            batch.deliverAll(stoppingWhen: { isDisposed }, to: { forwardNextUnchecked($0) })
            if let terminal, !isDisposed {
                switch terminal {
                case .error(let error):
                    observer.on(.error(error))
                case .completed:
                    observer.on(.completed)
                }
                dispose()
            }
        }
    }

    override func dispose() {
        super.dispose()
        lock.withLock {
            machine.pointee.dispose()
            queued.removeAll()
        }
    }
}
