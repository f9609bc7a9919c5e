#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CSchedulersThreadLocal

/// Runs work on the calling thread, queuing nested work on a per-thread trampoline.
///
/// The first `schedule` on a thread runs its action at once and then drains
/// the thread's queue; a `schedule` made while an action of this scheduler
/// runs on the same thread is queued and runs after the current action and
/// everything queued before it (FIFO). Recursive scheduling therefore never
/// grows the stack. Disposing a queued item before it runs skips it
/// (guarantee 5 in Guarantees.md).
///
/// Each thread has its own queue, found through a thread-local pointer (one
/// load), not through Foundation's thread dictionary or a call into libc,
/// and freed when the thread exits.
///
/// Cost: running at once allocates nothing; a queued `schedule` allocates at
/// most one object, the queue entry, and returns a disposable that refers to
/// it (a small value, stored inline in the `Disposable` existential). When
/// nothing but the queue holds the entry once it has run (every disposable
/// returned for it has been dropped), the thread keeps it and the next queued
/// `schedule` of the same state type reuses it: a chain of schedules then
/// allocates nothing. A disposable still held keeps its entry from being
/// reused, so disposing it can never reach a later action. Nothing an item
/// keeps (state, action) outlives the run or the skip (guarantee 8).
/// Disposing a queued item from another thread is safe.
///
/// Time: a queued `schedule` pays two reference-count operations on its
/// entry, one to make the returned disposable and one when the caller drops
/// it. They stay: the disposable must be able to cancel the action
/// (guarantee 5), and only the entry's count tells when no disposable is
/// left, which is what allows reusing the entry and letting go of what the
/// action returned (a disposable that nothing counts would have to keep that
/// forever for a possible later `dispose`). Keeping the state and the
/// action's captures until the run and letting them go after (guarantee 8)
/// costs two more each, except in a chain: a `schedule` made inside a
/// running action with bit-for-bit that action's own state or action (the
/// same object, the same closure) takes them over from the run instead of
/// copying them, and when its entry is the next in the queue and nothing else
/// references it, the run goes on with it in place, state and action still
/// at hand, which is what `drain` would run next anyway. Everything else (the
/// spare item, its state and action) is moved, never copied.
/// `scheduleRecursive` needs no count per step at all: its one disposable
/// serves every step.
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
    /// where a stored `static let` costs a lazy initialisation check (on
    /// Linux a call to `swift_once`) on every `schedule`.
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
        borrowedCurrentTrampoline()._withUnsafeGuaranteedRef { trampoline in
            schedule(on: trampoline, state, action: action)
        }
    }

    /// Runs `body` at once, as `schedule` runs an action when no action of
    /// this scheduler is running on the calling thread: `body` then runs as
    /// one (what it schedules is queued) and the queue is drained before this
    /// returns. When an action is running, `body` simply runs.
    ///
    /// How a subscription starts (`Producer.subscribe`). It does what
    /// scheduling the producer and its observer as a state did, but passes
    /// no state and no action: nothing escapes, and unspecialised code looks
    /// up no metadata for a state's type (a tuple of the producer and the
    /// observer cost three lookups per subscription).
    func runAsAction(_ body: () -> Disposable) -> Disposable {
        borrowedCurrentTrampoline()._withUnsafeGuaranteedRef { trampoline in
            trampoline.isRunning ? body() : trampoline.runOutermost(body)
        }
    }

    @inlinable
    func schedule<StateType>(
        on trampoline: Trampoline,
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        if trampoline.isRunning {
            let item = trampoline.makeItem(state: state, action: action)
            trampoline.enqueue(item)
            return TrampolineTicket(item: item)
        }
        return trampoline.runOutermost { action(state) }
    }
}

/// The calling thread's trampoline, created on first use, borrowed: the
/// thread's own reference keeps it alive, so a `schedule` pays no retain and
/// release for it (Performance.md, "Measurements behind the code"). Read
/// from a C thread-local variable (`csched_current_trampoline`), one load,
/// where `pthread_getspecific` was a call into libc of some 17 instructions
/// per `schedule`. A free function, not a static member of `Trampoline`:
/// reaching a class's static member first asks for the class's metadata.
@inlinable
@inline(__always)
func borrowedCurrentTrampoline() -> Unmanaged<Trampoline> {
    csched_current_trampoline().map { Unmanaged<Trampoline>.fromOpaque($0) } ?? Trampoline.makeCurrent()
}

