import Synchronization
import CSchedulersThreadLocal
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock around an `observe(on:)` sink's queue and state machine.
///
/// Why not `Lock` (a `pthread_mutex_t`): upstream takes this lock once per
/// element, and a mutex round trip is two calls into libc, more than the
/// work it guards (a state check and a buffer append). Here an
/// uncontended `lock()` is one inlined compare-and-swap and `unlock()` one
/// inlined store. Holders never block and hold it briefly (the longest
/// holds: a queue growth, which allocates, and `dispose()` dropping what is
/// queued), so a waiter spins, then yields its thread to let a preempted
/// holder run, rather than sleeping in the kernel; only a hold that outlasts
/// many yields sends waiters to sleep, 50 µs at a time. Between two looks at
/// the lock a spinning waiter pauses, twice as long after each failed look
/// up to a cap: each look takes the lock's cache line from the holder, which
/// retakes the lock within nanoseconds of releasing it.
/// (Performance.md, "observeOn", says what parking in a mutex costs here.)
///
/// ThreadSanitizer sees the ordering: the atomics are compiled into this
/// module and so instrumented, unlike `Synchronization.Mutex`'s lock word.
///
/// A value without copies, stored in the `ObserveOnQueue` it guards, which
/// keeps it on cache lines of its own (see there).
struct ObserveOnQueueLock: ~Copyable, Sendable {
    private let held = SyncAtomic<Bool>(false)

    /// An unlocked lock.
    init() {}

    /// Pauses (`csched_spin_hint`) a waiter spends looking and backing off
    /// before each yield of the thread.
    private static var pausesBeforeYield: Int { 512 }
    /// The longest back-off between two looks at the lock, in pauses.
    private static var longestBackOff: Int { 16 }
    /// Yields this many times before each further wait sleeps instead.
    private static var yieldsBeforeSleeping: Int { 64 }
    /// How long a waiter sleeps once yielding has not been enough, in µs.
    private static var sleepMicroseconds: UInt32 { 50 }

    /// Takes the lock. Not re-entrant.
    @inline(__always)
    func lock() {
        if !held.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            lockContended()
        }
    }

    /// Releases the lock taken by this thread's `lock()`.
    @inline(__always)
    func unlock() {
        held.store(false, ordering: .releasing)
    }

    /// Runs `body` holding the lock.
    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    @inline(never)
    private func lockContended() {
        #if SCHEDULERS_DRAIN_STATISTICS
        ObserveOnDrainStatistics.contended.add(1, ordering: .relaxed)
        #endif
        var pauses = 0
        var backOff = 1
        var yields = 0
        while true {
            // A spinner under the schedule explorer lets the holder run.
            SyncPoint.spinWait()
            // Read before trying: waiting on a shared cache line costs the
            // holder nothing, a failed compare-and-swap would take the line.
            if !held.load(ordering: .relaxed)
                && held.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
                return
            }
            // Back off, twice as long after each failed look (the type's
            // doc comment says why).
            for _ in 0..<backOff {
                csched_spin_hint()
            }
            pauses += backOff
            if backOff < Self.longestBackOff {
                backOff &*= 2
            }
            if pauses >= Self.pausesBeforeYield {
                pauses = 0
                if yields < Self.yieldsBeforeSleeping {
                    yields += 1
                    sched_yield()
                } else {
                    // A long hold (dropping a large queue on dispose, a
                    // holder preempted for a whole time slice): stop burning
                    // a core that the holder may need.
                    usleep(Self.sleepMicroseconds)
                }
            }
        }
    }
}
