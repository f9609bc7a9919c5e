/// Runs work on the calling thread, queuing nested work on a per-thread trampoline.
///
/// The first `schedule` on a thread runs its action at once and then drains
/// the thread's queue; a `schedule` made while an action of this scheduler
/// runs on the same thread is queued and runs after the current action and
/// everything queued before it (FIFO). Recursive scheduling therefore never
/// grows the stack. Disposing a queued item before it runs skips it
/// (guarantee 5 in Guarantees.md); disposing it from another thread is safe.
///
/// Each thread has its own queue, found through a thread-local pointer (one
/// load), and freed when the thread exits.
///
/// Cost: running at once allocates nothing; a queued `schedule` allocates at
/// most one object, the queue entry, and returns a disposable that refers to
/// it. When nothing but the queue holds the entry once it is about to run
/// (every disposable returned for it has been dropped), nobody can dispose
/// it any more: it runs without the atomic hand-shake a disposer needs, and
/// the thread keeps it for the next queued `schedule` of the same state
/// type, so a chain of schedules allocates nothing. A disposable still held
/// keeps its entry from being reused, so disposing it can never reach a
/// later action. Nothing an entry keeps (state, action) outlives its run, or
/// its disposal on the entry's own thread; disposed from another thread, it
/// is released by the entry's thread when its drain, already running, reaches
/// the entry and skips it (guarantee 8).
///
/// Serial per thread, but not a `SerialScheduler`: two threads can run its
/// actions at the same time.
///
/// A value without stored state (RxSwift's is a class): every instance is
/// the same scheduler, `instance`, so reaching it costs nothing. Code that
/// uses `CurrentThreadScheduler.instance` and `isScheduleRequired` builds
/// unchanged; only code that treats the scheduler as an object (`===`, an
/// `AnyObject` constraint) does not.
public struct CurrentThreadScheduler: ImmediateScheduler, Sendable {
    /// The shared instance.
    ///
    /// The scheduler has no state of its own (each thread's queue is found
    /// through a thread-local pointer), so every instance is the same and
    /// this one is made where it is asked for: reaching it costs nothing,
    /// where a stored `static let` costs a lazy initialisation check on
    /// every `schedule`.
    @inlinable
    public static var instance: CurrentThreadScheduler {
        CurrentThreadScheduler()
    }

    @usableFromInline
    init() {}

    /// `true` when no action of this scheduler is running on the calling
    /// thread, so `schedule` would run its action at once.
    public static var isScheduleRequired: Bool {
        Trampoline.existing?.isRunning != true
    }

    /// Runs `action` at once if no trampoline runs on this thread, else queues it.
    ///
    /// - Returns: When run at once, what the action returned; when queued, a
    ///   disposable that skips the action if disposed before it starts, and
    ///   disposes what the action returned if disposed after.
    @inlinable
    public func schedule<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        withCurrentTrampoline { trampoline in
            guard trampoline.isRunning else {
                return trampoline.runOutermost { action(state) }
            }
            let item = TrampolineItem.make(on: trampoline, state: state, action: action)
            let ticket = TrampolineTicket(item: item)
            trampoline.enqueue(consume item)
            return ticket
        }
    }

    /// Runs `body` at once, as `schedule` runs an action when no action of
    /// this scheduler is running on the calling thread: `body` then runs as
    /// one (what it schedules is queued) and the queue is drained before this
    /// returns. When an action is running, `body` simply runs.
    ///
    /// How a subscription starts (`Producer.subscribe`): it does what
    /// scheduling the producer and its observer as a state would, with no
    /// state and no escaping action.
    func runAsAction(_ body: () -> Disposable) -> Disposable {
        withCurrentTrampoline { trampoline in
            trampoline.isRunning ? body() : trampoline.runOutermost(body)
        }
    }
}

/// The disposable `schedule` returns for a queued action: the only way out
/// of the trampoline to its item.
///
/// A value, not the item itself: nobody outside can hold a weak or unowned
/// reference to an item, so "only the queue holds it" is exactly what
/// `isKnownUniquelyReferenced` says, and an item that passes that test can
/// neither be disposed any more nor reach a later action when reused.
@usableFromInline
struct TrampolineTicket: Cancelable, @unchecked Sendable {
    // @unchecked: `item` is always a `TrampolineItem`, whose cross-thread
    // part (`dispose`) goes through its atomic phase.
    @usableFromInline
    let item: TrampolineWork

