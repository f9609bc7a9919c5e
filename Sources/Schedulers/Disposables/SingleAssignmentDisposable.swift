/// Holds a disposable that is assigned exactly once, possibly after a race with `dispose()`.
///
/// If `dispose()` comes first, the disposable assigned later is disposed as
/// soon as it is set. Either way it is disposed exactly once
/// (guarantee 7 in Guarantees.md). Assigning twice is a programming error and
/// stops the program with a message.
public final class SingleAssignmentDisposable: Cancelable, @unchecked Sendable {
    fileprivate enum State {
        case waitingForDisposable
        case holding(Disposable)
        case disposedBeforeAssignment
        case disposed
    }

    private let lock = Lock()
    /// Guarded by `lock`.
    private var state = State.waitingForDisposable

    /// Creates an empty single-assignment disposable.
    public init() {}

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool {
        lock.withLock {
            switch state {
            case .disposed, .disposedBeforeAssignment: return true
            case .waitingForDisposable, .holding: return false
            }
        }
    }

    /// Assigns the disposable. Disposes it at once if `self` is already disposed.
    ///
    /// - Precondition: called at most once.
    public func setDisposable(_ disposable: Disposable) {
        let disposeNow = lock.withLock { state.assign(disposable) }
        if disposeNow {
            disposable.dispose()
        }
    }

    /// Disposes the assigned disposable, or the one assigned later.
    public func dispose() {
        let toDispose = lock.withLock { state.dispose() }
        toDispose?.dispose()
    }
}

// Transitions as mutating methods, so that each operation makes one run-time
// exclusivity check on `state`, not one per read and write.
extension SingleAssignmentDisposable.State {
    /// Stores `disposable`; returns whether it must be disposed at once.
    mutating func assign(_ disposable: Disposable) -> Bool {
        switch self {
        case .waitingForDisposable:
            self = .holding(disposable)
            return false
        case .disposedBeforeAssignment:
            #if SCHEDULERS_MUTANTS
            if Mutant.active == .singleAssignmentKeepsLate {
                self = .holding(disposable)
                return false
            }
            #endif
            self = .disposed
            return true
        case .holding, .disposed:
            // `.disposed` is reached only through an assignment: after
            // `.holding` is disposed, or after `.disposedBeforeAssignment`.
            preconditionFailure(
                "SingleAssignmentDisposable.setDisposable(_:) was called twice; use SerialDisposable to replace a disposable"
            )
        }
    }

    /// Marks disposed; returns the held disposable, if any, the first time.
    mutating func dispose() -> Disposable? {
        switch self {
        case .waitingForDisposable:
            self = .disposedBeforeAssignment
            return nil
        case .holding(let disposable):
            self = .disposed
            return disposable
        case .disposedBeforeAssignment, .disposed:
            return nil
        }
    }
}
