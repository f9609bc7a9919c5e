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
    /// The state as a whole, as `state` reports it (tests, messages).
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

    /// Where the recursion is, without the flags that go with it.
    // Stored apart from the flags (one byte each) rather than as `State`,
    // whose payloads cost some 17 instructions per chain step to pack and
    // match: callgrind, trampoline.recursion/current-thread.recursive,
    // 78 instructions per level with `State` stored, 61 with this layout
    // (51 with the loose flags this machine replaced).
    @usableFromInline
    enum Phase: UInt8 {
        case waiting, running, inStep, inExtraStep, ended
    }

    // Changed only by the transitions below (internal, not private, so that
    // the inlinable transitions can set them).
    @usableFromInline
    var phase: Phase
    @usableFromInline
    var nextQueued: Bool
    @usableFromInline
    var holdsReference: Bool
    /// Extra steps queued and not yet run.
    @usableFromInline
    var extraSteps: Int

    /// A new recursion: its first step is pending.
    @inlinable
    init() {
        phase = .waiting
        nextQueued = true
        holdsReference = false
        extraSteps = 0
    }

    /// The state, with its flags.
    @usableFromInline
    var state: State {
        switch phase {
        case .waiting:
            return .waiting(nextQueued: nextQueued)
        case .running, .inStep:
            return .running(inStep: phase == .inStep, nextQueued: nextQueued, holdsReference: holdsReference)
        case .inExtraStep:
            return .inExtraStep(nextQueued: nextQueued)
        case .ended:
            return .ended
        }
    }

    /// Whether a step (of `runSteps`, or an extra one) is running.
    @inlinable
    var isInStep: Bool {
        phase == .inStep || phase == .inExtraStep
    }

    /// `runSteps` starts, for the pending next step; `holdingReference`: the
    /// caller hands it a reference to the object (the queue's).
    @inlinable
    mutating func runWillStart(holdingReference: Bool) {
        guard phase == .waiting, nextQueued else {
            invalid("runSteps without a pending step")
        }
        phase = .running
        nextQueued = false
        holdsReference = holdingReference
    }

    /// A step's action is about to run.
    @inlinable
    mutating func stepWillStart() {
        guard phase == .running, !nextQueued else {
            invalid("a step started outside runSteps or inside another")
        }
        phase = .inStep
    }

    /// The running step (or extra step) called `recurse`.
    @inlinable
    mutating func recurse() -> RecurseAction {
        guard phase == .inStep || phase == .inExtraStep else {
            invalid("recurse outside a step")
        }
        if nextQueued {
            extraSteps += 1
            return .enqueueExtraStep
        }
        nextQueued = true
        // Outside `runSteps` (an extra step) no reference is held.
        let handOver = holdsReference
        holdsReference = false
        return handOver ? .enqueueHandingOverReference : .enqueueRetaining
    }

    /// The step's action returned. `nextIsFirstInQueue`: the object's entry
    /// is the oldest in the trampoline's queue.
    @inlinable
    mutating func stepDidEnd(nextIsFirstInQueue: Bool) -> StepEndAction {
        guard phase == .inStep else {
            invalid("a step ended that had not started")
        }
        phase = .running
        if nextQueued && nextIsFirstInQueue {
            nextQueued = false
            holdsReference = true
            return .runNextInPlace
        }
        return .stop
    }

    /// `runSteps` stops (after a step, or without one: disposed, or nothing pending).
    @inlinable
    mutating func runDidEnd() -> RunEndAction {
        guard phase == .running else {
            invalid("runSteps ended inside a step or outside runSteps")
        }
        let releaseReference = holdsReference
        holdsReference = false
        return RunEndAction(releaseReference: releaseReference, end: settle())
    }

    /// An extra step comes up in the queue (it runs, or is skipped if disposed).
    @inlinable
    mutating func extraStepWillRun() {
        guard extraSteps > 0, phase == .waiting else {
            invalid("an extra step ran that was not queued")
        }
        extraSteps -= 1
        phase = .inExtraStep
    }

    /// The extra step returned; `true` when the recursion is over.
    @inlinable
    mutating func extraStepDidEnd() -> Bool {
        guard phase == .inExtraStep else {
            invalid("an extra step ended that had not started")
        }
        return settle()
    }

    /// Stops the program: a transition the recursion's code never makes.
    /// Out of line, so that the transitions inlined on the hot path stay small.
    @inline(never)
    @usableFromInline
    func invalid(_ transition: String) -> Never {
        preconditionFailure("TrampolineRecursion: \(transition) (\(state))")
    }

    /// Waiting again, or over when nothing is queued.
    @inlinable
    mutating func settle() -> Bool {
        if nextQueued || extraSteps > 0 {
            phase = .waiting
            return false
        }
        phase = .ended
        return true
    }
}