/// The per-thread queue behind `CurrentThreadScheduler`. Only its own thread
/// touches it, so it needs no lock, and its fields opt out of dynamic
/// exclusivity checks (each check costs a thread-local lookup on this hot
/// path; Performance.md, "Exclusivity checks", has the instruction counts).
///
/// The queue is an intrusive FIFO list threaded through the queued items
/// themselves: queuing allocates nothing beyond the item, and there is no
/// buffer to grow or copy. The links are unmanaged: the queue owns exactly
/// one reference to each entry, taken by `enqueue(retained:)` and handed to
/// the entry's run function by `drain()`. Strong links would retain and
/// release each entry several times as it moves through the list (every one
/// an atomic instruction); this way an entry that queues itself again (a
/// recursion step) hands the same reference back without touching its count.
@usableFromInline
final class Trampoline {
    /// The thread-specific key that holds each thread's reference to its
    /// trampoline, for one purpose: its destructor releases the trampoline
    /// when the thread exits, which a C thread-local variable cannot do.
    /// Readers use the thread-local pointer (`borrowedCurrentTrampoline()`);
    /// the key is only written, once per thread, by `makeCurrent()`.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            // The exiting thread has no trampoline from here on; work that
            // its release runs and that schedules gets a new one.
            csched_set_current_trampoline(nil)
            #if canImport(Darwin)
            Unmanaged<Trampoline>.fromOpaque(pointer).release()
            #else
            if let pointer {
                Unmanaged<Trampoline>.fromOpaque(pointer).release()
            }
            #endif
        }
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()

    @exclusivity(unchecked)
    @usableFromInline
    var isRunning = false
    /// The oldest entry; the queue owns one reference to each entry.
    @exclusivity(unchecked)
    @usableFromInline
    var first: Unmanaged<TrampolineWork>?
    @exclusivity(unchecked)
    @usableFromInline
    var last: Unmanaged<TrampolineWork>?
    /// An item that has run and that nothing else references, kept for the
    /// next `makeItem` of its type. It holds no state and no action.
    /// (`keepAsSpare`.)
    @exclusivity(unchecked)
    @usableFromInline
    var spare: TrampolineWork?
    /// The item whose action runs now on the path no ticket can reach, while
    /// it runs (else `nil`). Its state and action fields still hold the bits
    /// of the state and action the run owns, so that a `schedule` from inside
    /// can compare its own with them (`makeItem`).
    @exclusivity(unchecked)
    @usableFromInline
    var running: Unmanaged<TrampolineWork>?
    /// The entry a `schedule` from inside the running action made with that
    /// action's own state (`takesState`) or action (`takesAction`): it was
    /// left without them, and the run moves its own into it once the action
    /// returns, instead of the entry copying them and the run releasing them.
    @exclusivity(unchecked)
    @usableFromInline
    var taker: Unmanaged<TrampolineWork>?
    @exclusivity(unchecked)
    @usableFromInline
    var takesState = false
    @exclusivity(unchecked)
    @usableFromInline
    var takesAction = false

    deinit {
        // Runs when the thread exits; its queue is empty then unless the
        // thread exited from inside an action (`pthread_exit`). The links do
        // not release what they hold, so release what is left here.
        while let work = popFirst() {
            work.release()
        }
    }

    /// The calling thread's trampoline, if it has one.
    static var existing: Trampoline? {
        guard let pointer = csched_current_trampoline() else { return nil }
        return Unmanaged<Trampoline>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The calling thread's trampoline, created on first use and released when the thread exits.
    @usableFromInline
    static var current: Trampoline {
        borrowedCurrentTrampoline().takeUnretainedValue()
    }

    /// Creates the calling thread's trampoline, which has none yet: the
    /// thread's key holds the reference (released when the thread exits),
    /// the thread-local pointer lets readers find it.
    @usableFromInline
    @inline(never)
    static func makeCurrent() -> Unmanaged<Trampoline> {
        let trampoline = Unmanaged.passRetained(Trampoline())
        let status = pthread_setspecific(key, trampoline.toOpaque())
        precondition(status == 0, "pthread_setspecific failed with \(status)")
        csched_set_current_trampoline(trampoline.toOpaque())
        return trampoline
    }

    /// Queues `work`, taking a new reference to it.
    @inlinable
    func enqueue(_ work: TrampolineWork) {
        enqueue(retained: Unmanaged.passRetained(work))
    }

    /// Queues `work`; the queue takes over the reference passed in.
    @inlinable
    func enqueue(retained work: Unmanaged<TrampolineWork>) {
        if let last {
            last._withUnsafeGuaranteedRef { $0.next = work }
        } else {
            first = work
        }
        last = work
    }

    /// Whether `work` is the oldest entry: the next one `drain()` would run.
    @inlinable
    func isFirst(_ work: TrampolineWork) -> Bool {
        first?.toOpaque() == Unmanaged.passUnretained(work).toOpaque()
    }

    /// Takes the oldest entry out of the queue, with the queue's reference to it.
    @inlinable
    func popFirst() -> Unmanaged<TrampolineWork>? {
        guard let work = first else { return nil }
        first = work._withUnsafeGuaranteedRef { work in
            let next = work.next
            work.next = nil
            return next
        }
        if first == nil {
            last = nil
        }
        return work
    }

    /// A queue entry for `action`: the spare item when it has this state
    /// type, else a new one. When the action running now has bit-for-bit the
    /// same state or action, the entry is left without it and is the
    /// `taker`: the run moves its own into it once the action returns.
    @inlinable
    func makeItem<StateType>(
        state: StateType, action: @escaping (StateType) -> Disposable
    ) -> TrampolineItem<StateType> {
        // The state type, not the item class, identifies an item's kind: its
        // metadata is at hand even in unspecialised code, where the class's
        // would be a run-time lookup.
        let kind = ObjectIdentifier(StateType.self)
        let item: TrampolineItem<StateType>
        // Moved out of the field, not copied: reusing the spare costs no
        // reference counting on it. A spare's fields are empty, as are a new item's.
        if let spare = spare.take() {
            if spare.itemStateType == kind {
                item = unsafeDowncast(spare, to: TrampolineItem<StateType>.self)
            } else {
                self.spare = spare
                item = TrampolineItem()
            }
        } else {
            item = TrampolineItem()
        }
        let action = TrampolineItem<StateType>.erase(action)
        if let running, taker == nil,
            running._withUnsafeGuaranteedRef({ $0.itemStateType == kind })
        {
            let (sameState, sameAction) = running._withUnsafeGuaranteedRef { running in
                let running = unsafeDowncast(running, to: TrampolineItem<StateType>.self)
                // Nothing to save for a state without reference counting.
                return (
                    !_isPOD(StateType.self) && running.holdsBits(ofState: state),
                    running.holdsBits(ofAction: action)
                )
            }
            if sameState || sameAction {
                taker = Unmanaged.passUnretained(item)
                takesState = sameState
                takesAction = sameAction
            }
            if !sameState {
                item.setState(state)
            }
            if !sameAction {
                item.setAction(action)
            }
        } else {
            item.setState(state)
            item.setAction(action)
        }
        return item
    }

    /// Runs `action` as the thread's outermost action (none may be running),
    /// then the work queued meanwhile, and returns what `action` returned.
    ///
    /// Not generic over the result, and not built on a `Void` version that
    /// `TrampolineRecursion.start` could share: either, even inlined, made
    /// the trampoline chains of a quick `trampoline.recursion` run cost more
    /// (callgrind: 583 M instructions more generic, 22 M over a `Void`
    /// version, against 3,108 M).
    @inlinable
    @inline(__always)
    func runOutermost(_ action: () -> Disposable) -> Disposable {
        isRunning = true
        defer { isRunning = false }
        let disposable = action()
        drain()
        return disposable
    }

    /// Runs queued work until the queue is empty, including work queued meanwhile.
    @usableFromInline
    func drain() {
        while let work = popFirst() {
            // The latest reusable entry becomes the spare, replacing an older
            // one: a spare of another state type, kept forever, would make
            // every later schedule on this thread allocate.
            if let reusable = work._withUnsafeGuaranteedRef({ $0.runner.body(work, self) }) {
                keepAsSpare(reusable)
            }
        }
    }

    /// Makes `item`, which has run and which nothing else references, the
    /// spare, replacing an older one.
    @inlinable
    @inline(__always)
    func keepAsSpare(_ item: TrampolineWork) {
        if spare == nil {
            // The usual case: store without releasing the old value, nil.
            initializeField(&spare, to: item)
        } else {
            spare = item
        }
    }
}

