import Synchronization

/// `scheduleRecursive` on `CurrentThreadScheduler`: one object per recursion,
/// which is at once the returned disposable and the trampoline entry of its
/// next step, so a step allocates nothing and takes no lock.
///
/// Everything but `dispose()` happens on the thread whose trampoline runs the
/// recursion (call it T): `recurse` can only be called from inside a step,
/// and steps run on T. So the state and the action are T's alone, and one
/// atomic word, `phase`, is all another thread touches:
///
/// - A step starts only while `phase` is `live`, checked just before the
///   action is called: a step disposed before it starts never runs, one
///   disposed while running finishes and its `recurse` calls are then
///   ignored (guarantee 5 in Guarantees.md).
/// - The action and the pending state are released by T: at once when the
///   recursion is disposed on T outside a step, when a step ends without
///   recursing, or, after a disposal from another thread, when the queued
///   step comes up and is skipped, right after the step running on T returns
///   (guarantee 8: nothing outlives the recursion).
///
/// A step that calls `recurse` once (the usual chain) re-queues this object;
/// a second `recurse` in the same step queues a small extra entry, so the
/// trampoline's FIFO order holds for fan-out too.
///
/// A chain step costs no reference counting on this object or its action:
/// the queue's reference to the object is handed to the running step and,
/// when the step recurses, straight back to the queue (`holdsReference`); and
/// when the object's entry is the next in the queue once a step returns, the
/// next step runs in the same loop, with the action already at hand, rather
/// than through `drain()`. That runs exactly what `drain()` would run next,
/// so the order is the same.
@usableFromInline
final class TrampolineRecursion<State>: TrampolineWork, Cancelable, @unchecked Sendable {
    @usableFromInline
    typealias Action = (State, (State) -> Void) -> Void

    @usableFromInline
    enum Phase: Int {
        case live, finished, disposed
    }

    @usableFromInline
    let phase = Atomic<Int>(Phase.live.rawValue)
    @usableFromInline
    let trampoline: Trampoline
    // Only the trampoline's thread touches the fields below.
    @exclusivity(unchecked)
    @usableFromInline
    var action: Action?
    /// The state of the step this object is queued for.
    @exclusivity(unchecked)
    @usableFromInline
    var pendingState: State?
    /// Whether this object is in the trampoline's queue.
    @exclusivity(unchecked)
    @usableFromInline
    var isQueued = false
    /// Whether the running steps hold a reference to this object that is
    /// theirs to give: `recurse` hands it to the queue instead of taking a
    /// new one, and whatever is still held when they end is released.
    @exclusivity(unchecked)
    @usableFromInline
    var holdsReference = false
    /// Extra steps queued by a second `recurse` in one step, not yet run.
    @exclusivity(unchecked)
    @usableFromInline
    var queuedExtraSteps = 0
    @exclusivity(unchecked)
    @usableFromInline
    var isInStep = false

    @inlinable
    init(state: State, action: @escaping Action, trampoline: Trampoline) {
        self.pendingState = state
        self.action = action
        self.trampoline = trampoline
        super.init { work in
            let mustRelease = work._withUnsafeGuaranteedRef {
                unsafeDowncast($0, to: TrampolineRecursion<State>.self).runSteps(holdingReference: true)
            }
            // Released here, not inside `runSteps`, which must not end its
            // own object's life while it still runs on it.
            if mustRelease {
                work.release()
            }
            return nil
        }
    }

    /// Runs the first step at once when no trampoline runs on this thread
    /// (then drains the queue), else queues it.
    @inlinable
    static func start(_ state: State, action: @escaping Action) -> TrampolineRecursion<State> {
        let trampoline = Trampoline.current
        let recursion = TrampolineRecursion(state: state, action: action, trampoline: trampoline)
        if trampoline.isRunning {
            recursion.isQueued = true
            trampoline.enqueue(recursion)
        } else {
            trampoline.isRunning = true
            defer { trampoline.isRunning = false }
            if recursion.runSteps(holdingReference: false) {
                Unmanaged.passUnretained(recursion).release()
            }
            trampoline.drain()
        }
        return recursion
    }

