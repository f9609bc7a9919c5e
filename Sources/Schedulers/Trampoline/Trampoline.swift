#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CSchedulersThreadLocal
import Synchronization

/// Calls `body` with the calling thread's trampoline, created on first use.
///
/// The trampoline is found through a C thread-local pointer (one load) and
/// lent to `body` without reference counting. This is the only place the
/// library turns a raw pointer into an object; see `Trampoline.makeCurrent`.
@inlinable
@inline(__always)
func withCurrentTrampoline<Result>(_ body: (Trampoline) -> Result) -> Result {
    // unsafe: reads the thread-local slot, which holds nil or the pointer makeCurrent stored.
    guard let pointer = unsafe csched_current_trampoline() else {
        return body(Trampoline.makeCurrent())
    }
    // unsafe: the pointer is the thread's own +1 reference (set by makeCurrent, released only by the
    // pthread key's destructor after the thread's last Swift frame returned), so the object outlives `body`.
    return unsafe Unmanaged<Trampoline>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
}

/// The per-thread queue behind `CurrentThreadScheduler`: whether one of its
/// actions is running, and the work queued meanwhile, first in first out.
///
/// Only its own thread touches it, so it takes no lock. The flags the
/// inlined `schedule` reads are `Atomic`s read and written with relaxed
/// ordering: plain loads and stores on every supported processor, and, being
/// `let` properties, exempt from the run-time exclusivity checks a stored
/// `var` of a class costs on every access. The queue itself is private and
/// touched only by the non-inlined methods below.
@usableFromInline
final class Trampoline {
    /// Whether an action of this trampoline runs on its thread now.
    @usableFromInline
    let running = Atomic<Bool>(false)
    /// How many entries are queued.
    @usableFromInline
    let queued = Atomic<Int>(0)

    // The queue, first in first out. The oldest entry waits in `first` when
    // it was queued into an empty queue (a chain of nested schedules never
    // queues more than one); the rest wait in two lists threaded through the
    // entries (`TrampolineWork.next`): `incoming`, newest first, where
    // `enqueue` pushes, and `outgoing`, oldest first, where `popFirst` pops;
    // when `outgoing` runs dry, `incoming` is reversed into it. Every entry
    // is moved, never copied, so queuing costs no reference counting, and an
    // entry leaves the queue with `next` empty.
    //
    // These are private stored properties touched only by this file's
    // non-inlined methods, with plain loads and stores: the optimiser then
    // proves that no two accesses to them can overlap and drops their
    // run-time exclusivity checks (it cannot for a property that inlined
    // code in other modules touches, nor for an array's in-place update).
    private var first: TrampolineWork?
    private var incoming: TrampolineWork?
    private var outgoing: TrampolineWork?
    /// An item that has run and that nothing else references, for the next
    /// queued `schedule` of its state type (`TrampolineItem.make`).
    private var spare: TrampolineWork?

    /// The pthread key whose destructor releases each thread's trampoline when
    /// the thread exits, which a C thread-local variable cannot do. Readers
    /// use the thread-local pointer; the key is written once per thread.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // unsafe: pthread hands the destructor the key's value, the pointer makeCurrent stored.
        let status = unsafe pthread_key_create(&key) { pointer in
            // The exiting thread has no trampoline from here on; work that
            // its release runs and that schedules gets a new one.
            csched_set_current_trampoline(nil)
            #if canImport(Darwin)
            // unsafe: the key's value is the +1 reference makeCurrent stored; this gives it back.
            unsafe Unmanaged<Trampoline>.fromOpaque(pointer).release()
            #else
            // unsafe: pthread passes the key's value, which only makeCurrent sets.
            if let pointer = unsafe pointer {
                // unsafe: the key's value is the +1 reference makeCurrent stored; this gives it back.
                unsafe Unmanaged<Trampoline>.fromOpaque(pointer).release()
            }
            #endif
        }
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()