/// Work queued on a trampoline: a link of the trampoline's FIFO list.
///
/// Subclasses are generic; they hand in their run function, made where their
/// type is concrete, instead of overriding a method: an overridden method of
/// a generic class runs unspecialised, looking up type metadata (a hash-table
/// search) each time it touches an optional of the generic type.
@usableFromInline
class TrampolineWork {
    /// Runs `work`, which comes with the queue's reference to it: the
    /// function releases that reference, hands it back to the queue, or
    /// returns the entry to be kept as the trampoline's spare.
    @usableFromInline
    typealias RunFunction = (_ work: Unmanaged<TrampolineWork>, _ trampoline: Trampoline) -> TrampolineWork?

    /// The next entry in the queue; the queue, not this link, owns it.
    @exclusivity(unchecked)
    @usableFromInline
    final var next: Unmanaged<TrampolineWork>?
    @usableFromInline
    final let runner: Runner
    /// For a `TrampolineItem<StateType>`, `StateType`; else `nil`. Equal
    /// for two entries exactly when they are of the same class, so that
    /// `Trampoline.makeItem` can tell whether the spare fits.
    @usableFromInline
    final let itemStateType: ObjectIdentifier?

    /// The run function, wrapped so that it crosses the generic
    /// `_withUnsafeGuaranteedRef` as a plain value: a bare closure would be
    /// reabstracted there, which allocates a thunk in an unoptimised build.
    @usableFromInline
    struct Runner {
        @usableFromInline
        let body: RunFunction
    }

