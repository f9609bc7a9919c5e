import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the two `observe(on:)` sinks share: the queue, the state machine and
/// the drain loop. Subclasses say only how one drain is scheduled.
///
/// Upstream elements are queued under the lock; the first event that finds
/// the sink idle schedules one drain, later ones only queue. The drain takes
/// the whole queue under the lock (by exchanging the contents of two ring
/// buffers), delivers it outside the lock, and repeats until it finds the
/// queue empty. It then lingers, spinning for at most `lingerNanoseconds`
/// on a flag upstream sets when it queues into an empty queue, and goes on
/// delivering if something came; only otherwise does it go idle. So there is
/// one scheduled action per batch, not per element, batches stay large while
/// upstream is fast (rather than one scheduled action and thread wake-up per
/// handful of elements), and at most one drain exists at a time: deliveries
/// never overlap (guarantee 2) and keep upstream order (guarantee 3). The
/// disposed flag is checked before every delivery, so after `dispose()`
/// returns no further event is delivered by a drain that starts or continues
/// after it (guarantee 3 on a serial scheduler).
///
/// Cost per element: on the producer side one lock round trip of an inlined
/// compare-and-swap and a store (`ObserveOnQueueLock`) around a state check
/// and a ring-buffer append (about 150 instructions from upstream's `onNext`
/// to the unlock for an `Int`, unspecialised); on the drain side one flag
/// check and the call to the observer. Elements travel unwrapped (see
/// `ElementObserver`): only the terminal event is an `Event`. Per batch: one
/// scheduled drain, and up to `lingerNanoseconds` of spinning on the
/// scheduler's thread when upstream pauses.
class ObserveOnSink<Observer: ObserverType>: Sink<Observer>, ElementObserver, @unchecked Sendable {
    typealias Element = Observer.Element

    private let lock = ObserveOnQueueLock()
    /// Guarded by `lock`. Behind a pointer rather than a stored `var`: the
    /// compiler checks a class's stored `var` for exclusive access at run
    /// time (`swift_beginAccess`, about 150 instructions) on every mutation,
    /// which would be once per element; a pointee is not checked.
    private let machine: UnsafeMutablePointer<ObserveOnStateMachine>
    /// The elements queued by upstream. Guarded by `lock`.
    private let queued = RingBuffer<Element>()
    /// The elements the running drain delivers. Owned by the running drain
    /// (at most one exists); it trades contents with `queued` under the lock.
    private let batch = RingBuffer<Element>()
    /// Set under `lock` when something arrives for a lingering drain (an
    /// element into an empty queue, a terminal event, disposal), cleared
    /// under `lock` when the drain takes the queue. Read without the lock
    /// by the lingering drain: the one value it polls, which upstream
    /// writes once per batch, not per element.
    private let workArrived = Atomic<Bool>(false)

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
            if queued.append(element) == 1 {
                // Into an empty queue: a lingering drain is waiting for this.
                workArrived.store(true, ordering: .relaxed)
            }
            lock.unlock()
        case .enqueueAndScheduleDrain:
            queued.append(element)
            machine.pointee.drainRequester = pthread_self()
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
        let action = lock.withLock {
            workArrived.store(true, ordering: .relaxed)
            return machine.pointee.terminalArrived(terminal)
        }
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
    ///
    /// When the queue is empty the drain lingers once, briefly, before it
    /// goes idle (see `linger()`), so that a fast producer finds it still
    /// scheduled and keeps filling one batch instead of paying a scheduled
    /// action and a thread wake-up for each handful of elements.
    final func drain() {
        var mayLinger = true
        while true {
            let step: ObserveOnStateMachine.DrainStep = lock.withLock {
                let step = machine.pointee.drainNeedsWork(queuedCount: queued.count, mayLinger: mayLinger)
                switch step {
                case .deliverQueued:
                    queued.exchangeContents(with: batch)
                    workArrived.store(false, ordering: .relaxed)
                case .linger:
                    // Lingering is useless, and only delays upstream, when
                    // the thread that scheduled this drain is this one: it
                    // cannot send anything until the drain returns.
                    if machine.pointee.drainRequester == pthread_self() {
                        return machine.pointee.drainNeedsWork(queuedCount: 0, mayLinger: false)
                    }
                case .stop:
                    break
                }
                return step
            }
            switch step {
            case .stop:
                return
            case .linger:
                mayLinger = linger()
                continue
            case .deliverQueued(let terminal):
                mayLinger = true
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
    }

    /// How long an idle drain waits for more before it goes idle.
    ///
    /// A few microseconds: about what the scheduled action and thread wake-up
    /// it saves cost, so a producer that sends faster than that keeps one
    /// drain busy, and one that sends slower wastes at most this much CPU per
    /// batch.
    static var lingerNanoseconds: UInt64 { 3_000 }

    /// Waits, spinning, until something arrives or `lingerNanoseconds` pass.
    ///
    /// - Returns: Whether the drain may linger again: `true` when something
    ///   arrived, `false` when the wait ran out (the drain then goes idle).
    private func linger() -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + Self.lingerNanoseconds
        while true {
            for _ in 0..<64 {
                if workArrived.load(ordering: .relaxed) {
                    return true
                }
            }
            if DispatchTime.now().uptimeNanoseconds >= deadline {
                return false
            }
        }
    }

    override func dispose() {
        super.dispose()
        lock.withLock {
            machine.pointee.dispose()
            queued.removeAll()
            workArrived.store(true, ordering: .relaxed)
        }
    }
}
