import Synchronization

/// Where one scheduled action is in its life, shared by the items of every
/// scheduler (trampoline, dispatch, operation queue): `pending` → `running`
/// → `finished`, or `disposed` from any of them.
///
/// The transitions are what keep guarantee 5 in Guarantees.md for all of them: the
/// runner and a disposer race for `pending`, and exactly one wins; a disposer
/// that finds `running` leaves the runner to dispose the action's result when
/// `finish()` fails; one that finds `finished` disposes the result itself.
/// Whoever moves the phase out of `pending` owns the item's state and action.
@usableFromInline
struct ScheduledActionPhase: ~Copyable, Sendable {
    /// The phase `dispose()` found.
    @usableFromInline
    enum Previous: Int {
        case pending, running, finished, disposed
    }

    @usableFromInline
    let value = Atomic<Int>(Previous.pending.rawValue)

    @inlinable
    init() {}

    /// Whether `dispose()` has been called.
    @inlinable
    var isDisposed: Bool {
        value.load(ordering: .acquiring) == Previous.disposed.rawValue
    }

    /// The runner claims the action; `false` when a disposer came first.
    @inlinable
    func begin() -> Bool {
        value.compareExchange(
            expected: Previous.pending.rawValue, desired: Previous.running.rawValue,
            ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// The runner publishes the action's result; `false` when a disposer came
    /// while it ran, so the runner must dispose the result itself.
    @inlinable
    func finish() -> Bool {
        value.compareExchange(
            expected: Previous.running.rawValue, desired: Previous.finished.rawValue,
            ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// Marks the action disposed and says what it found.
    @inlinable
    func dispose() -> Previous {
        Previous(rawValue: value.exchange(Previous.disposed.rawValue, ordering: .acquiringAndReleasing))
            .unsafelyUnwrapped
    }

    /// Makes a finished item pending again, for reuse by its own thread only.
    @inlinable
    func reset() {
        value.store(Previous.pending.rawValue, ordering: .relaxed)
    }
}
