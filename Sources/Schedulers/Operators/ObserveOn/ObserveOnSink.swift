/// What the two `observe(on:)` sinks share: the queue, the state machine and
/// the drain loop. Subclasses say only how one drain is scheduled.
///
/// Upstream elements are queued under the lock; the first event that finds
/// the sink idle schedules one drain, later ones only queue. The drain takes
/// the whole queue under the lock (by swapping two element buffers),
/// delivers it outside the lock, and repeats until it finds the
/// queue empty, at which point the sink is idle again. So there is one
/// scheduled action per batch, not per element, and at most one drain exists
/// at a time: deliveries never overlap (guarantee 2) and keep upstream order
/// (guarantee 3). The disposed flag is checked before every delivery, so
/// after `dispose()` returns no further event is delivered by a drain that
/// starts or continues after it (guarantee 3 on a serial scheduler).
///
/// Cost per element: on the producer side one lock round trip of an inlined
/// compare-and-swap and a store (`ObserveOnQueueLock`) around a state check
/// and a buffer append; on the drain side one flag check, a copy of the
/// element and the call to the observer. Elements travel unwrapped (see
/// `ElementObserver`): only the terminal event is an `Event`. Per batch: one
/// scheduled drain and one lock round trip of the drain. How a waiter for
/// the lock waits, and why it does not sleep in the kernel, is
/// `ObserveOnQueueLock`'s rule. (Performance.md, "observeOn", says where the
/// time per element goes.)
class ObserveOnSink<Observer: ObserverType>: Sink<Observer>, ElementObserver, @unchecked Sendable {
    typealias Element = Observer.Element

    /// Upstream's side: the lock, the state machine and the queued
    /// elements, on cache lines of their own, and the drain's batch (see
    /// `ObserveOnQueue`).
    private let queue = ObserveOnQueue<Element>()

    final func makeNextHandler() -> ElementHandler<Element> {
        ElementHandler { self.onNextElement($0) }
    }

    /// Receives an upstream element.
    final func onNextElement(_ element: Element) {
        if queue.elementArrived(element) {
            scheduleDrain()
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
        switch queue.terminalArrived(terminal) {
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
        #if SCHEDULERS_DRAIN_STATISTICS
        ObserveOnDrainStatistics.drains.add(1, ordering: .relaxed)
        #endif
        while true {
            guard case .deliverQueued(let terminal) = queue.takeQueued() else {
                return
            }
            #if SCHEDULERS_DRAIN_STATISTICS
            ObserveOnDrainStatistics.batches.add(1, ordering: .relaxed)
            let taken = queue.batchCount
            #endif
            queue.deliverBatch(stoppingWhen: { isDisposed }, to: { forwardNextUnchecked($0) })
            if let terminal, !isDisposed {
                deliverTerminal(terminal)
            }
            #if SCHEDULERS_DRAIN_STATISTICS
            ObserveOnDrainGatherProbe.afterBatch(of: taken, ended: terminal != nil)
            ObserveOnDrainSpinGatherProbe.afterBatch(of: taken, ended: terminal != nil) { queue.queuedCount }
            #endif
            #if SCHEDULERS_MUTANTS
            if Mutant.active == .observeOnLostWakeUp {
                // The mutant: one batch per scheduled drain.
                return
            }
            #endif
        }
    }

    /// Delivers the terminal event and disposes. Out of line on purpose:
    /// inlined into `drain()`, building the `Event` makes every drain fetch
    /// `Event<Element>`'s metadata from the runtime (a few hundred
    /// instructions), whether or not the batch ends the sequence.
    @inline(never)
    private func deliverTerminal(_ terminal: ObserveOnTerminalEvent) {
        switch terminal {
        case .error(let error):
            observer.on(.error(error))
        case .completed:
            observer.on(.completed)
        }
        dispose()
    }

    override func dispose() {
        super.dispose()
        queue.dispose()
    }
}
