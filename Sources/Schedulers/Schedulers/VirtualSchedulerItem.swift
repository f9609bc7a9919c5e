/// One action queued on a `VirtualTimeScheduler`; also the disposable handed back for it.
///
/// Its run-once life is `ScheduledActionCell`'s, the same as the dispatch and
/// operation-queue items' (guarantees 5 and 8 in Guarantees.md): disposing a
/// pending item takes it out of the queue at once and releases its state and
/// action; disposing a running item lets it finish and then disposes what it
/// returned; disposing a finished item disposes what it returned.
///
/// `time`, `sequence` and `queueIndex` belong to the scheduler and are only
/// touched under the scheduler's lock; the phase (this class's) decides who
/// owns the state, action and result (the subclass's).
class VirtualSchedulerItem<Converter: VirtualTimeConverterType>: Cancelable, @unchecked Sendable {
    let time: Converter.VirtualTimeUnit
    /// Breaks ties between equal times: lower runs first (scheduling order).
    var sequence: UInt64 = 0
    /// Position in the scheduler's heap, or `nil` when not queued.
    var queueIndex: Int?

    // Weak: the scheduler owns its queue, so a strong reference back would
    // keep both alive as long as the item is queued.
    private weak var owner: VirtualTimeScheduler<Converter>?
    /// Where the action is in its run-once life (see `ScheduledActionCell`).
    let phase = ScheduledActionPhase()

    init(owner: VirtualTimeScheduler<Converter>, time: Converter.VirtualTimeUnit) {
        self.owner = owner
        self.time = time
    }

    final var isDisposed: Bool {
        phase.isDisposed
    }

    /// Runs the action unless the item was disposed; called by the scheduler
    /// after taking the item out of its queue. Overridden by the concrete item.
    func run() {}

    /// Disposes the item (see the type's description). Overridden by the
    /// concrete item.
    func dispose() {}

    /// Takes a pending item that was just disposed out of the scheduler's queue.
    final func leaveQueue() {
        owner?.removeQueued(self)
    }
}

/// A queued action with its state: the concrete item, one allocation per schedule.
final class VirtualSchedulerAction<Converter: VirtualTimeConverterType, StateType>:
    VirtualSchedulerItem<Converter>, ScheduledActionCell, @unchecked Sendable
{
    var state: StateType?
    var action: ((StateType) -> Disposable)?
    var result: Disposable?

    init(
        owner: VirtualTimeScheduler<Converter>,
        time: Converter.VirtualTimeUnit,
        state: StateType,
        action: @escaping (StateType) -> Disposable
    ) {
        self.state = state
        self.action = action
        super.init(owner: owner, time: time)
    }

    override func run() {
        runAction()
    }

    override func dispose() {
        disposeAction()
    }

    /// Disposed while pending: leaves the queue at once, so a later
    /// `start()` or `advanceTo(_:)` neither finds nor counts it.
    func didDisposeBeforeRun() {
        leaveQueue()
    }
}