    @usableFromInline
    init(itemStateType: ObjectIdentifier? = nil, run: @escaping RunFunction) {
        runner = Runner(body: run)
        self.itemStateType = itemStateType
    }

    /// Whether the queued action a `TrampolineTicket` refers to has been
    /// disposed. Only a `TrampolineItem` has a ticket; other work says `false`.
    @usableFromInline
    var isQueuedActionDisposed: Bool {
        false
    }

    /// What `TrampolineTicket.dispose()` does: a `TrampolineItem` skips or
    /// disposes its action; other work has no ticket and does nothing. An
    /// override, unlike the run function, because it touches no field of the
    /// generic type and is not on the path of every schedule.
    @usableFromInline
    func disposeQueuedAction() {}
}

/// The disposable `schedule` returns for a queued action: the only way out
/// of the trampoline to its item.
///
/// A value, not the item itself: nobody outside can hold a weak or unowned
/// reference to an item, so "only the queue holds it" is exactly what
/// `isKnownUniquelyReferenced` says, and an item that passes that test can
/// be reused with no ticket left that could dispose its next action.
///
/// Not generic: its type metadata is static, so a `schedule` that runs
/// unspecialised builds the returned `Disposable` with no run-time metadata
/// lookup (a generic ticket's type is looked up per state type).
@usableFromInline
struct TrampolineTicket: Cancelable, @unchecked Sendable {
    /// Always a `TrampolineItem`.
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

/// One queued action. Queuing allocates this object and nothing else, and
/// not even that when the thread's spare item is reused. Its run-once life
/// is `ScheduledActionCell`'s, except on the path no ticket can reach
/// (`runUnreferenced`), where nobody can dispose it any more.
@usableFromInline
final class TrampolineItem<StateType>: TrampolineWork, ScheduledActionCell, @unchecked Sendable {
    @usableFromInline
    let phase = ScheduledActionPhase()
    // `phase` hands these fields from one thread to the next (the queuing
    // thread, the running thread, then at most one disposing thread), so they
    // need no dynamic exclusivity checks.
    @exclusivity(unchecked)
    @usableFromInline
    var state: StateType?
    /// The action, with its type erased (`erase`, `unerase`): the field's
    /// type is not generic, so code that runs unspecialised (a `schedule`
    /// through the `ImmediateSchedulerType` existential, as operators call
    /// it) stores, moves and clears it with no run-time metadata lookup, which
    /// a generic field type (`Action?`) costs at each such access.
    @exclusivity(unchecked)
    @usableFromInline
    var storedAction: TrampolineErasedAction?
    @exclusivity(unchecked)
    @usableFromInline
    var result: Disposable?

