/// The state shared by the producer side (upstream events) and the drain
/// side (delivery on the scheduler) of an `observe(on:)` sink.
///
/// Guarded by the sink's lock; every transition returns what the caller must
/// do next, and the caller does it outside the lock.
///
/// The state and action types live outside the generic struct on purpose:
/// nested in it they would be generic types too, and unspecialised code would
/// look their metadata up at run time on every element.
struct ObserveOnStateMachine<Element> {
    private typealias State = ObserveOnState
    typealias EnqueueAction = ObserveOnEnqueueAction

    private var state = State.idle
    /// Set once a terminal event has been queued: later events are dropped (guarantee 1).
    private var upstreamTerminated = false
    private var pending: RingBuffer<Event<Element>>

    init(queue: RingBuffer<Event<Element>>) {
        pending = queue
    }

    /// Queues an upstream event.
    @inline(__always)
    mutating func enqueue(_ event: Event<Element>) -> EnqueueAction {
        switch state {
        case .disposed:
            return .none
        case .idle, .drainScheduled:
            if upstreamTerminated {
                return .none
            }
            if event.isStopEvent {
                upstreamTerminated = true
            }
            pending.append(event)
            if case .idle = state {
                state = .drainScheduled
                return .scheduleDrain
            }
            return .none
        }
    }

    /// Called by the drain: hands it the queued events by exchanging the queue
    /// with `batch`, which must be empty.
    ///
    /// - Returns: `true` when `batch` now holds events to deliver; `false`
    ///   when there is nothing left, and the machine is idle (or disposed):
    ///   the drain must stop.
    mutating func takeBatch(into batch: inout RingBuffer<Event<Element>>) -> Bool {
        switch state {
        case .disposed:
            return false
        case .idle:
            preconditionFailure("observe(on:) drain ran without being scheduled")
        case .drainScheduled:
            if pending.isEmpty {
                state = .idle
                return false
            }
            swap(&pending, &batch)
            return true
        }
    }

    /// Stops queuing and drops what is queued.
    mutating func dispose() {
        state = .disposed
        pending.removeAll()
    }
}

/// The states of `ObserveOnStateMachine`.
enum ObserveOnState {
    /// No drain is scheduled or running, and the queue is empty.
    case idle
    /// A drain is scheduled or running; it takes the queue before it stops.
    case drainScheduled
    /// Disposed: nothing is queued, scheduled or delivered any more.
    case disposed
}

/// What `ObserveOnStateMachine.enqueue(_:)` asks of the caller.
enum ObserveOnEnqueueAction {
    /// The queue just went from idle to non-empty: schedule one drain.
    case scheduleDrain
    /// A drain is already on its way, or the event was dropped.
    case none
}