    @usableFromInline
    var isDisposed: Bool {
        phase.load(ordering: .acquiring) == Phase.disposed.rawValue
    }

    /// Runs the step this object is queued for (or started with), then each
    /// next step for as long as this object's entry is the next in the queue.
    ///
    /// - Parameter holdingReference: Whether the caller hands in a reference
    ///   to this object (the queue's, for a queued step).
    /// - Returns: Whether the caller must release a reference to this object
    ///   once this returns.
    @inlinable
    func runSteps(holdingReference: Bool) -> Bool {
        holdsReference = holdingReference
        isQueued = false
        // One copy of the action for the whole loop, not one per step.
        if let action {
            // Unmanaged, not `unowned(unsafe)`: calling through the latter
            // retains and releases this object on every `recurse`.
            let recursion = Unmanaged.passUnretained(self)
            while let state = pendingState.take() {
                guard phase.load(ordering: .acquiring) == Phase.live.rawValue else { break }
                isInStep = true
                action(state) { next in recursion._withUnsafeGuaranteedRef { $0.recurse(next) } }
                isInStep = false
                guard isQueued, trampoline.isFirst(self) else { break }
                // The entry's reference is the one `recurse` handed over (or
                // took): it is held again.
                _ = trampoline.popFirst()
                holdsReference = true
                isQueued = false
            }
        }
        endIfIdle()
        let mustRelease = holdsReference
        holdsReference = false
        return mustRelease
    }

    /// A step queued by a second `recurse` within one step.
    @inlinable
    func runExtraStep(_ state: State) {
        queuedExtraSteps -= 1
        if phase.load(ordering: .acquiring) == Phase.live.rawValue, let action {
            isInStep = true
            action(state) { [unowned(unsafe) self] in self.recurse($0) }
            isInStep = false
        }
        endIfIdle()
    }

    @inlinable
    func recurse(_ state: State) {
        guard phase.load(ordering: .relaxed) == Phase.live.rawValue else { return }
        if isQueued {
            queuedExtraSteps += 1
            trampoline.enqueue(TrampolineRecursionStep(recursion: self, state: state))
        } else {
            // Not queued, so no state is pending (a step takes the state it
            // was queued for before it runs, and `release()` clears both):
            // initialise rather than assign, which would release the old
            // value, always nil here, at every step.
            withUnsafeMutablePointer(to: &pendingState) { $0.initialize(to: state) }
            isQueued = true
            if holdsReference {
                holdsReference = false
                trampoline.enqueue(retained: Unmanaged.passUnretained(self))
            } else {
                trampoline.enqueue(self)
            }
        }
    }

    /// No step is queued or running any more: the recursion is over (or
    /// disposed); release what it holds.
    @inlinable
    func endIfIdle() {
        guard !isQueued, queuedExtraSteps == 0 else { return }
        _ = phase.compareExchange(
            expected: Phase.live.rawValue, desired: Phase.finished.rawValue, ordering: .acquiringAndReleasing)
        release()
    }

    @inlinable
    func release() {
        let released = (action, pendingState)
        action = nil
        pendingState = nil
        _ = released
    }

    /// Cancels the queued steps; a step already running finishes.
    @usableFromInline
    func dispose() {
        guard phase.compareExchange(
            expected: Phase.live.rawValue, desired: Phase.disposed.rawValue, ordering: .acquiringAndReleasing
        ).exchanged else { return }
        // On T outside a step, nothing uses the action now: release it at
        // once. Otherwise T releases it as soon as its current step returns.
        if Trampoline.existing === trampoline, !isInStep {
            release()
        }
    }
}

/// A second (third, ...) `recurse` within one step of a `TrampolineRecursion`.
@usableFromInline
final class TrampolineRecursionStep<State>: TrampolineWork {
    @usableFromInline
    let recursion: TrampolineRecursion<State>
    @usableFromInline
    let state: State

    @inlinable
    init(recursion: TrampolineRecursion<State>, state: State) {
        self.recursion = recursion
        self.state = state
        super.init { work in
            let step = unsafeDowncast(work.takeRetainedValue(), to: TrampolineRecursionStep<State>.self)
            step.recursion.runExtraStep(step.state)
            return nil
        }
    }
}
