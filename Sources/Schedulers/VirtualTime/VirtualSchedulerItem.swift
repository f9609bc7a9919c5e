import Synchronization

/// One action queued on a `VirtualTimeScheduler`; also the disposable handed back for it.
///
/// Its run-once life is `ScheduledActionCell`'s, the same as the dispatch and
/// operation-queue items' (guarantees 5 and 8 in Guarantees.md): disposing a
/// pending item releases its state and action at once and leaves an empty
/// tombstone in the queue, which the scheduler drops unrun when it reaches it
/// or when it compacts the queue; disposing a running item lets it finish
/// and then disposes what it returned; disposing a finished item disposes
/// what it returned.
///
/// Not generic in the converter: the queue keeps each item's due time and
/// sequence in arrays of its own, so the item is only the phase (this
/// class's), the state, action and result (the subclass's) and the count of
/// tombstones it reports to.
@usableFromInline
class VirtualSchedulerItem: Cancelable, @unchecked Sendable {
    /// Where the action is in its run-once life (see `ScheduledActionCell`).
    @usableFromInline
    let phase = ScheduledActionPhase()
    /// The scheduler's count of disposed items still in its queue.
    @usableFromInline
    let tombstones: VirtualSchedulerTombstones

    @usableFromInline
    init(tombstones: VirtualSchedulerTombstones) {
        self.tombstones = tombstones
    }

    @usableFromInline
    final var isDisposed: Bool {
        phase.isDisposed
    }

    /// Runs the action unless the item was disposed; called by the scheduler
    /// after taking the item out of its queue. Overridden by the concrete item.
    @usableFromInline
    func run() {}

    /// Disposes the item (see the type's description). Overridden by the
    /// concrete item.
    @usableFromInline
    func dispose() {}
}

/// A queued action with its state: the concrete item, one allocation per schedule.
@usableFromInline
final class VirtualSchedulerAction<StateType>: VirtualSchedulerItem, ScheduledActionCell, @unchecked Sendable {
    @usableFromInline
    var state: StateType?
    @usableFromInline
    var action: ((StateType) -> Disposable)?
    @usableFromInline
    var result: Disposable?

    @inlinable
    init(tombstones: VirtualSchedulerTombstones, state: StateType, action: @escaping (StateType) -> Disposable) {
        self.state = state
        self.action = action
        super.init(tombstones: tombstones)
    }

    /// Runs the action; an item disposed after the scheduler took it out of
    /// the queue (and so not dropped as a tombstone) is counted out here.
    @usableFromInline
    override func run() {
        if !runAction() {
            tombstones.remove(1)
        }
    }

    @usableFromInline
    override func dispose() {
        disposeAction()
    }

    /// Disposed while pending: the item is a tombstone until the scheduler
    /// drops it (unrun) from its queue or runs into it.
    @usableFromInline
    func didDisposeBeforeRun() {
        tombstones.add()
    }
}

/// How many disposed items a `VirtualTimeScheduler`'s queue may still hold:
/// disposing a pending item adds one (from any thread, without the
/// scheduler's lock), and the scheduler takes one off for each disposed item
/// it drops from the queue or takes out and finds disposed when it runs it.
///
/// Each item disposed while pending is added once and taken off once, in
/// either order, so the count is exact whenever no dispose is half done,
/// and may read below zero for a moment. The scheduler compacts its queue
/// when a schedule or a run finds at least half of it tombstones, so
/// between those the queue holds at most as many tombstones as live items,
/// plus what is disposed since the last schedule or run began.
@usableFromInline
final class VirtualSchedulerTombstones: Sendable {
    @usableFromInline
    let count = SyncAtomic<Int>(0)

    @inlinable
    init() {}

    /// The current count (may be below zero while a dispose is half done).
    @inlinable
    var value: Int {
        count.load(ordering: .relaxed)
    }

    @inlinable
    func add() {
        count.add(1, ordering: .relaxed)
    }

    @inlinable
    func remove(_ removed: Int) {
        count.subtract(removed, ordering: .relaxed)
    }
}