    @inlinable
    init<StateType>(item: TrampolineItem<StateType>) {
        self.item = item
    }

    /// Whether the queued action has been disposed.
    @usableFromInline
    var isDisposed: Bool {
        item.isQueuedActionDisposed
    }

    /// Skips the action if it has not started; else disposes what it
    /// returned, once it has returned.
    @usableFromInline
    func dispose() {
        item.disposeQueuedAction()
    }
}

/// One queued action, and the library's one storage type whose field is
/// exempt from Swift's run-time exclusivity checks.
///
/// Queuing allocates this object and nothing else, and not even that when
/// the thread's spare item is reused. Its run-once life is
/// `ScheduledActionCell`'s, except when nothing but the queue references it
/// as it comes up (`run(unreferenced:)`), when nobody can dispose it any more.
///
/// `payload` is declared `@exclusivity(unchecked)`: inlined into the
/// caller's module, each access would otherwise cost a run-time check (two
/// per `schedule`, a large share of its instructions). The check is not
/// needed because the storage keeps these rules, each asserted in debug
/// builds and exercised by `TrampolineItemInvariantTests`:
///
/// 1. **One thread.** `payload` is read and written only on the thread of
///    the trampoline that owns the item (`owner`): `make` fills it there,
///    the drain there empties it, and a disposer on another thread leaves it
///    alone (`disposerReleasesPendingAction` is `false`).
/// 2. **No access stays open across other code.** Every access is one move
///    of the whole value: `fill` stores into an empty field, `takePayload`
///    moves the value out and leaves `nil`. Releasing what was taken
///    (which can run any deinit, and so reach the trampoline again) happens
///    after the access has ended.
/// 3. **Kind names the class.** An entry whose `kind` is
///    `ObjectIdentifier(State.self)` is a `TrampolineItem<State>`: only this
///    class's initialiser sets a kind, and sets its own `State`'s. So the
///    spare of that kind is cast down without a check (`reusing`).
///
/// Rule 1 is what makes rule 2 sufficient: Swift's exclusivity rule is
/// about overlapping accesses, and accesses on one thread overlap only when
/// one is open while other code runs.
@usableFromInline
final class TrampolineItem<StateType>: TrampolineWork, ScheduledActionCell, @unchecked Sendable {
    // @unchecked: `phase` hands `result` from the running thread to at most
    // one disposer; `payload` never leaves the owner's thread (rule 1).
    @usableFromInline
    let phase = ScheduledActionPhase()
    /// The state and the action, in one field; see the rules above.
    @unsafe
    @exclusivity(unchecked)
    @usableFromInline
    var payload: Payload?
    @usableFromInline
    var result: Disposable?
    /// The trampoline whose queue this item is on: its thread is the only one
    /// that touches `payload` (rule 1).
    @usableFromInline
    let owner: ObjectIdentifier
    /// What a queued `schedule` runs.
    @usableFromInline
    typealias Payload = (state: StateType, action: (StateType) -> Disposable)

    @inlinable
    init(owner trampoline: Trampoline) {
        owner = ObjectIdentifier(trampoline)
        super.init(kind: ObjectIdentifier(StateType.self)) { work, unreferenced in
            let item = TrampolineWork.entry(work, as: TrampolineItem.self)
            return item.runQueued(unreferenced: unreferenced)
        }
    }

    /// Whether the calling thread is the owner's (rule 1), for assertions.
    @usableFromInline
    var isOnOwnerThread: Bool {
        Trampoline.existing.map(ObjectIdentifier.init) == owner
    }

    /// Stores the payload into the empty field (rules 1 and 2).
    @inlinable
    func fill(_ payload: Payload) {
        assert(isOnOwnerThread, "a trampoline item is filled on its own thread")
        // unsafe: rule 1 (this is the owner's thread); one load, no other code runs.
        guard case .none = unsafe self.payload else { preconditionFailure("a trampoline item is filled twice") }
        // unsafe: rule 1 (this is the owner's thread) and rule 2 (one store
        // into a field just seen empty: nothing is released while the access is open).
        unsafe self.payload = payload
    }

    /// Moves the payload out, leaving the field empty (rules 1 and 2).
    @inlinable
    func takePayload() -> Payload? {
        assert(isOnOwnerThread, "a trampoline item's payload is taken on its own thread")
        // unsafe: rule 1 (this is the owner's thread) and rule 2 (one move
        // out; the caller releases the value after the access has ended).
        return unsafe payload.take()
    }

