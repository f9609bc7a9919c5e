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
///   recursion is disposed on T outside a step, when no step is left to run,
///   or, after a disposal from another thread, as soon as the step running on
///   T returns or the queued step comes up and is skipped (guarantee 8:
///   nothing outlives the recursion).
///
/// Order: each `recurse` is a step queued behind everything queued before
/// it, as a `schedule` would be. When nothing at all is queued as a step
/// calls `recurse` (the usual chain), nothing can come before that next
/// step, so it runs as soon as the step returns, in the same loop, without
/// passing through the queue; work queued after the `recurse` call waits
/// behind it, as it would in the queue. Otherwise this object goes into the
/// queue with the next state; a second pending step (fan-out) queues a small
/// extra entry.
@usableFromInline
final class TrampolineRecursion<State>: TrampolineWork, Cancelable, @unchecked Sendable {
    // @unchecked: only T touches the stored `var`s; other threads touch
    // `phase` alone (see above).
    @usableFromInline
    typealias Action = (State, (State) -> Void) -> Void

    @usableFromInline
    enum Phase: Int {
        case live, finished, disposed
    }

    @usableFromInline
    let phase = SyncAtomic<Int>(Phase.live.rawValue)
    @usableFromInline
    let trampoline: Trampoline
    // T's own flags, kept in `Atomic`s used with relaxed ordering: plain
    // loads and stores, and, being `let`s, free of the run-time exclusivity
    // check each access to a class's stored `var` costs.
    /// Whether a step runs now.
    @usableFromInline
    let inStep = Atomic<Bool>(false)
    /// Whether this object is queued, with its step's state in `queuedState`.
    @usableFromInline
    let isQueued = Atomic<Bool>(false)
    /// Extra steps queued (fan-out) and not yet run.
    @usableFromInline
    let extraSteps = Atomic<Int>(0)
    @usableFromInline
    var action: Action?
    @usableFromInline
    var queuedState: State?

    @inlinable
    init(action: @escaping Action, trampoline: Trampoline) {
        self.action = action
        self.trampoline = trampoline
        super.init { work, _ in
            let recursion = TrampolineWork.entry(work, as: TrampolineRecursion.self)
            recursion.runQueuedStep()
            return false
        }
    }

    /// Runs the first step at once when no trampoline runs on this thread
    /// (then drains the queue), else queues it.
    @inlinable
    static func start(_ state: State, action: @escaping Action) -> TrampolineRecursion<State> {
        withCurrentTrampoline { trampoline in
            let recursion = TrampolineRecursion(action: action, trampoline: trampoline)
            if trampoline.isRunning {
                recursion.enqueue(state)
            } else {
                _ = trampoline.runOutermost {
                    recursion.runSteps(from: state)
                    return Disposables.create()
                }
            }
            return recursion
        }
    }

    @usableFromInline
    var isDisposed: Bool {
        phase.load(ordering: .acquiring) == Phase.disposed.rawValue
    }

    @inlinable
    var isLive: Bool {
        phase.load(ordering: .acquiring) == Phase.live.rawValue
    }

    /// Queues this object for the step with `state`.
    @inlinable
    func enqueue(_ state: State) {
        queuedState = state
        isQueued.store(true, ordering: .relaxed)
        trampoline.enqueue(self)
    }

    /// The step this object was queued for has come up.
    @inlinable
    func runQueuedStep() {
        isQueued.store(false, ordering: .relaxed)
        guard let state = queuedState.take() else {
            // Released by a disposal on T.
            endIfIdle()
            return
        }
        runSteps(from: state)
    }

    /// An extra step (`TrampolineRecursionStep`) has come up.
    @inlinable
    func runExtraStep(_ state: State) {
        extraSteps.store(extraSteps.load(ordering: .relaxed) - 1, ordering: .relaxed)
        runSteps(from: state)
    }

    /// Runs the step with `first`, then each next step that `recurse` let
    /// run in place, while the recursion is live; then ends it if no step is
    /// left anywhere.
    @inlinable
    func runSteps(from first: State) {
        if let action {
            var state = first
            while isLive {
                // Set by `recurse` when the next step may run right here.
                var next: State?
                inStep.store(true, ordering: .relaxed)
                action(state) { recursed in self.recurse(recursed, next: &next) }
                inStep.store(false, ordering: .relaxed)
                guard let following = next.take() else { break }
                state = following
            }
        }
        endIfIdle()
    }

    /// A step's `recurse`: the next step runs in place when nothing is queued
    /// on the trampoline and no step of this recursion is pending; else it is
    /// queued.
    @inlinable
    func recurse(_ state: State, next: inout State?) {
        guard phase.load(ordering: .relaxed) == Phase.live.rawValue else { return }
        if case .none = next, !isQueued.load(ordering: .relaxed), trampoline.isEmpty {
            next = state
        } else if !isQueued.load(ordering: .relaxed) {
            enqueue(state)
        } else {
            extraSteps.store(extraSteps.load(ordering: .relaxed) + 1, ordering: .relaxed)
            trampoline.enqueue(TrampolineRecursionStep(recursion: self, state: state))
        }
    }

    /// Releases the action once no step of this recursion is queued.
    @inlinable
    func endIfIdle() {
        if !isQueued.load(ordering: .relaxed), extraSteps.load(ordering: .relaxed) == 0 {
            finish()
        }
    }

    /// No step is queued or running any more: the recursion is over (or
    /// disposed); release what it holds.
    @usableFromInline
    func finish() {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .recursionKeepsState {
            // The mutant: releases only on a normal finish, not after a dispose().
            if phase.compareExchange(
                expected: Phase.live.rawValue, desired: Phase.finished.rawValue, ordering: .acquiringAndReleasing
            ).exchanged {
                release()
            }
            return
        }
        #endif
        _ = phase.compareExchange(
            expected: Phase.live.rawValue, desired: Phase.finished.rawValue, ordering: .acquiringAndReleasing)
        release()
    }

    @usableFromInline
    func release() {
        let released = (action, queuedState)
        action = nil
        queuedState = nil
        _ = released
    }

    /// Cancels the queued steps; a step already running finishes.
    @usableFromInline
    func dispose() {
        guard
            phase.compareExchange(
                expected: Phase.live.rawValue, desired: Phase.disposed.rawValue, ordering: .acquiringAndReleasing
            ).exchanged
        else { return }
        // On T outside a step, nothing uses the action now: release it at
        // once. Otherwise T releases it when its current step returns or
        // the queued step comes up.
        if Trampoline.existing === trampoline, !inStep.load(ordering: .relaxed) {
            release()
        }
    }
}

/// A second pending step of a `TrampolineRecursion` (fan-out).
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
            let step = TrampolineWork.entry(work, as: TrampolineRecursionStep.self)
            step.recursion.runExtraStep(step.state)
            return false
        }
    }
}
