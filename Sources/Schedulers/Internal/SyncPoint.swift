import Synchronization

// The one seam for synchronisation.
//
// Every lock acquisition (`Lock`) and every atomic operation (`SyncAtomic`)
// in the library passes through `SyncPoint` first, and so does every hand-off
// of work to a queue and every dispatch timer (SyncPointHandOff.swift), and
// every read of the uptime clock (SyncPointClock.swift). In a normal build
// `SyncPoint` is empty and inlined away: `SyncAtomic` compiles to the
// `Atomic` it wraps and `Lock` to `pthread_mutex_lock`, exactly the code
// without the seam.
//
// Built with the package trait `Exploration` (`swift build --traits
// Exploration`, which defines `SCHEDULERS_EXPLORATION`), every sync point
// calls the hook installed by `SchedulersExploration.install`, if any. The Stress
// harness installs one that parks the calling thread until its controller
// picks that thread to go next, so a race between the harness's threads
// runs one thread at a time, in an order the controller chooses and can
// replay. Threads the controller does not own pass straight through.
//
// New synchronisation code in the library uses `SyncAtomic` instead of
// `Atomic` (same method names), `Lock` for locks, and calls
// `SyncPoint.spinWait()` in the body of any loop that waits for another
// thread, so a controlled spinner lets the thread it waits for run.

/// What a thread is about to do at a sync point.
@usableFromInline
enum SyncPointKind: UInt8, Sendable {
    /// About to take a lock.
    case lockAcquire = 0
    /// Found the lock taken; cannot go on until another thread does something.
    case lockBlocked = 1
    /// About to load an atomic.
    case atomicLoad = 2
    /// About to store to an atomic.
    case atomicStore = 3
    /// About to read-modify-write an atomic (exchange, compare-exchange, add, or).
    case atomicUpdate = 4
    /// Spinning until another thread does something.
    case spinWait = 5
}

/// The calls the library makes at each sync point; see the comment at the top of this file.
@usableFromInline
enum SyncPoint {
    /// Announces that the calling thread is about to perform `kind`.
    ///
    /// - Returns: Whether a controller owns the calling thread (always
    ///   `false` in a normal build, where this is a no-op).
    @inlinable
    @inline(__always)
    @discardableResult
    static func yield(_ kind: SyncPointKind) -> Bool {
        #if SCHEDULERS_EXPLORATION
        // unsafe: exploration build only; the hook is written only by its install function, whose contract
        // is to run before the threads that run library code start and after they stop, so this read races with no write.
        if let hook = unsafe SyncPointHook.installed {
            return hook(kind.rawValue)
        }
        #endif
        return false
    }

    /// Called in every round of a loop that waits for another thread.
    @inlinable
    @inline(__always)
    static func spinWait() {
        yield(.spinWait)
    }
}

#if SCHEDULERS_EXPLORATION
/// Where the exploration hook is kept (see `SchedulersExploration.install`).
@usableFromInline
enum SyncPointHook {
    @usableFromInline
    nonisolated(unsafe) static var installed: (@convention(c) (UInt8) -> Bool)?
}

/// The exploration hook (present only in builds with the `Exploration` trait).
///
/// Not part of the library's API: the Stress harness installs it.
@_spi(Exploration)
public enum SchedulersExploration {
    /// Installs `hook`, called at every sync point with the point's kind: 0
    /// lock acquire, 1 lock found taken, 2 atomic load, 3 atomic store, 4
    /// atomic read-modify-write, 5 spin-wait round. It returns whether the
    /// calling thread is controlled (then a lock found taken is retried after
    /// the call; otherwise the thread blocks on the lock as usual).
    ///
    /// Contract: install it before the threads that run library code start,
    /// and pass `nil` only after they stopped; it must return promptly for
    /// threads it does not control. `nil` (the default) makes every sync
    /// point a no-op.
    public static func install(_ hook: (@convention(c) (UInt8) -> Bool)?) {
        // unsafe: exploration build only; written only here, before the threads that run library code start
        // or after they stopped (the contract above), so no read races with this write.
        unsafe SyncPointHook.installed = hook
    }

