import Synchronization

/// The disposable a `Producer` returns: disposes the sink and the upstream
/// subscription exactly once each (guarantee 7 in Guarantees.md), even when
/// `dispose()` races with, or comes before, their assignment.
///
/// Two flags in one atomic word instead of a lock, so a subscription costs no
/// lock allocation here: `assigned` (set once by `setSinkAndSubscription`
/// after it stored both) and `disposed` (set once by `dispose()`). Each side
/// sets its flag with one read-modify-write and sees the other's; the side
/// that completes the pair (both flags set) is the only one that disposes,
/// and it alone clears the references afterwards. Release ordering on the
/// store of `assigned` publishes the references to a `dispose()` that sees it.
final class SinkDisposer: Cancelable, @unchecked Sendable {
    private static let assigned = 1
    private static let disposed = 2

    private let flags = SyncAtomic<Int>(0)
    /// The sink and the upstream subscription: written once before
    /// `assigned` is set; taken by whichever side disposes (plain fields
    /// rather than optionals: see `NopDisposable.take`). One stored pair, so
    /// that each of the two accesses per subscription makes one run-time
    /// exclusivity check; the flags already make every access exclusive (the
    /// write happens before `assigned` is published, the disposing side is
    /// the only one left once both flags are set).
    private var members = DisposablePair(NopDisposable(), NopDisposable())

    init() {
        LiveInstances.disposerCreated()
    }

    deinit {
        LiveInstances.disposerFreed()
    }

    var isDisposed: Bool {
        flags.load(ordering: .acquiring) & Self.disposed != 0
    }

    /// Called once by `Producer.subscribe` after `run` returns.
    func setSinkAndSubscription(sink: Disposable, subscription: Disposable) {
        members.store(sink, subscription)
        let previous = flags.bitwiseOr(Self.assigned, ordering: .acquiringAndReleasing).oldValue
        precondition(previous & Self.assigned == 0, "SinkDisposer assigned twice")
        if previous & Self.disposed != 0 {
            disposeBoth()
        }
    }

    func dispose() {
        let previous = flags.bitwiseOr(Self.disposed, ordering: .acquiringAndReleasing).oldValue
        if previous & Self.disposed == 0, previous & Self.assigned != 0 {
            disposeBoth()
        }
    }

    /// Runs once, on the side that set the second flag.
    private func disposeBoth() {
        let (sink, subscription) = members.take()
        sink.dispose()
        subscription.dispose()
    }
}