    /// Creates the calling thread's trampoline, which has none yet. The
    /// thread's pthread key owns the reference (released when the thread
    /// exits); the thread-local pointer lets readers find it.
    @usableFromInline
    @inline(never)
    static func makeCurrent() -> Trampoline {
        let trampoline = Trampoline()
        // unsafe: hands one reference to the thread (the key and the
        // thread-local pointer share it) until the key's destructor releases it.
        let pointer = unsafe Unmanaged.passRetained(trampoline).toOpaque()
        // unsafe: stores the pointer as the key's value, for the key's destructor to release.
        let status = unsafe pthread_setspecific(key, pointer)
        precondition(status == 0, "pthread_setspecific failed with \(status)")
        // unsafe: the thread-local slot holds the same reference, for withCurrentTrampoline to lend.
        unsafe csched_set_current_trampoline(pointer)
        return trampoline
    }

    /// The calling thread's trampoline, if it has one (without creating it).
    static var existing: Trampoline? {
        // unsafe: as in withCurrentTrampoline.
        guard let pointer = unsafe csched_current_trampoline() else { return nil }
        // unsafe: as in withCurrentTrampoline, the thread's reference keeps it alive; this takes one more.
        return unsafe Unmanaged<Trampoline>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Whether an action of this trampoline runs now.
    @inlinable
    var isRunning: Bool {
        running.load(ordering: .relaxed)
    }

    /// Whether nothing is queued.
    @inlinable
    var isEmpty: Bool {
        queued.load(ordering: .relaxed) == 0
    }

    /// Runs `action` as the thread's outermost action (none may be running),
    /// then the work queued meanwhile, and returns what `action` returned.
    @inlinable
    func runOutermost(_ action: () -> Disposable) -> Disposable {
        running.store(true, ordering: .relaxed)
        defer { running.store(false, ordering: .relaxed) }
        let disposable = action()
        if !isEmpty {
            drain()
        }
        return disposable
    }

    /// Queues `work` behind everything queued before it.
    @usableFromInline
    func enqueue(_ work: consuming TrampolineWork) {
        let count = queued.load(ordering: .relaxed)
        queued.store(count + 1, ordering: .relaxed)
        // Stores below go into fields known to be empty, so that nothing is
        // released (a release of `nil` is still a call).
        if count == 0, case .none = first {
            first = consume work
            return
        }
        guard case .none = work.next else { preconditionFailure("a trampoline entry is queued twice") }
        work.next = incoming.take()
        incoming = consume work
    }

    /// Takes the oldest entry out of the queue.
    private func popFirst() -> TrampolineWork? {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .trampolineLIFO, let work = incoming.take() {
            // The mutant: pops where `enqueue` pushes, newest first.
            incoming = work.next.take()
            queued.store(queued.load(ordering: .relaxed) - 1, ordering: .relaxed)
            return work
        }
        #endif
        if let work = first.take() {
            queued.store(queued.load(ordering: .relaxed) - 1, ordering: .relaxed)
            return work
        }
        if case .none = outgoing {
            // Reverse `incoming` (newest first) into `outgoing` (oldest first).
            var reversed: TrampolineWork?
            while let work = incoming.take() {
                incoming = work.next.take()
                work.next = reversed.take()
                reversed = consume work
            }
            outgoing = reversed.take()
        }
        guard let work = outgoing.take() else { return nil }
        outgoing = work.next.take()
        queued.store(queued.load(ordering: .relaxed) - 1, ordering: .relaxed)
        return work
    }

    /// Runs queued work until the queue is empty, including work queued meanwhile.
    @usableFromInline
    func drain() {
        while var work = popFirst() {
            // Nothing but this loop references an entry whose every ticket
            // has been dropped: nobody can dispose it or reach it any more.
            let unreferenced = isKnownUniquelyReferenced(&work)
            if work.run(unreferenced: unreferenced), unreferenced {
                // The latest reusable entry becomes the spare, replacing an
                // older one (a spare of another state type, kept forever,
                // would make every later schedule on this thread allocate).
                // Two branches of one store: in the first the optimiser
                // knows the old spare is `nil` (the usual case: `schedule`
                // took it) and releases nothing.
                if case .none = spare {
                    spare = consume work
                } else {
                    spare = consume work
                }
            }
        }
    }

    /// The spare entry, taken out, if it is an item of the state type `kind`
    /// (`TrampolineItem.make`).
    @usableFromInline
    func takeSpare(ofKind kind: ObjectIdentifier) -> TrampolineWork? {
        guard spare?.kind == kind else { return nil }
        return spare.take()
    }

}

/// Work queued on a trampoline.
///
/// Each subclass is generic and hands `init` its runner, a function made
/// where its type was concrete, which `run(unreferenced:)` calls with the
/// entry: so running an entry is one indirect call of specialised code,
/// with neither a virtual call to an unspecialised override in between (a
/// generic class's override runs unspecialised) nor a generic cast (a
/// runtime call).
///
/// A runner casts the entry it is given to its own class without a check
/// (`entry(_:as:)`), which rests on one rule: **a runner is only ever called
/// with the entry that stores it.** `runner` is private to this class and
/// constant, and its one caller, `run(unreferenced:)`, is final and passes
/// `self`; the subclass whose `init` made the runner is the entry's class.
/// Debug builds check the class before each cast, and
/// `TrampolineItemInvariantTests` runs each kind of entry.
@usableFromInline
class TrampolineWork {
    /// For a `TrampolineItem<State>`, `State`'s identity; `nil` for other
    /// work. An entry of kind `ObjectIdentifier(State.self)` is a
    /// `TrampolineItem<State>`, which is what lets the spare be reused
    /// without a checked cast (`TrampolineItem.reusing`).
    @usableFromInline
    final let kind: ObjectIdentifier?
    /// The next entry in the trampoline's queue (see `Trampoline.incoming`).
    final var next: TrampolineWork?
    /// Runs the work: called only by `run(unreferenced:)`, with this entry
    /// (the rule above).
    private final let runner: (TrampolineWork, Bool) -> Bool