    /// The action as the class's field stores it. A struct field of a
    /// generic type keeps a closure in one representation whatever
    /// `StateType` is (the state passed indirectly), so specialised and
    /// unspecialised code agree on the bits that `erase` keeps.
    @usableFromInline
    struct Action {
        @usableFromInline
        let body: (StateType) -> Disposable

        @inlinable
        init(_ body: @escaping (StateType) -> Disposable) {
            self.body = body
        }
    }

    /// `action` as the type-erased value `storedAction` holds: the same bits,
    /// owning the same reference to the closure's context.
    @inlinable
    @inline(__always)
    static func erase(_ action: @escaping (StateType) -> Disposable) -> TrampolineErasedAction {
        unsafeBitCast(Action(action), to: TrampolineErasedAction.self)
    }

    /// The action that `erase` made `erased` from.
    @inlinable
    @inline(__always)
    static func unerase(_ erased: TrampolineErasedAction) -> (StateType) -> Disposable {
        unsafeBitCast(erased, to: Action.self).body
    }

    /// Whether the state field holds bit-for-bit `state` (it is read as raw
    /// bytes: the running item's field is formally uninitialised).
    @inlinable
    @inline(__always)
    func holdsBits(ofState state: StateType) -> Bool {
        Self.bitsEqual(&self.state, state)
    }

    /// Whether the action field holds bit-for-bit `action`.
    @inlinable
    @inline(__always)
    func holdsBits(ofAction action: TrampolineErasedAction) -> Bool {
        Self.bitsEqual(&storedAction, action)
    }

    /// Whether the bytes of the field at `field` (an optional's payload comes first) equal `value`'s.
    @inlinable
    @inline(__always)
    static func bitsEqual<Stored, Value>(_ field: UnsafeMutablePointer<Stored>, _ value: Value) -> Bool {
        let stored = UnsafeRawPointer(field)
        guard _isBitwiseTakable(Value.self) else { return false }
        // One or two words (an object reference, a closure): compared as
        // words, without spilling `value` to memory.
        switch MemoryLayout<Value>.size {
        case 0:
            return false
        case 8:
            return stored.loadUnaligned(as: UInt64.self) == unsafeBitCast(value, to: UInt64.self)
        case 16:
            let words = unsafeBitCast(value, to: (UInt64, UInt64).self)
            return stored.loadUnaligned(as: UInt64.self) == words.0
                && stored.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == words.1
        default:
            return withUnsafeBytes(of: value) { bytes in
                memcmp(stored, bytes.baseAddress.unsafelyUnwrapped, MemoryLayout<Value>.size) == 0
            }
        }
    }

    /// `ScheduledActionCell`'s view of `storedAction`.
    @inlinable
    var action: ((StateType) -> Disposable)? {
        get {
            if let storedAction {
                return Self.unerase(storedAction)
            }
            return nil
        }
        set {
            if let newValue {
                storedAction = Self.erase(newValue)
            } else {
                storedAction = nil
            }
        }
    }

    @usableFromInline
    override var isQueuedActionDisposed: Bool {
        isActionDisposed
    }

