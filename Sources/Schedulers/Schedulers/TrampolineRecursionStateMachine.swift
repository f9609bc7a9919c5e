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

    // The phase and its two flags in one byte, so that each transition of a
    // chain step is one load, one compare with a whole state and one store,
    // inlined; the rarer cases go out of line (Performance.md,
    // "Measurements behind the code", has the instruction counts).
    @inlinable
    static var waiting: UInt8 { 0 }
    @inlinable
    static var running: UInt8 { 1 }
    @inlinable
    static var inStep: UInt8 { 2 }
    @inlinable
    static var inExtraStep: UInt8 { 3 }
    @inlinable
    static var ended: UInt8 { 4 }
    @inlinable
    static var phaseMask: UInt8 { 0b111 }
    /// Flag: the next step is queued (or pending).
    @inlinable
    static var nextQueued: UInt8 { 0b1000 }
    /// Flag: the running steps hold a reference to the object.
    @inlinable
    static var holdsReference: UInt8 { 0b1_0000 }

    // Changed only by the transitions below (internal, not private, so that
    // the inlinable transitions can set them).
    /// The phase (`phaseMask`) and the flags.
    @usableFromInline
    var bits: UInt8
    /// Extra steps queued and not yet run.
    @usableFromInline
    var extraSteps: Int

    /// A new recursion: its first step is pending.
    @inlinable
    init() {
        bits = Self.waiting | Self.nextQueued
        extraSteps = 0
    }

    @inlinable
    var phase: UInt8 { bits & Self.phaseMask }

    @inlinable
    var nextQueued: Bool { bits & Self.nextQueued != 0 }

    @inlinable
    var holdsReference: Bool { bits & Self.holdsReference != 0 }

    /// The state, with its flags.
    @usableFromInline
    var state: State {
        switch phase {
        case Self.waiting:
            return .waiting(nextQueued: nextQueued)
        case Self.running, Self.inStep:
            return .running(inStep: phase == Self.inStep, nextQueued: nextQueued, holdsReference: holdsReference)
        case Self.inExtraStep:
            return .inExtraStep(nextQueued: nextQueued)
        default:
            return .ended
        }
    }

    /// Whether a step (of `runSteps`, or an extra one) is running.
    @inlinable
    var isInStep: Bool {
        phase == Self.inStep || phase == Self.inExtraStep
    }

    /// `runSteps` starts, for the pending next step; `holdingReference`: the
    /// caller hands it a reference to the object (the queue's).
    @inlinable
    @inline(__always)
    mutating func runWillStart(holdingReference: Bool) {
        guard bits & ~Self.holdsReference == Self.waiting | Self.nextQueued else {
            invalid("runSteps without a pending step")
        }
        bits = Self.running | (holdingReference ? Self.holdsReference : 0)
    }

    /// A step's action is about to run.
    @inlinable
    @inline(__always)
    mutating func stepWillStart() {
        guard bits & ~Self.holdsReference == Self.running else {
            invalid("a step started outside runSteps or inside another")
        }
        // Running to in step, the reference flag kept.
        bits ^= Self.running ^ Self.inStep
    }

    /// The running step (or extra step) called `recurse`.
    @inlinable
    @inline(__always)
    mutating func recurse() -> RecurseAction {
        // A chain step of `runSteps`: the next step is queued with the
        // reference the running steps held.
        if bits == Self.inStep | Self.holdsReference {
            bits = Self.inStep | Self.nextQueued
            return .enqueueHandingOverReference
        }
        return recurseOtherwise()
    }

    /// `recurse` in the cases other than a chain step's.
    @inline(never)
    @usableFromInline
    mutating func recurseOtherwise() -> RecurseAction {
        guard phase == Self.inStep || phase == Self.inExtraStep else {
            invalid("recurse outside a step")
        }
        if nextQueued {
            extraSteps += 1
            return .enqueueExtraStep
        }
        // Outside `runSteps` (an extra step) no reference is held.
        let handOver = holdsReference
        bits = phase | Self.nextQueued
        return handOver ? .enqueueHandingOverReference : .enqueueRetaining
    }

    /// The step's action returned. `nextIsFirstInQueue`: the object's entry
    /// is the oldest in the trampoline's queue.
    @inlinable
    @inline(__always)
    mutating func stepDidEnd(nextIsFirstInQueue: Bool) -> StepEndAction {
        // A chain step whose next step is the oldest entry: run it in place.
        if bits & ~Self.holdsReference == Self.inStep | Self.nextQueued && nextIsFirstInQueue {
            bits = Self.running | Self.holdsReference
            return .runNextInPlace
        }
        return stepDidEndOtherwise()
    }

    /// `stepDidEnd` in the cases other than a chain step's.
    @inline(never)
    @usableFromInline
    mutating func stepDidEndOtherwise() -> StepEndAction {
        guard phase == Self.inStep else {
            invalid("a step ended that had not started")
        }
        bits = (bits & ~Self.phaseMask) | Self.running
        return .stop
    }

    /// `runSteps` stops (after a step, or without one: disposed, or nothing pending).
    @inlinable
    mutating func runDidEnd() -> RunEndAction {
        guard phase == Self.running else {
            invalid("runSteps ended inside a step or outside runSteps")
        }
        let releaseReference = holdsReference
        bits &= ~Self.holdsReference
        return RunEndAction(releaseReference: releaseReference, end: settle())
    }

    /// An extra step comes up in the queue (it runs, or is skipped if disposed).
    @inlinable
    mutating func extraStepWillRun() {
        guard extraSteps > 0, phase == Self.waiting else {
            invalid("an extra step ran that was not queued")
        }
        extraSteps -= 1
        bits = (bits & ~Self.phaseMask) | Self.inExtraStep
    }

    /// The extra step returned; `true` when the recursion is over.
    @inlinable
    mutating func extraStepDidEnd() -> Bool {
        guard phase == Self.inExtraStep else {
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
            bits = (bits & ~Self.phaseMask) | Self.waiting
            return false
        }
        bits = (bits & ~Self.phaseMask) | Self.ended
        return true
    }
}
