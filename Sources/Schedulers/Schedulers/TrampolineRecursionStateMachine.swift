/// The trampoline-side life of one `TrampolineRecursion`: whether its next
/// step is queued, whether a step is running, who holds the queue's
/// reference to the recursion object, and how many extra steps (a second
/// `recurse` within one step) are queued.
///
/// Only the trampoline's thread uses it: no lock. Every transition returns
/// what the caller must do; a transition that the recursion's code never
/// makes (a bug, not a user error: `recurse` cannot be called outside a
/// step) stops the program with a message. Disposal is not here: it is the
/// recursion's atomic phase, which the caller checks before a step and
/// before `recurse`.
@usableFromInline
struct TrampolineRecursionStateMachine: Equatable {
    @usableFromInline
    enum State: Equatable {
        /// No step runs. `nextQueued`: the next step is pending (queued, or
        /// about to run at once for the first step); else only extra steps are.
        case waiting(nextQueued: Bool)
        /// `runSteps` is running the recursion's steps, one after another.
        /// `inStep`: a step's action is running. `nextQueued`: it has
        /// called `recurse`, so the next step is queued. `holdsReference`: the
        /// running steps hold a reference to the object that is theirs to
        /// give (to the queue on `recurse`, or released when they stop).
        case running(inStep: Bool, nextQueued: Bool, holdsReference: Bool)
        /// An extra step is running (or being skipped), outside `runSteps`.
        case inExtraStep(nextQueued: Bool)
        /// Nothing is queued or running: the recursion is over.
        case ended
    }

    /// What the caller of `recurse()` does.
    @usableFromInline
    enum RecurseAction: Equatable {
        /// Store the state as the next step's and queue the object, handing
        /// the queue the reference the running steps held.
        case enqueueHandingOverReference
        /// Store the state as the next step's and queue the object with a new reference.
        case enqueueRetaining
        /// The next step is already queued: queue an extra step for this state.
        case enqueueExtraStep
    }

    /// What `runSteps` does once a step has returned.
    @usableFromInline
    enum StepEndAction: Equatable {
        /// The next step is the oldest entry of the queue: take it out (its
        /// reference is now the running steps') and run it in place.
        case runNextInPlace
        /// Stop running steps.
        case stop
    }

    /// What `runSteps` does once it stops.
    @usableFromInline
    struct RunEndAction: Equatable {
        /// Release the reference the running steps held.
        @usableFromInline
        var releaseReference: Bool
        /// The recursion is over: release its action and pending state.
        @usableFromInline
        var end: Bool

        @inlinable
        init(releaseReference: Bool, end: Bool) {
            self.releaseReference = releaseReference
            self.end = end
        }
    }

    // Changed only by the transitions below (internal, not private, so
    // that the inlinable transitions can set them).
    @usableFromInline
    var state: State
    /// Extra steps queued and not yet run.
    @usableFromInline
    var extraSteps: Int

    /// A new recursion: its first step is pending.
    @inlinable
    init() {
        state = .waiting(nextQueued: true)
        extraSteps = 0
    }

    /// Whether a step (of `runSteps`, or an extra one) is running.
    @inlinable
    var isInStep: Bool {
        switch state {
        case .running(let inStep, _, _):
            return inStep
        case .inExtraStep:
            return true
        case .waiting, .ended:
            return false
        }
    }

    /// `runSteps` starts, for the pending next step; `holdingReference`: the
    /// caller hands it a reference to the object (the queue's).
    @inlinable
    mutating func runWillStart(holdingReference: Bool) {
        guard case .waiting(nextQueued: true) = state else {
            preconditionFailure("TrampolineRecursion: runSteps without a pending step (\(state))")
        }
        state = .running(inStep: false, nextQueued: false, holdsReference: holdingReference)
    }

    /// A step's action is about to run.
    @inlinable
    mutating func stepWillStart() {
        guard case .running(inStep: false, let nextQueued, let holdsReference) = state, !nextQueued else {
            preconditionFailure("TrampolineRecursion: a step started outside runSteps or inside another (\(state))")
        }
        state = .running(inStep: true, nextQueued: false, holdsReference: holdsReference)
    }

    /// The running step (or extra step) called `recurse`.
    @inlinable
    mutating func recurse() -> RecurseAction {
        switch state {
        case .running(inStep: true, nextQueued: false, let holdsReference):
            state = .running(inStep: true, nextQueued: true, holdsReference: false)
            return holdsReference ? .enqueueHandingOverReference : .enqueueRetaining
        case .running(inStep: true, nextQueued: true, _), .inExtraStep(nextQueued: true):
            extraSteps += 1
            return .enqueueExtraStep
        case .inExtraStep(nextQueued: false):
            state = .inExtraStep(nextQueued: true)
            return .enqueueRetaining
        case .running(inStep: false, _, _), .waiting, .ended:
            preconditionFailure("TrampolineRecursion: recurse outside a step (\(state))")
        }
    }

    /// The step's action returned. `nextIsFirstInQueue`: the object's entry
    /// is the oldest in the trampoline's queue.
    @inlinable
    mutating func stepDidEnd(nextIsFirstInQueue: Bool) -> StepEndAction {
        guard case .running(inStep: true, let nextQueued, let holdsReference) = state else {
            preconditionFailure("TrampolineRecursion: a step ended that had not started (\(state))")
        }
        if nextQueued && nextIsFirstInQueue {
            state = .running(inStep: false, nextQueued: false, holdsReference: true)
            return .runNextInPlace
        }
        state = .running(inStep: false, nextQueued: nextQueued, holdsReference: holdsReference)
        return .stop
    }

    /// `runSteps` stops (after a step, or without one: disposed, or nothing pending).
    @inlinable
    mutating func runDidEnd() -> RunEndAction {
        guard case .running(inStep: false, let nextQueued, let holdsReference) = state else {
            preconditionFailure("TrampolineRecursion: runSteps ended inside a step or outside runSteps (\(state))")
        }
        let end = settle(nextQueued: nextQueued)
        return RunEndAction(releaseReference: holdsReference, end: end)
    }

    /// An extra step comes up in the queue (it runs, or is skipped if disposed).
    @inlinable
    mutating func extraStepWillRun() {
        guard extraSteps > 0, case .waiting(let nextQueued) = state else {
            preconditionFailure("TrampolineRecursion: an extra step ran that was not queued (\(state))")
        }
        extraSteps -= 1
        state = .inExtraStep(nextQueued: nextQueued)
    }

    /// The extra step returned; `true` when the recursion is over.
    @inlinable
    mutating func extraStepDidEnd() -> Bool {
        guard case .inExtraStep(let nextQueued) = state else {
            preconditionFailure("TrampolineRecursion: an extra step ended that had not started (\(state))")
        }
        return settle(nextQueued: nextQueued)
    }

    /// Waiting again, or over when nothing is queued.
    @inlinable
    mutating func settle(nextQueued: Bool) -> Bool {
        if nextQueued || extraSteps > 0 {
            state = .waiting(nextQueued: nextQueued)
            return false
        }
        state = .ended
        return true
    }
}
