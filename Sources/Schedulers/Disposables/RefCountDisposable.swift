import Synchronization

/// Disposes its underlying disposable only once it has been disposed itself
/// (the primary reference) and every dependent reference handed out by
/// `retain()` has been disposed too, as RxSwift's `RefCountDisposable` does.
///
/// - `retain()` returns a dependent disposable and counts it; disposing that
///   dependent releases it, once, however often it is disposed.
/// - `dispose()` releases the primary reference, once.
/// - The underlying disposable is disposed exactly once, outside the lock, on
///   the thread that released the last reference.
/// - After the underlying disposable was disposed, `retain()` returns a
///   disposable that does nothing. Until then, even after `dispose()`,
///   `retain()` still hands out counted dependents (the resource is still
///   alive, held by the dependents not yet released).
/// - `isDisposed` is `true` once the underlying disposable was disposed.
///
/// Thread-safe: any thread may retain, dispose or release.
public final class RefCountDisposable: Cancelable, @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    private var underlying: Disposable?
    private var primaryDisposed = false
    private var count = 0

    /// Creates a reference count over `disposable`, holding only the primary reference.
    public init(disposable: Disposable) {
        underlying = disposable
    }

    /// Whether the underlying disposable has been disposed.
    public var isDisposed: Bool {
        lock.withLock { underlying == nil }
    }

    /// Hands out a dependent reference: the underlying disposable is not
    /// disposed before the returned disposable is. Once the underlying
    /// disposable has been disposed, returns a disposable that does nothing.
    public func retain() -> Disposable {
        let counted: Bool = lock.withLock {
            guard underlying != nil else { return false }
            count += 1
            return true
        }
        return counted ? RefCountDependent(parent: self) : Disposables.create()
    }

    /// Releases the primary reference; disposes the underlying disposable if
    /// no dependent is left. Calling it again does nothing.
    public func dispose() {
        let toDispose: Disposable? = lock.withLock {
            guard let underlying, !primaryDisposed else { return nil }
            primaryDisposed = true
            guard count == 0 else { return nil }
            self.underlying = nil
            return underlying
        }
        toDispose?.dispose()
    }

    /// Releases one dependent reference (called once per dependent).
    fileprivate func release() {
        let toDispose: Disposable? = lock.withLock {
            guard let underlying else { return nil }
            count -= 1
            guard primaryDisposed, count == 0 else { return nil }
            self.underlying = nil
            return underlying
        }
        toDispose?.dispose()
    }
}

/// A dependent reference of a `RefCountDisposable`: releases it on the first
/// `dispose()`.
private final class RefCountDependent: Cancelable, @unchecked Sendable {
    private let disposed = SyncAtomic<Bool>(false)
    private let parent: RefCountDisposable

    init(parent: RefCountDisposable) {
        self.parent = parent
    }

    var isDisposed: Bool {
        disposed.load(ordering: .acquiring)
    }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        parent.release()
    }
}
