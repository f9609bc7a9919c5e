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
    /// Written once before `assigned` is set; cleared by whichever side
    /// disposes, with `NopDisposable.take` (plain fields rather than
    /// optionals: see there why).
    ///
    /// Exempt from the run-time exclusivity check: the flags already make
    /// every access exclusive (the writes happen before `assigned` is
    /// published, the disposing side is the only one left once both flags
    /// are set), and each checked access cost a thread-local lookup and an
    /// access-set insertion, four of them per subscription.
    @exclusivity(unchecked)
    private var sink: Disposable = NopDisposable()
    @exclusivity(unchecked)
    private var subscription: Disposable = NopDisposable()

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
        self.sink = sink
        self.subscription = subscription
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
        let sink = NopDisposable.take(&self.sink)
        let subscription = NopDisposable.take(&self.subscription)
        sink.dispose()
        subscription.dispose()
    }
}
