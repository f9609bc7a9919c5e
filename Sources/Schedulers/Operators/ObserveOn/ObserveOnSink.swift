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
/// Upstream pushes each element into a lock-free single-producer/
/// single-consumer queue (`SPSCQueue`: Rx's grammar makes upstream one
/// producer at a time) and counts it in the state machine; the event that
/// finds no drain running or scheduled schedules one, later ones only queue.
/// The drain delivers everything queued, pass after pass, until the state
/// machine says nothing arrived meanwhile. So there is one scheduled action
/// per batch, not per element, and at most one drain (one consumer) exists
/// at a time: deliveries never overlap (guarantee 2) and keep upstream order
/// (guarantee 3). The disposed flag is checked before every delivery, so
/// after `dispose()` returns no further event is delivered by a drain that
/// starts or continues after it (guarantee 3 on a serial scheduler).
///
/// Disposal: whoever holds the consumer role destroys what is queued: the
/// disposer itself when no drain was running or scheduled, else that drain
/// on its next pass (a drain scheduled before disposal still runs, delivers
/// nothing and releases the sink); an element that upstream pushed while
/// disposal happened is destroyed by upstream itself when its count takes
/// the role, else by the holder. Once disposed, upstream queues nothing.
///
/// Cost per element: upstream reads the state flags, copies the element
/// into a slot, publishes the queue's write index (a plain store) and does
/// one fetch-and-add on the state machine's counter; no lock. The drain
/// checks the disposed flag, reads the element where it lies and calls the
/// observer. Elements travel unwrapped (see `ElementObserver`): only the
/// terminal event is an `Event`. Per pass: one subtraction on the counter
/// and one publication of the read index per 256 elements.
///
/// Layout: the state machine is written by upstream per element; it sits
/// between paddings so that those writes do not take the cache line the
/// drain reads per element (the disposed flag, the observer).
class ObserveOnSink<Observer: ObserverType>: Sink<Observer>, ElementObserver, @unchecked Sendable {
    typealias Element = Observer.Element

    private let queue = SPSCQueue<Element>()
    /// The accepted terminal event: stored by upstream before it publishes
    /// it through the state machine, read by the drain after.
    private var terminal: ObserveOnTerminalEvent?
    private let beforeMachine = CacheLinePadding()
    private let machine = ObserveOnStateMachine()
    private let afterMachine = CacheLinePadding()
    /// How many times a drain that finds the queue empty polls for more
    /// before it gives the consumer role up (0: it gives it up at once).
    /// See `ObserveOnSerialSink`.
    private let pollsBeforeIdle: Int

    /// A drain polls before going idle only once it has delivered this many
    /// elements: a stream that is flowing, not a subscription that delivers
    /// a few elements now and then (whose sink, and serial queue, the poll
    /// would keep busy for nothing).
    static var elementsBeforePolling: Int { 64 }

    /// - Parameter pollsBeforeIdle: How many times a drain that found the
    ///   queue empty polls for a new event before it stops; only for a drain
    ///   that never runs on upstream's thread and owns the thread it runs on.
    init(observer: Observer, cancel: Cancelable, pollsBeforeIdle: Int) {
        self.pollsBeforeIdle = pollsBeforeIdle
        super.init(observer: observer, cancel: cancel)
    }

    final func makeNextHandler() -> NextHandler<Element> {
        NextHandler { self.onNextElement($0) }
    }

    /// Receives an upstream element.
    final func onNextElement(_ element: Element) {
        guard machine.acceptsElements else {
            return
        }
        queue.push(element)
        let action = machine.eventQueued()
        if action != .none {
            perform(action)
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
        guard machine.terminalWillArrive() else {
            return
        }
        self.terminal = terminal
        perform(machine.terminalQueued())
    }

    /// Schedules one call of `drain()` on the scheduler. Overridden.
    func scheduleDrain() {
        preconditionFailure("ObserveOnSink.scheduleDrain() is abstract")
    }

    @inline(never)
    private func perform(_ action: ObserveOnStateMachine.SignalAction) {
        switch action {
        case .none:
            break
        case .scheduleDrain:
            scheduleDrain()
        case .discardQueued:
            runPasses()
        }
    }

    /// Delivers every queued event, including those queued meanwhile: the
    /// body of a scheduled drain, which holds the consumer role.
    final func drain() {
        runPasses()
    }

    /// Passes over the queue until the state machine gives the consumer
    /// role up: delivering, or discarding once disposed.
    private func runPasses() {
        var handled = 1
        var delivered = 0
        while true {
            switch machine.passWillStart() {
            case .discard:
                queue.removeAvailable()
            case .deliver(let terminalQueued):
                let deliveredAll = deliverQueued(counting: &delivered)
                if terminalQueued && deliveredAll && !isDisposed {
                    deliverTerminal()
                } else if pollsBeforeIdle > 0 && delivered >= Self.elementsBeforePolling
                    && !terminalQueued && !isDisposed {
                    pollBeforeIdle(handled: handled)
                }
            }
            switch machine.passDidEnd(handled: handled) {
            case .stop:
                return
            case .again(let next):
                handled = next
            }
        }
    }

    /// Delivers every element published so far, checking the disposed flag
    /// before each. The loop over a run of slots is written here rather than
    /// passed to the queue as closures: the observer's handler is then called
    /// directly, and the flag read inline, per element.
    ///
    /// - Returns: `false` if disposal stopped it.
    private func deliverQueued(counting delivered: inout Int) -> Bool {
        let available = queue.published
        while true {
            let (first, count) = queue.nextRun(upTo: available)
            if count == 0 {
                return true
            }
            var index = 0
            while index != count {
                if isDisposed {
                    break
                }
                forwardNextUnchecked(first[index])
                index &+= 1
            }
            queue.finishRun(first, delivered: index)
            delivered &+= index
            if index != count {
                return false
            }
        }
    }

    /// Waits up to `pollsBeforeIdle` polls of the state machine for an
    /// event beyond the `handled` this drain accounts for, yielding the
    /// thread every 64 polls: one arriving in that window is delivered by
    /// this drain, with no drain scheduled for it.
    @inline(never)
    private func pollBeforeIdle(handled: Int) {
        var polls = pollsBeforeIdle
        while machine.pendingCount == handled {
            SyncPoint.spinWait()
            polls &-= 1
            if polls == 0 {
                return
            }
            if polls & 63 == 0 {
                // Let a producer that shares this core run.
                sched_yield()
            }
        }
    }

    /// Delivers the terminal event, then disposes: the next pass discards.
    private func deliverTerminal() {
        switch terminal {
        case .error(let error):
            observer.on(.error(error))
        case .completed:
            observer.on(.completed)
        case nil:
            preconditionFailure("observe(on:) terminal event published but not stored")
        }
        dispose()
    }

    override func dispose() {
        super.dispose()
        if machine.dispose() == .discardQueued {
            runPasses()
        }
    }
}
