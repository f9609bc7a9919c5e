import Synchronization

/// Who may consume an `observe(on:)` sink's queue, and when a drain must be
/// scheduled: the lock-free state shared by upstream (the producer), the
/// drain and `dispose()`.
///
/// Two atomic words:
/// - `pending`, a work-in-progress counter: every queued event and every
///   `dispose()` adds one. Whoever raises it from 0 holds the consumer role
///   (the right to take from the queue) until it brings it back to 0; the
///   holder subtracts, after each pass over the queue, what it has accounted
///   for, and passes again while something was added meanwhile. So exactly
///   one party consumes at a time (a scheduled drain, or whoever discards the
///   queue after disposal), no event is left behind when the role is given
///   up (an event added after the holder's last subtraction raises the
///   counter from 0 and takes the role itself), and the hand-off from one
///   holder to the next is ordered (the counter's read-modify-writes acquire
///   and release).
/// - `flags`: upstream has queued its terminal event; the sink is disposed.
///
/// Per upstream element this costs one relaxed load (the flags) and one
/// fetch-and-add; per pass of the drain, one acquire load and one
/// subtraction. Every transition returns what the caller does next.
struct ObserveOnStateMachine: ~Copyable {
    private static var terminatedFlag: Int { 1 }
    private static var disposedFlag: Int { 2 }

    /// Events queued and disposals since the counter was last 0, minus what
    /// the role holder has accounted for.
    private let pending = SyncAtomic<Int>(0)
    private let flags = SyncAtomic<Int>(0)

    /// What the party that added to `pending` does next.
    enum SignalAction: Equatable {
        /// Nothing: someone holds the consumer role and will see the event.
        case none
        /// Schedule one drain, which takes over the consumer role (with one
        /// event accounted for) and must run `drain`'s passes.
        case scheduleDrain
        /// The sink is disposed and the caller now holds the consumer role:
        /// discard the queue (passes of `.discard`, as a drain would).
        case discardQueued
    }

    /// What one pass of the role holder does with the queue.
    enum Pass: Equatable {
        /// Deliver what is queued; if `terminalQueued`, upstream has queued
        /// its terminal event after every element the pass will find, so a
        /// pass that delivers them all then delivers the terminal event.
        case deliver(terminalQueued: Bool)
        /// The sink is disposed: destroy what is queued, deliver nothing.
        case discard
    }

    /// What the role holder does after a pass.
    enum PassOutcome: Equatable {
        /// Pass again, then account for `handled`: events arrived meanwhile.
        case again(handled: Int)
        /// Stop: the role is given up.
        case stop
    }

    init() {}

    // MARK: Producer

    /// Whether upstream's next element is queued at all: not once upstream
    /// has terminated (guarantee 1) or the sink is disposed. A relaxed load,
    /// as disposal from another thread may race with it anyway; an element
    /// that slips past is discarded by the role holder.
    @inline(__always)
    var acceptsElements: Bool {
        flags.load(ordering: .relaxed) == 0
    }

    /// Upstream queued an element (or its terminal event): count it.
    @inline(__always)
    func eventQueued() -> SignalAction {
        if pending.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue != 0 {
            return .none
        }
        return roleTaken()
    }

    /// Whether upstream's terminal event is accepted (queued and delivered
    /// after the elements): only the first, and not after disposal.
    func terminalWillArrive() -> Bool {
        flags.load(ordering: .relaxed) == 0
    }

    /// Upstream stored its accepted terminal event: publish it, count it.
    /// The caller stores the event before calling; the role holder reads it
    /// after a pass that returned `.deliver(terminalQueued: true)`.
    func terminalQueued() -> SignalAction {
        flags.bitwiseOr(Self.terminatedFlag, ordering: .releasing)
        return eventQueued()
    }

    // MARK: Disposal

    /// The sink was disposed: nothing more is delivered or queued. Returns
    /// `.discardQueued` if the caller took the consumer role (no drain held
    /// it), else `.none` (the holder discards on its next pass).
    func dispose() -> SignalAction {
        flags.bitwiseOr(Self.disposedFlag, ordering: .releasing)
        if pending.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue != 0 {
            return .none
        }
        return .discardQueued
    }

    /// Whether `dispose()` has been called.
    var isDisposed: Bool {
        flags.load(ordering: .acquiring) & Self.disposedFlag != 0
    }

    // MARK: Role holder (the drain)

    /// A pass over the queue starts. Role holder only.
    @inline(__always)
    func passWillStart() -> Pass {
        let current = flags.load(ordering: .acquiring)
        if current & Self.disposedFlag != 0 {
            return .discard
        }
        return .deliver(terminalQueued: current & Self.terminatedFlag != 0)
    }

    /// A pass ended; `handled` is what the holder accounts for (1 for a new
    /// holder, then what the previous `.again` said). Role holder only.
    @inline(__always)
    func passDidEnd(handled: Int) -> PassOutcome {
        let left = pending.wrappingSubtract(handled, ordering: .acquiringAndReleasing).newValue
        if left == 0 {
            return .stop
        }
        precondition(left > 0, "observe(on:) drain accounted for more events than were counted")
        return .again(handled: left)
    }

    /// The unaccounted count: equal to what the role holder accounts for
    /// while nothing new has arrived (a drain polls it before going idle).
    var pendingCount: Int {
        pending.load(ordering: .acquiring)
    }

    @inline(never)
    private func roleTaken() -> SignalAction {
        flags.load(ordering: .acquiring) & Self.disposedFlag != 0 ? .discardQueued : .scheduleDrain
    }
}

/// A terminal event of an `observe(on:)` sink: `Event` without the element,
/// so that holding one needs no generic metadata.
enum ObserveOnTerminalEvent {
    case error(Swift.Error)
    case completed
}
