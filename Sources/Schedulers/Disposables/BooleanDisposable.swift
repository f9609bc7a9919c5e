import Synchronization

/// A disposable whose only effect is to remember that it was disposed.
///
/// Useful as a cancellation flag that a long-running action polls.
public final class BooleanDisposable: Cancelable, Sendable {
    /// A disposable that is already disposed.
    public static let disposed = BooleanDisposable(isDisposed: true)

    private let state: SyncAtomic<Bool>

    /// Creates a disposable that is not disposed yet.
    public init() {
        state = SyncAtomic(false)
    }

    /// Creates a disposable in the given state.
    public init(isDisposed: Bool) {
        state = SyncAtomic(isDisposed)
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool {
        state.load(ordering: .acquiring)
    }

    /// Marks the disposable as disposed.
    public func dispose() {
        state.store(true, ordering: .releasing)
    }
}
