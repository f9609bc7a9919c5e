/// The state of a scheduled action that must hear when its scheduler drops
/// the action without running it although nobody disposed it: an
/// `OperationQueueScheduler` action whose operation the queue cancelled
/// (`cancelAllOperations()`).
///
/// Work that keeps itself going by scheduling its next step (an
/// `observe(on:)` drain, a tick of an emulated periodic job) would otherwise
/// wait for that step for ever.
protocol DroppedActionHandling: AnyObject {
    /// The action scheduled with this state will never run, and its
    /// disposable was not disposed by its owner. Called at most once per
    /// action, on the thread that cancelled it, while the action's state is
    /// still held: never when the action ran or its owner disposed it.
    func scheduledActionWasDropped()
}