    @usableFromInline
    override func disposeQueuedAction() {
        disposeAction()
    }

    /// A disposer on another thread leaves the state and the action to the
    /// trampoline's thread: that thread reads them without the phase on the
    /// unreferenced path.
    @inlinable
    static var disposerReleasesPendingAction: Bool {
        false
    }

    /// An empty entry: `makeItem` fills it (`setState`, `setAction`, or the run it takes them from).
    @inlinable
    init() {
        self.state = nil
        self.storedAction = nil
        super.init(itemStateType: ObjectIdentifier(StateType.self)) { work, trampoline in
            // Comes with the queue's reference. When that is the only one,
            // nobody can dispose the item any more.
            let item = unsafeBitCast(work, to: Unmanaged<TrampolineItem<StateType>>.self)
            guard Self.isUnreferenced(item) else {
                // A ticket still held could dispose it (or dispose what it
                // returns): the usual path. The queue's reference becomes
                // this local, released when it returns.
                item.takeRetainedValue().runAction()
                return nil
            }
            return TrampolineItem.runUnreferenced(item, on: trampoline).takeRetainedValue()
        }
    }

    /// Stores the state of an empty entry (new, or a spare: one that ran
    /// through `runUnreferenced`). Initialises rather than
    /// assigns, which would release the old value, always nil, first.
    @inlinable
    @inline(__always)
    func setState(_ state: StateType) {
        initializeField(&self.state, to: state)
    }

    /// Stores the action of an empty entry, as `setState` does the state.
    @inlinable
    @inline(__always)
    func setAction(_ action: TrampolineErasedAction) {
        initializeField(&storedAction, to: action)
    }

    /// Runs `first`, which nothing but the caller references, so nobody can
    /// dispose it any more (it may have been disposed before); then, for as
    /// long as the entry that took over this run's state and action is the
    /// next in the queue and equally unreferenced, runs that one in place,
    /// with the state and action still at hand (what `drain()` would run
    /// next, so the order is the same).
    ///
    /// - Returns: The last item run, to be kept as the spare.
    @inlinable
    @inline(__always)
    static func runUnreferenced(
        _ first: Unmanaged<TrampolineItem>, on trampoline: Trampoline
    ) -> Unmanaged<TrampolineWork> {
        // Unmanaged, not a strong local: this loop hands references between
        // the queue, the spare and itself without touching counts.
        var item = first
        // Moved out, not copied: the item lets go of both with no reference
        // counting. The fields keep the bits (formally uninitialised) while
        // the action runs, for `Trampoline.makeItem` to compare.
        var action = item._withUnsafeGuaranteedRef { $0.moveAction() }
        var state = item._withUnsafeGuaranteedRef { $0.moveState() }
        while true {
            let isDisposed = item._withUnsafeGuaranteedRef { item in
                guard item.phase.isDisposed else { return false }
                item.phase.reset()
                item.clearMovedFields()
                return true
            }
            if isDisposed {
                return unsafeBitCast(item, to: Unmanaged<TrampolineWork>.self)
            }
            trampoline.running = unsafeBitCast(item, to: Unmanaged<TrampolineWork>.self)
            // What the action returns can no longer be disposed through this item: drop it.
            _ = action.run(&state)
            trampoline.running = nil
            item._withUnsafeGuaranteedRef { $0.clearMovedFields() }
            guard let taker = trampoline.taker else {
                return unsafeBitCast(item, to: Unmanaged<TrampolineWork>.self)
            }
            trampoline.taker = nil
            // The entry a schedule made inside took this state or action over
            // (left without it); the queue holds it.
            let next = unsafeBitCast(taker, to: Unmanaged<TrampolineItem>.self)
            if trampoline.first?.toOpaque() == next.toOpaque(),
                Self.isUnreferenced(next)
            {
                // The next to run, and unreferenced but by the queue: run it
                // here, with the queue's reference; this item becomes the spare.
                _ = trampoline.popFirst()
                trampoline.keepAsSpare(item.takeRetainedValue())
                item = next
                // What it took goes into its fields and out again, which
                // costs no counting: while it runs, its fields hold the bits,
                // for `makeItem` to compare.
                item._withUnsafeGuaranteedRef { item in
                    if trampoline.takesState, case .none = item.state {
                        item.state = consume state
                    }
                    state = item.moveState()
                    if trampoline.takesAction, case .none = item.storedAction {
                        item.storedAction = consume action
                    }
                    action = item.moveAction()
                }
                continue
            }
            // Move them into it; both fields are empty there (matched, so no
            // release of an old value). Borrows the queue's reference to it
            // as a strong local, to move into, and gives it back.
            let strongNext = next.takeRetainedValue()
            if trampoline.takesState, case .none = strongNext.state {
                strongNext.state = consume state
            }
            if trampoline.takesAction, case .none = strongNext.storedAction {
                strongNext.storedAction = consume action
            }
            _ = Unmanaged.passRetained(strongNext)
            return unsafeBitCast(item, to: Unmanaged<TrampolineWork>.self)
        }
    }

