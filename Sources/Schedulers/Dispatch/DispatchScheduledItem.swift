import Dispatch

/// One action handed to a dispatch queue, and the disposable returned for it.
///
/// Its run-once life (guarantee 5 in Guarantees.md) is `ScheduledActionCell`'s:
/// disposed before it starts, the action never runs; disposed while it runs,
/// it finishes, is not run again, and what it returned is disposed as soon
/// as it returns; disposed after it finished, what it returned is disposed
/// at once.
///
/// A relative item owns the one-shot timer that will run it. Disposing the
/// item before it is due cancels that timer, which releases the timer's
/// handler and with it the item, its state and its action at once instead of
/// at the due time (guarantee 8 in Guarantees.md).
final class DispatchScheduledItem<StateType>: ScheduledActionCell, Cancelable, @unchecked Sendable {
    let phase = ScheduledActionPhase()
    /// The state, action and result are owned by whoever `phase` says owns
    /// them (the runner, or the one disposer that moved it out of `pending`).
    var state: StateType?
    var action: ((StateType) -> Disposable)?
    var result: Disposable?
    private let timer: HandOffTimer?

    init(state: StateType, action: @escaping (StateType) -> Disposable, timer: HandOffTimer? = nil) {
        self.state = state
        self.action = action
        self.timer = timer
    }

    var isDisposed: Bool {
        isActionDisposed
    }

    /// Runs the action unless the item was disposed. Called once, on the queue.
    func run() {
        // A relative item's timer is one-shot: cancelling it releases its
        // handler, which breaks the timer -> handler -> item -> timer cycle.
        timer?.cancel()
        runAction()
    }

    func didDisposeBeforeRun() {
        timer?.cancel()
    }

    func dispose() {
        disposeAction()
    }
}
