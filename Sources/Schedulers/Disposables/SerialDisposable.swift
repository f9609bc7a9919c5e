/// Holds one disposable at a time; assigning a new one disposes the old one.
///
/// After `dispose()`, the current disposable is disposed and every later
/// assignment is disposed at once. Each disposable is disposed exactly once,
/// outside the lock (guarantee 7 in Guarantees.md).
public final class SerialDisposable: Cancelable, @unchecked Sendable {
    private let lock = Lock()
    /// Guarded by `lock`. One stored value whose transitions are mutating
    /// methods, so each operation makes one run-time exclusivity check (one
    /// access to `state`), not one per field it reads or writes.
    private var state = State()

    private struct State {
        var current: Disposable?
        var disposed = false

        /// Stores `new`; returns what must be disposed: the old one, or
        /// `new` itself when already disposed.
        mutating func replace(with new: Disposable) -> Disposable? {
            if disposed {
                return new
            }
            let old = current
            current = new
            #if SCHEDULERS_MUTANTS
            if Mutant.active == .serialLeaksReplaced {
                return nil
            }
            #endif
            return old
        }

        /// Marks disposed; returns the current one the first time.
        mutating func dispose() -> Disposable? {
            if disposed {
                return nil
            }
            disposed = true
            let old = current
            current = nil
            return old
        }
    }

    /// Creates an empty serial disposable.
    public init() {}

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool {
        lock.withLock { state.disposed }
    }

    /// The current disposable. Setting it disposes the previous one, or the new
    /// one if `self` is already disposed.
    public var disposable: Disposable {
        get {
            lock.withLock { state.current ?? Disposables.create() }
        }
        set {
            let toDispose = lock.withLock { state.replace(with: newValue) }
            toDispose?.dispose()
        }
    }

    /// Disposes the current disposable and every one assigned after.
    public func dispose() {
        let toDispose = lock.withLock { state.dispose() }
        toDispose?.dispose()
    }
}
