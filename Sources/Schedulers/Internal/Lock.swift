#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-recursive lock over `pthread_mutex_t`, owned by one object.
///
/// Why not `Synchronization.Mutex`:
/// - Its `withLock` takes its value `inout sending` and returns a `sending`
///   result, which rejects the non-`Sendable` payloads this library must carry
///   to stay source compatible with RxSwift 6 (caller-supplied actions, states
///   and disposables).
/// - On Linux its lock word is manipulated inside the standard library, which
///   ThreadSanitizer does not instrument, so TSan sees no ordering between two
///   critical sections and reports every guarded access as a race. TSan
///   intercepts `pthread_mutex_lock`, so with this lock its reports are real.
///
/// On glibc an uncontended `pthread_mutex_lock` is one compare-and-swap, as
/// Mutex's is. The mutex lives in its own allocation because a
/// `pthread_mutex_t` must not move; that is one allocation per lock owner
/// (a subscription, a disposable), never per element or per schedule on the
/// hot paths.
///
/// The library's only use of a raw pointer for locking, kept to this type:
/// `mutex` is allocated and initialised in `init`, destroyed and freed in
/// `deinit`, never copied (the type is `~Copyable`) and never handed out, so
/// every use in between reaches a live, initialised mutex.
@safe
@usableFromInline
struct Lock: ~Copyable, @unchecked Sendable {
    @usableFromInline
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @inlinable
    init() {
        self.init(spinning: false)
    }

    /// A lock; with `spinning`, a thread that finds it taken spins a little
    /// before it sleeps (glibc's adaptive mutex, where there is one), for a
    /// lock held for a few dozen instructions by threads on other cores,
    /// where sleeping and waking would cost far more than the wait.
    @usableFromInline
    init(spinning: Bool) {
        // unsafe: stores a fresh allocation of one mutex, initialised below and owned by this value alone.
        unsafe mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        // unsafe: `mutex` was just allocated for exactly one pthread_mutex_t.
        unsafe mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        // unsafe: `attributes` is a local initialised here and destroyed below.
        unsafe pthread_mutexattr_init(&attributes)
        #if canImport(Glibc)
        if spinning {
            // unsafe: as above.
            unsafe pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        }
        #endif
        // unsafe: `mutex` points to the initialised mutex allocated above; `attributes` is initialised.
        let status = unsafe pthread_mutex_init(mutex, &attributes)
        // unsafe: `attributes` was initialised above and is not used after this.
        unsafe pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed with status \(status)")
    }

    deinit {
        // unsafe: the last use of the value; nothing else holds `mutex` (never copied, never handed out).
        unsafe pthread_mutex_destroy(mutex)
        // unsafe: as above; the allocation of `init` is deinitialised and freed once.
        unsafe mutex.deinitialize(count: 1)
        // unsafe: as above.
        unsafe mutex.deallocate()
    }

    @inlinable
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Releases the mutex taken by this thread's `lock()`.
    @inlinable
    @inline(__always)
    func unlock() {
        // unsafe: `mutex` is live for the whole life of this value (see `init`, `deinit`).
        unsafe pthread_mutex_unlock(mutex)
    }

    /// Takes the mutex, through the sync point seam (SyncPoint.swift).
    ///
    /// In a normal build this is `pthread_mutex_lock` alone. In an
    /// exploration build a controlled thread never blocks in the kernel: it
    /// tries the mutex and, while another thread holds it, hands control back
    /// to the controller (which runs the holder) before trying again.
    @inlinable
    @inline(__always)
    func lock() {
        #if SCHEDULERS_EXPLORATION
        SyncPoint.yield(.lockAcquire)
        // unsafe: `mutex` is live for the whole life of this value (see `init`, `deinit`).
        while unsafe pthread_mutex_trylock(mutex) != 0 {
            guard SyncPoint.yield(.lockBlocked) else {
                // unsafe: as above.
                unsafe pthread_mutex_lock(mutex)
                return
            }
        }
        #else
        // unsafe: `mutex` is live for the whole life of this value (see `init`, `deinit`).
        unsafe pthread_mutex_lock(mutex)
        #endif
    }
}

/// Carries a value the compiler cannot prove `Sendable` across a thread hop.
///
/// The library's public surface is RxSwift 6's, whose actions and states are
/// not `Sendable`; the scheduler contracts (an action runs once, on the
/// scheduler, never concurrently with itself) are what make the hop safe.
@usableFromInline
struct UnsafeTransfer<Value>: @unchecked Sendable {
    @usableFromInline
    var value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}