    /// `ScheduledActionCell`'s view of the payload's state, read by
    /// `runAction` on the owner's thread. The cell only ever clears state and
    /// action, together: clearing either empties the payload.
    @inlinable
    var state: StateType? {
        get {
            assert(isOnOwnerThread, "a trampoline item's state is read on its own thread")
            // unsafe: rule 1; a copy is read and the access ends before it is used.
            return unsafe payload?.state
        }
        set {
            guard case .none = newValue else { preconditionFailure("a trampoline item's state is set with its action") }
            _ = takePayload()
        }
    }

    /// `ScheduledActionCell`'s view of the payload's action (see `state`).
    @inlinable
    var action: ((StateType) -> Disposable)? {
        get {
            assert(isOnOwnerThread, "a trampoline item's action is read on its own thread")
            // unsafe: rule 1; a copy is read and the access ends before it is used.
            return unsafe payload?.action
        }
        set {
            guard case .none = newValue else { preconditionFailure("a trampoline item's action is set with its state") }
            _ = takePayload()
        }
    }

    /// A disposer on another thread leaves the state and the action to the
    /// trampoline's thread, which releases them when the item comes up (the
    /// item is queued only while that thread drains its queue, so within the
    /// drain already running); a disposer on the trampoline's own thread
    /// releases them at once (`didDisposeBeforeRun`).
    @inlinable
    static var disposerReleasesPendingAction: Bool {
        false
    }

    /// Disposed before it ran: on the trampoline's own thread nothing can
    /// read the payload meanwhile (that thread is here), so the state and
    /// the action are released now, not when the drain reaches the item
    /// (guarantee 8 in Guarantees.md).
    @usableFromInline
    func didDisposeBeforeRun() {
        if isOnOwnerThread {
            _ = takePayload()
        }
    }

    /// A queue entry for `action` on `trampoline`: the thread's spare item
    /// when it has this state type, else a new one.
    @inlinable
    static func make(
        on trampoline: Trampoline, state: StateType, action: @escaping (StateType) -> Disposable
    ) -> TrampolineItem {
        let item =
            if let spare = trampoline.takeSpare(ofKind: ObjectIdentifier(StateType.self)) {
                reusing(spare)
            } else {
                makeNew(on: trampoline)
            }
        item.fill((state, action))
        return item
    }

    /// A new, empty entry: the rare case of `make` (a thread's first queued
    /// `schedule` of this state type, or one made while the spare is taken).
    /// Out of line: inlined, it makes `make` too large for the optimiser to
    /// inline into `schedule`, and a nested `schedule` then pays a call
    /// (the instruction gate's `trampoline.recursion/current-thread` shows it).
    @usableFromInline
    @inline(never)
    static func makeNew(on trampoline: Trampoline) -> TrampolineItem {
        TrampolineItem(owner: trampoline)
    }

    /// `spare`, an entry of this class's kind, as this class (rule 3).
    @inlinable
    static func reusing(_ spare: consuming TrampolineWork) -> TrampolineItem {
        assert(spare is TrampolineItem, "an entry of kind \(StateType.self) is a TrampolineItem<\(StateType.self)>")
        // unsafe: rule 3: `takeSpare` returned it for `ObjectIdentifier(StateType.self)`,
        // the kind only `TrampolineItem<StateType>.init` gives.
        return unsafe unsafeDowncast(consume spare, to: TrampolineItem.self)
    }

    /// Runs the action unless it was disposed first.
    ///
    /// - Parameter unreferenced: Nothing but the trampoline references this
    ///   item: no ticket is left, so nobody can dispose it (it may have been
    ///   disposed before the last ticket was dropped) and nobody can dispose
    ///   what the action returns, which is dropped.
    /// - Returns: Whether the item is empty and pending again, to be reused.
    @inlinable
    func runQueued(unreferenced: Bool) -> Bool {
        guard unreferenced else {
            runAction()
            return false
        }
        if let (state, action) = takePayload(), !phase.isDisposed {
            _ = action(state)
        }
        phase.reset()
        return true
    }

    @usableFromInline
    override var isQueuedActionDisposed: Bool {
        isActionDisposed
    }

    @usableFromInline
    override func disposeQueuedAction() {
        disposeAction()
    }
}
