import Dispatch
import Foundation

/// One action of an `OperationQueueScheduler`: the operation added to the
/// queue and the disposable returned for it.
///
/// Its run-once life (guarantee 5 in Guarantees.md) is `ScheduledActionCell`'s, like
/// `DispatchScheduledItem`'s: disposed before it starts, the action never runs
/// (and the operation is cancelled, so the queue drops it); disposed while
/// running, it finishes, is not run again, and what it returned is disposed.
/// Cancelled by the queue (`cancelAllOperations()`) before it started, it
/// counts as disposed; a state that is `DroppedActionHandling` hears of it,
/// so that work which schedules its own next step can schedule it again.
final class OperationQueueScheduledAction<StateType>: Operation, ScheduledActionCell, Cancelable,
    @unchecked Sendable
{
    let phase = ScheduledActionPhase()
    /// The state, action and result are owned by whoever `phase` says owns
    /// them (the runner, or the one disposer that moved it out of `pending`).
    var state: StateType?
    var action: ((StateType) -> Disposable)?
    var result: Disposable?
    /// The one-shot timer of a relative action, cancelled on dispose.
    private let timer: HandOffTimer?
    /// Set by `dispose()` before it cancels: a cancellation that finds it
    /// unset came from the queue, which dropped the action.
    private let disposedByOwner = SyncAtomic<Bool>(false)

    init(state: StateType, action: @escaping (StateType) -> Disposable, timer: HandOffTimer?) {
        self.state = state
        self.action = action
        self.timer = timer
    }

    var isDisposed: Bool {
        isActionDisposed
    }

    override func main() {
        runAction()
    }

    /// Cancelled by the queue or by `dispose()`: counts as disposed.
    override func cancel() {
        super.cancel()
        disposeAction()
    }

    func didDisposeBeforeRun() {
        timer?.cancel()
        // The disposer that won over the pending action owns the state until
        // `disposeAction()` releases it, after this returns.
        if !disposedByOwner.load(ordering: .acquiring), let handler = state as? DroppedActionHandling {
            handler.scheduledActionWasDropped()
        }
    }

    func dispose() {
        disposedByOwner.store(true, ordering: .releasing)
        cancel()
    }
}
