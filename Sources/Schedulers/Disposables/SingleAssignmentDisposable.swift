/// Holds a disposable that is assigned exactly once, possibly after a race with `dispose()`.
///
/// If `dispose()` comes first, the disposable assigned later is disposed as
/// soon as it is set. Either way it is disposed exactly once
/// (guarantee 7 in Guarantees.md). Assigning twice is a programming error and
/// stops the program with a message.
public final class SingleAssignmentDisposable: Cancelable, @unchecked Sendable {
    private enum State {
        case waitingForDisposable
        case holding(Disposable)
        case disposedBeforeAssignment
        case disposed
    }

    private let lock = Lock()
    // Touched only with `lock` held: no dynamic exclusivity checks needed.
    // They would cost 1,057 → 1,516 instructions per set-dispose cycle
    // (callgrind; Performance.md, "Exclusivity checks").
    @exclusivity(unchecked)
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
        let disposeNow: Bool = lock.withLock {
            switch state {
            case .waitingForDisposable:
                state = .holding(disposable)
                return false
            case .disposedBeforeAssignment:
                state = .disposed
                return true
            case .holding, .disposed:
                // `.disposed` is reached only through an assignment: after
                // `.holding` is disposed, or after `.disposedBeforeAssignment`.
                preconditionFailure(
                    "SingleAssignmentDisposable.setDisposable(_:) was called twice; use SerialDisposable to replace a disposable"
                )
            }
        }
        if disposeNow {
            disposable.dispose()
        }
    }

    /// Disposes the assigned disposable, or the one assigned later.
    public func dispose() {
        let toDispose: Disposable? = lock.withLock {
            switch state {
            case .waitingForDisposable:
                state = .disposedBeforeAssignment
                return nil
            case .holding(let disposable):
                state = .disposed
                return disposable
            case .disposedBeforeAssignment, .disposed:
                return nil
            }
        }
        toDispose?.dispose()
    }
}