    /// Whether nothing but the one reference its caller holds references `item`.
    @inlinable
    @inline(__always)
    static func isUnreferenced(_ item: Unmanaged<TrampolineItem>) -> Bool {
        var strong = item.takeRetainedValue()
        let isUnique = isKnownUniquelyReferenced(&strong)
        _ = Unmanaged.passRetained(strong)
        return isUnique
    }

    /// The action, moved out of its field (the bits stay until `clearMovedFields()`).
    /// Still erased: the run calls it as it is (`TrampolineErasedAction.run`),
    /// so moving it costs no reference counting.
    @inlinable
    @inline(__always)
    func moveAction() -> TrampolineErasedAction {
        moveOutOfField(&storedAction).unsafelyUnwrapped
    }

    /// The state, moved out of its field (the bits stay until `clearMovedFields()`).
    @inlinable
    @inline(__always)
    func moveState() -> StateType {
        moveOutOfField(&state).unsafelyUnwrapped
    }

    /// Empties both fields after `moveState()` and `moveAction()`, without
    /// releasing what they held (the mover owns it).
    @inlinable
    @inline(__always)
    func clearMovedFields() {
        initializeField(&state, to: nil)
        initializeField(&storedAction, to: nil)
    }
}

/// Initialises the field at `field`, formally empty, with `value`, without
/// destroying what it held (an assignment would). Called with `&item.field`:
/// the pointer is the stored property's own address for the call.
///
/// A function rather than `withUnsafeMutablePointer(to:)`, whose closure the
/// optimiser leaves out of line in unspecialised code: each such closure
/// then looked up `Optional<State>`'s metadata again (a run-time hash-table
/// probe) where the inlined body shares one lookup with its caller.
@inlinable
@inline(__always)
func initializeField<Value>(_ field: UnsafeMutablePointer<Value>, to value: Value) {
    field.initialize(to: value)
}

/// Moves the value out of the field at `field`, which is formally empty
/// afterwards (its bits stay); see `initializeField(_:to:)`.
@inlinable
@inline(__always)
func moveOutOfField<Value>(_ field: UnsafeMutablePointer<Value>) -> Value {
    field.move()
}

/// A queued action of a `TrampolineItem`, its type erased: the two words of
/// a closure (function and context), owning one reference to the context.
/// Only `TrampolineItem.erase` makes one, from the item type's `Action`, so
/// the bits are always those of a closure that takes its state indirectly
/// (by address) and returns a `Disposable`; `run` calls it that way.
@usableFromInline
struct TrampolineErasedAction {
    /// The action's function, typed for its calling convention: a state
    /// passed indirectly arrives as its address, as a raw pointer does.
    @usableFromInline
    let body: (UnsafeRawPointer) -> Disposable

    /// Calls the action with `state`, which must be of the state type of the
    /// item that erased it. In-out only to pass the variable's own address:
    /// the action receives the state borrowed and cannot change it.
    @inlinable
    @inline(__always)
    func run<StateType>(_ state: inout StateType) -> Disposable {
        withUnsafePointer(to: &state) { body(UnsafeRawPointer($0)) }
    }
}
