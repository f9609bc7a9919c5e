import Synchronization

/// Disposes a disposable on a given scheduler.
///
/// `dispose()` returns at once; the wrapped disposable is disposed later, by
/// an action on `scheduler`, exactly once (guarantee 7 in Guarantees.md).
public final class ScheduledDisposable: Cancelable, @unchecked Sendable {
    /// The scheduler the disposal runs on.
    public let scheduler: ImmediateScheduler

    private let disposed = SyncAtomic<Bool>(false)
    // Read and cleared only by the single winner of the exchange on `disposed`.
    private var disposable: Disposable?

    /// Creates a disposable that disposes `disposable` on `scheduler`.
    public init(scheduler: ImmediateScheduler, disposable: Disposable) {
        self.scheduler = scheduler
        self.disposable = disposable
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool {
        disposed.load(ordering: .acquiring)
    }

    /// Schedules the disposal on `scheduler`.
    public func dispose() {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .scheduledDisposableSplitExchange {
            // The mutant: the exchange split into a load and a store.
            guard !disposed.load(ordering: .acquiring) else { return }
            disposed.store(true, ordering: .releasing)
        } else {
            guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        }
        #else
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        #endif
        guard let inner = disposable.take() else { return }
        _ = scheduler.schedule(inner) { inner in
            inner.dispose()
            return Disposables.create()
        }
    }
}