    /// - Parameter runner: What running this entry does, given the entry
    ///   and whether nothing but the trampoline references it; returns
    ///   whether the entry is empty and may be reused for a later schedule.
    @usableFromInline
    init(kind: ObjectIdentifier? = nil, runner: @escaping (TrampolineWork, Bool) -> Bool) {
        self.kind = kind
        self.runner = runner
    }

    /// Runs the work, on the trampoline's thread, handed over by its drain.
    /// `unreferenced` says that nothing but the trampoline references the
    /// entry (so nobody can dispose it any more). Returns whether the entry
    /// is empty and may be reused for a later schedule.
    @usableFromInline
    final func run(unreferenced: Bool) -> Bool {
        runner(self, unreferenced)
    }

    /// `work`, which a runner was given, as the class that made the runner.
    ///
    /// Called only by the runners given to `init`, each with its own class:
    /// by the rule above, `work` is an instance of exactly that class.
    /// Always inlined: called, unspecialised code (a runner made where the
    /// state type is generic) would look `Entry`'s metadata up for every
    /// entry it runs, only to pass it here.
    @inlinable
    @inline(__always)
    static func entry<Entry: TrampolineWork>(_ work: TrampolineWork, as _: Entry.Type) -> Entry {
        assert(type(of: work) == Entry.self, "a trampoline entry's runner is called with another entry")
        // unsafe: the rule above: a runner is only called with the entry that stores it, an `Entry`.
        return unsafe unsafeDowncast(work, to: Entry.self)
    }

    /// Whether the queued action a `TrampolineTicket` refers to has been
    /// disposed. Only a `TrampolineItem` has a ticket.
    @usableFromInline
    var isQueuedActionDisposed: Bool {
        false
    }

    /// What `TrampolineTicket.dispose()` does; only a `TrampolineItem` has a ticket.
    @usableFromInline
    func disposeQueuedAction() {}
}
