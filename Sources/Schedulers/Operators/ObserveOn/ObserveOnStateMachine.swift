/// The state shared by the producer side (upstream events) and the drain
/// side (delivery on the scheduler) of an `observe(on:)` sink.
///
/// Guarded by the sink's lock; every transition returns what the caller must
/// do next, and the caller does it outside the lock (except appending the
/// element, which belongs under the same lock). The queued elements live in
/// the sink's element buffer, not here: this type is not generic, so
/// unspecialised code never looks its metadata up at run time.
struct ObserveOnStateMachine {
    private enum State {
        /// No drain is scheduled or running, and nothing is queued.
        case idle
        /// A drain is scheduled or running; it takes the queue before it stops.
        case drainScheduled
        /// Disposed: nothing is queued, scheduled or delivered any more.
        case disposed
    }

    /// What the caller of `elementArrived()` does with the element.
    enum ElementAction {
        /// Queue it; a drain is already on its way.
        case enqueue
        /// Queue it and schedule one drain: the sink was idle.
        case enqueueAndScheduleDrain
        /// Drop it: the sink was disposed or upstream already terminated.
        case drop
    }

    /// What the caller of `terminalArrived(_:)` does next.
    enum TerminalAction {
        /// Nothing: a drain is on its way, or the event was dropped.
        case none
        /// Schedule one drain: the sink was idle.
        case scheduleDrain
    }

    /// What a drain does next.
    enum DrainStep {
        /// Take the queued elements (exchange the queue with the batch),
        /// deliver them, then deliver `terminal` if there is one.
        case deliverQueued(terminal: ObserveOnTerminalEvent?)
        /// Stop: nothing is left (the sink is idle again) or it was disposed.
        case stop
    }

    private var state = State.idle
    /// Set once a terminal event has been accepted: later events are dropped (guarantee 1).
    private var upstreamTerminated = false
    /// The accepted terminal event, until a drain takes it.
    private var pendingTerminal: ObserveOnTerminalEvent?

    /// An upstream element arrived.
    @inline(__always)
    mutating func elementArrived() -> ElementAction {
        switch state {
        case .disposed:
            return .drop
        case .drainScheduled:
            return upstreamTerminated ? .drop : .enqueue
        case .idle:
            if upstreamTerminated {
                return .drop
            }
            state = .drainScheduled
            return .enqueueAndScheduleDrain
        }
    }

    /// Upstream sent `.error` or `.completed`.
    mutating func terminalArrived(_ terminal: ObserveOnTerminalEvent) -> TerminalAction {
        switch state {
        case .disposed:
            return .none
        case .idle, .drainScheduled:
            if upstreamTerminated {
                return .none
            }
            upstreamTerminated = true
            pendingTerminal = terminal
            if case .idle = state {
                state = .drainScheduled
                return .scheduleDrain
            }
            return .none
        }
    }

    /// Called by the drain each time its batch is empty.
    ///
    /// - Parameter queuedCount: How many elements are queued now.
    mutating func drainNeedsWork(queuedCount: Int) -> DrainStep {
        switch state {
        case .disposed:
            return .stop
        case .idle:
            preconditionFailure("observe(on:) drain ran without being scheduled")
        case .drainScheduled:
            if queuedCount == 0 && pendingTerminal == nil {
                state = .idle
                return .stop
            }
            let terminal = pendingTerminal
            pendingTerminal = nil
            return .deliverQueued(terminal: terminal)
        }
    }

    /// Stops queuing; the caller drops what is queued, and the terminal
    /// event returned, after releasing the lock (destroying an error runs
    /// user code).
    @discardableResult
    mutating func dispose() -> ObserveOnTerminalEvent? {
        state = .disposed
        let dropped = pendingTerminal
        pendingTerminal = nil
        return dropped
    }
}

/// A terminal event of an `observe(on:)` sink: `Event` without the element,
/// so that holding one needs no generic metadata.
enum ObserveOnTerminalEvent {
    case error(Swift.Error)
    case completed
}