    /// Whether this build of the library has sync points (always `true`
    /// where this type exists).
    public static let isInstrumented = true
}
#endif

/// An `Atomic` whose every operation passes a sync point first.
///
/// The same methods, with the same meaning, as the `Atomic` operations the
/// library uses (for `Int` and `Bool`; add others here as code needs them):
/// porting code from `Atomic` is a rename. In a normal build each method is
/// the `Atomic` operation alone (transparent, so the orderings stay the
/// compile-time constants `Atomic` requires).
@usableFromInline
struct SyncAtomic<Value: AtomicRepresentable>: ~Copyable {
    @usableFromInline
    let base: Atomic<Value>

    /// Creates an atomic holding `initialValue`.
    @inlinable
    @inline(__always)
    init(_ initialValue: consuming Value) {
        base = Atomic(initialValue)
    }
}

extension SyncAtomic: @unchecked Sendable where Value: Sendable {}

// One extension per value type: `Atomic`'s operations are declared per
// storage width (`where Value.AtomicRepresentation == _Atomic8BitStorage`,
// `_Atomic64BitStorage`, ...), with no protocol over the widths, so a method
// generic over every `AtomicRepresentable` cannot call them; a protocol of
// our own over the widths would need load, store, exchange and
// compare-exchange again for each width it serves.
extension SyncAtomic where Value == Int {
    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    func load(ordering: AtomicLoadOrdering) -> Int {
        SyncPoint.yield(.atomicLoad)
        return base.load(ordering: ordering)
    }

    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    func store(_ desired: Int, ordering: AtomicStoreOrdering) {
        SyncPoint.yield(.atomicStore)
        base.store(desired, ordering: ordering)
    }

    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    @discardableResult
    func exchange(_ desired: Int, ordering: AtomicUpdateOrdering) -> Int {
        SyncPoint.yield(.atomicUpdate)
        return base.exchange(desired, ordering: ordering)
    }

    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    func compareExchange(
        expected: Int, desired: Int, ordering: AtomicUpdateOrdering
    ) -> (exchanged: Bool, original: Int) {
        SyncPoint.yield(.atomicUpdate)
        return base.compareExchange(expected: expected, desired: desired, ordering: ordering)
    }

    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    @discardableResult
    func add(_ operand: Int, ordering: AtomicUpdateOrdering) -> (oldValue: Int, newValue: Int) {
        SyncPoint.yield(.atomicUpdate)
        return base.add(operand, ordering: ordering)
    }

    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    @discardableResult
    func subtract(_ operand: Int, ordering: AtomicUpdateOrdering) -> (oldValue: Int, newValue: Int) {
        SyncPoint.yield(.atomicUpdate)
        return base.subtract(operand, ordering: ordering)
    }

    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    @discardableResult
    func bitwiseOr(_ operand: Int, ordering: AtomicUpdateOrdering) -> (oldValue: Int, newValue: Int) {
        SyncPoint.yield(.atomicUpdate)
        return base.bitwiseOr(operand, ordering: ordering)
    }
}

extension SyncAtomic where Value == Bool {
    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    func load(ordering: AtomicLoadOrdering) -> Bool {
        SyncPoint.yield(.atomicLoad)
        return base.load(ordering: ordering)
    }

    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    func store(_ desired: Bool, ordering: AtomicStoreOrdering) {
        SyncPoint.yield(.atomicStore)
        base.store(desired, ordering: ordering)
    }

    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    @discardableResult
    func exchange(_ desired: Bool, ordering: AtomicUpdateOrdering) -> Bool {
        SyncPoint.yield(.atomicUpdate)
        return base.exchange(desired, ordering: ordering)
    }

    @usableFromInline
    @_semantics("atomics.requires_constant_orderings")
    @_transparent
    func compareExchange(
        expected: Bool, desired: Bool, ordering: AtomicUpdateOrdering
    ) -> (exchanged: Bool, original: Bool) {
        SyncPoint.yield(.atomicUpdate)
        return base.compareExchange(expected: expected, desired: desired, ordering: ordering)
    }
}
