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
/// trampoline's FIFO order holds for fan-out too. Which steps are queued or
/// running, and who holds the queue's reference, is
/// `TrampolineRecursionStateMachine`'s: its transitions say what to queue,
/// run in place or release.
///
/// A chain step costs no reference counting on this object or its action:
/// the queue's reference to the object is handed to the running step and,
/// when the step recurses, straight back to the queue (the machine's `holdsReference`); and
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
    let phase = SyncAtomic<Int>(Phase.live.rawValue)
    @usableFromInline
    let trampoline: Trampoline
    // Only the trampoline's thread touches the fields below, unchecked:
    // checks here would cost 144 → 493 instructions per recursive step
    // (callgrind; Performance.md, "Exclusivity checks").
    @exclusivity(unchecked)
    @usableFromInline
    var action: Action?
    /// The state of the step this object is queued for.
    @exclusivity(unchecked)
    @usableFromInline
    var pendingState: State?
    /// Which steps are queued or running, and who holds the queue's reference.
    @exclusivity(unchecked)
    @usableFromInline
    var machine = TrampolineRecursionStateMachine()
    /// While a chain step's action runs (`runSteps`), the bits of the state
    /// it was given, when that state is one reference-counted word (see
    /// `handsOverState`); else 0, which is also what `recurse` leaves here
    /// when it was given bit-for-bit that state: it then stores nothing,
    /// and the step moves its own state into `pendingState` once the action
    /// returns, instead of `recurse` copying it (a retain) and the step
    /// releasing its own (a release). One word, so that the object keeps
    /// its allocation size.
    @exclusivity(unchecked)
    @usableFromInline
    var runningStateBits: UInt = 0

    @inlinable
    init(state: State, action: @escaping Action, trampoline: Trampoline) {
        self.pendingState = state
        self.action = action
        self.trampoline = trampoline
        super.init { work, _ in
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
    /// (then drains the queue), else queues it. The "at once" branch is
    /// `Trampoline.runOutermost` spelled out for steps that return nothing
    /// (see there why it is not shared).
    @inlinable
    static func start(_ state: State, action: @escaping Action) -> TrampolineRecursion<State> {
        let trampoline = Trampoline.current
        let recursion = TrampolineRecursion(state: state, action: action, trampoline: trampoline)
        if trampoline.isRunning {
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
        machine.runWillStart(holdingReference: holdingReference)
        // One copy of the action for the whole loop, not one per step.
        if let action {
            // Unmanaged, not `unowned(unsafe)`: calling through the latter
            // retains and releases this object on every `recurse`.
            let recursion = Unmanaged.passUnretained(self)
            while pendingState != nil {
                // A plain binding, not `while let`: the step may move it on.
                let state = pendingState.take().unsafelyUnwrapped
                guard phase.load(ordering: .acquiring) == Phase.live.rawValue else { break }
                machine.stepWillStart()
                // 0 for a state that is not handed over, or whose bits are 0
                // (an enum case without payload: nothing to count).
                let stateBits = Self.handsOverState ? Self.bits(of: state) : 0
                runningStateBits = stateBits
                action(state) { next in recursion._withUnsafeGuaranteedRef { $0.recurse(next) } }
                if stateBits != 0 {
                    if runningStateBits == 0 {
                        // `recurse` took it and stored nothing: the next
                        // step's state is this one, moved, not copied and
                        // released.
                        pendingState = consume state
                    } else {
                        runningStateBits = 0
                    }
                }
                guard machine.stepDidEnd(nextIsFirstInQueue: trampoline.isFirst(self)) == .runNextInPlace else {
                    break
                }
                // The entry's reference is the one `recurse` handed over (or
                // took): the running steps hold it again.
                _ = trampoline.popFirst()
            }
        }
        let end = machine.runDidEnd()
        if end.end {
            finish()
        }
        return end.releaseReference
    }

    /// A step queued by a second `recurse` within one step.
    @inlinable
    func runExtraStep(_ state: State) {
        machine.extraStepWillRun()
        if phase.load(ordering: .acquiring) == Phase.live.rawValue, let action {
            action(state) { [unowned(unsafe) self] in self.recurse($0) }
        }
        if machine.extraStepDidEnd() {
            finish()
        }
    }

    @inlinable
    func recurse(_ state: State) {
        guard phase.load(ordering: .relaxed) == Phase.live.rawValue else { return }
        switch machine.recurse() {
        case .enqueueExtraStep:
            trampoline.enqueue(TrampolineRecursionStep(recursion: self, state: state))
        case .enqueueHandingOverReference:
            storeNextState(state)
            trampoline.enqueue(retained: Unmanaged.passUnretained(self))
        case .enqueueRetaining:
            storeNextState(state)
            trampoline.enqueue(self)
        }
    }

    /// Whether chain steps hand their state over to `recurse` given the same
    /// one (`runningStateBits`): for a state of one word that is reference
    /// counted and moves by copying its bits (an object reference, a struct
    /// or enum around one). Two such values with equal bits are the same
    /// reference, so moving one in place of copying the other changes
    /// nothing but the two counting operations. A trivial state costs no
    /// counting to copy; a larger one is not compared.
    @inlinable
    static var handsOverState: Bool {
        !_isPOD(State.self) && _isBitwiseTakable(State.self) && MemoryLayout<State>.size == MemoryLayout<UInt>.size
    }

    /// The one word of `state` (only when `handsOverState`).
    @inlinable
    @inline(__always)
    static func bits(of state: State) -> UInt {
        withUnsafePointer(to: state) { UnsafeRawPointer($0).load(as: UInt.self) }
    }

    /// Stores the state of the step `recurse` queues: nothing when it is the
    /// running chain step's own (that step moves it in once its action
    /// returns), else a copy.
    @inlinable
    @inline(__always)
    func storeNextState(_ state: State) {
        if Self.handsOverState, runningStateBits != 0, runningStateBits == Self.bits(of: state) {
            runningStateBits = 0
        } else {
            initializeNextState(state)
        }
    }

    /// Not queued until now, so no state is pending (a step takes the state
    /// it was queued for before it runs, and `release()` clears both):
    /// initialise rather than assign, which would release the old value,
    /// always nil here, at every step.
    @inlinable
    func initializeNextState(_ state: State) {
        initializeField(&pendingState, to: state)
    }

    /// No step is queued or running any more: the recursion is over (or
    /// disposed); release what it holds.
    @inlinable
    func finish() {
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
        if Trampoline.existing === trampoline, !machine.isInStep {
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
            let step = unsafeDowncast(work.takeRetainedValue(), to: TrampolineRecursionStep<State>.self)
            step.recursion.runExtraStep(step.state)
            return nil
        }
    }
}
