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

    // The queue, first in first out, as two lists threaded through the
    // entries (`TrampolineWork.next`): `incoming`, newest first, where
    // `enqueue` pushes, and `outgoing`, oldest first, where `popFirst` pops;
    // when `outgoing` runs dry, `incoming` is reversed into it. Every entry
    // is moved, never copied, so queuing costs no reference counting.
    //
    // These are internal stored properties touched only by this file's
    // non-inlined methods, with plain loads and stores: the optimiser then
    // proves that no two accesses to them can overlap and drops their
    // run-time exclusivity checks (it cannot for a property that inlined
    // code in other modules touches, nor for an array's in-place update).
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
        work.next = incoming.take()
        incoming = consume work
        queued.store(queued.load(ordering: .relaxed) + 1, ordering: .relaxed)
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
        if outgoing == nil {
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
        while true {
            guard var work = popFirst() else { return }
            let unreferenced = isKnownUniquelyReferenced(&work)
            let run = work.runner.body
            // The entry is handed over, not lent: a cast of a value the
            // caller still holds would copy it, a reference count each way.
            if var reusable = run(consume work, unreferenced), isKnownUniquelyReferenced(&reusable) {
                // Nothing else can reach it: the latest such entry becomes
                // the spare, replacing an older one (a spare of another state
                // type, kept forever, would make every later schedule on
                // this thread allocate).
                spare = consume reusable
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
/// Subclasses are generic; they hand in their run function, made where their
/// type is concrete, instead of overriding a method: an overridden method of
/// a generic class runs unspecialised, looking up type metadata (a hash-table
/// search) each time it touches a value of the generic type.
@usableFromInline
class TrampolineWork {
    /// Runs `work`, handed over by the trampoline. `unreferenced` says that
    /// nothing but the trampoline referenced `work` (so nobody can dispose
    /// it any more). Returns the entry when it may be reused for a later
    /// schedule.
    @usableFromInline
    typealias RunFunction = (_ work: consuming TrampolineWork, _ unreferenced: Bool) -> TrampolineWork?

    @usableFromInline
    final let runner: Runner
    /// For a `TrampolineItem<State>`, `State`'s identity; `nil` for other
    /// work. Two entries of one kind are of one class: the spare fits a
    /// `schedule` whose state type has this identity.
    @usableFromInline
    final let kind: ObjectIdentifier?
    /// The next entry in the trampoline's queue (see `Trampoline.incoming`).
    final var next: TrampolineWork?

    /// The run function, wrapped so that it crosses generic code as a plain
    /// value: a bare closure would be reabstracted there, which allocates a
    /// thunk in an unoptimised build.
    @usableFromInline
    struct Runner {
        @usableFromInline
        let body: RunFunction

        @inlinable
        init(_ body: @escaping RunFunction) {
            self.body = body
        }
    }

    @usableFromInline
    init(kind: ObjectIdentifier? = nil, runner: Runner) {
        self.kind = kind
        self.runner = runner
    }

    /// `work` as the one class its runner was made for: each subclass makes
    /// its runner where that class is concrete, so any other class here is
    /// a bug in the trampoline. (`TrampolineItem` casts on its own: see its
    /// runner.)
    @inlinable
    static func handedOver<Work: TrampolineWork>(_ work: consuming TrampolineWork, as _: Work.Type) -> Work {
        guard let work = consume work as? Work else {
            preconditionFailure("a runner made for \(Work.self) got another kind of work")
        }
        return work
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
