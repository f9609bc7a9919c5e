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
///   ignored (DESIGN.md guarantee 5).
/// - The action and the pending state are released by T: at once when the
///   recursion is disposed on T outside a step, when a step ends without
///   recursing, or, after a disposal from another thread, when the queued
///   step comes up and is skipped, right after the step running on T returns
///   (guarantee 8: nothing outlives the recursion).
///
/// A step that calls `recurse` once (the usual chain) re-queues this object;
/// a second `recurse` in the same step queues a small extra entry, so the
/// trampoline's FIFO order holds for fan-out too.
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
        super.init { work, _ in
            unsafeDowncast(work, to: TrampolineRecursion<State>.self).runQueuedStep()
            return false
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
            recursion.runQueuedStep()
            trampoline.drain()
        }
        return recursion
    }

    @usableFromInline
    var isDisposed: Bool {
        phase.load(ordering: .acquiring) == Phase.disposed.rawValue
    }

    /// The queued step: this object's own trampoline entry.
    @inlinable
    func runQueuedStep() {
        isQueued = false
        let state = pendingState.take()
        if let state {
            step(state)
        }
        endIfIdle()
    }

    /// A step queued by a second `recurse` within one step.
    @inlinable
    func runExtraStep(_ state: State) {
        queuedExtraSteps -= 1
        step(state)
        endIfIdle()
    }

    @inlinable
    func step(_ state: State) {
        guard phase.load(ordering: .acquiring) == Phase.live.rawValue, let action else { return }
        isInStep = true
        action(state) { self.recurse($0) }
        isInStep = false
    }

    @inlinable
    func recurse(_ state: State) {
        guard phase.load(ordering: .relaxed) == Phase.live.rawValue else { return }
        if isQueued {
            queuedExtraSteps += 1
            trampoline.enqueue(TrampolineRecursionStep(recursion: self, state: state))
        } else {
            pendingState = state
            isQueued = true
            trampoline.enqueue(self)
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
        super.init { work, _ in
            let step = unsafeDowncast(work, to: TrampolineRecursionStep<State>.self)
            step.recursion.runExtraStep(step.state)
            return false
        }
    }
}
