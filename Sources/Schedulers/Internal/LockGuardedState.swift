/// State that a lock outside it guards, exempt from Swift's run-time
/// exclusivity checks in release builds.
///
/// A class's stored `var` touched inside a lock's closure keeps a run-time
/// check on every access (a thread-local lookup and an access-set
/// insertion), which the optimiser cannot drop. Here the owner's lock
/// already makes every access exclusive, under two rules its owner keeps:
///
/// 1. **Locked.** `withValue` is called only with the owner's lock held, so
///    accesses on two threads never overlap.
/// 2. **Closed.** `body` runs nothing that could reach this object again:
///    it calls only the standard library's collection operations on the
///    state, and releases nothing whose deinit could run other code
///    (references leave the state by `take()`, and are stored only into
///    fields known to be empty).
///
/// Debug builds, where the tests run, keep the check, so that an access
/// that breaks rule 2 traps there; ThreadSanitizer sees the lock, so it
/// reports an access that breaks rule 1.
final class LockGuardedState<State> {
    #if DEBUG
    private var value: State
    #else
    @exclusivity(unchecked)
    private var value: State
    #endif

    init(_ value: State) {
        #if DEBUG
        self.value = value
        #else
        // unsafe: `value` is unchecked; the object is not shared yet, so no
        // other access exists.
        unsafe self.value = value
        #endif
    }

    /// Lends the state to `body`; the caller holds the owner's lock (rules above).
    @inline(__always)
    func withValue<Result>(_ body: (inout State) -> Result) -> Result {
        #if DEBUG
        return body(&value)
        #else
        // unsafe: `value` is unchecked; the caller holds the owner's lock
        // (rule 1) and `body` cannot reach this object again (rule 2).
        return unsafe body(&value)
        #endif
    }
}
