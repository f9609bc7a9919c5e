import Dispatch
import Foundation

/// One action of an `OperationQueueScheduler`: the operation added to the
/// queue and the disposable returned for it.
///
/// Keeps guarantee 5 in Guarantees.md like `DispatchScheduledItem`: disposed before
/// it starts, the action never runs (and the operation is cancelled, so the
/// queue drops it); disposed while running, it finishes, is not run again,
/// and what it returned is disposed. Cancelled by the queue
/// (`cancelAllOperations()`) before it started, it counts as disposed.
final class OperationQueueScheduledAction<StateType>: Operation, Cancelable, @unchecked Sendable {
    private let phase = ScheduledActionPhase()
    // Read and cleared by whichever thread moves the phase out of `.pending`:
    // the runner (to `.running`) or the disposer (to `.disposed`).
    private var state: StateType?
    private var action: ((StateType) -> Disposable)?
    // Written by the running thread before it publishes `.finished`.
    private var result: Disposable?
    /// The one-shot timer of a relative action, cancelled on dispose.
    private let timer: DispatchSourceTimer?

    init(state: StateType, action: @escaping (StateType) -> Disposable, timer: DispatchSourceTimer?) {
        self.state = state
        self.action = action
        self.timer = timer
    }

    var isDisposed: Bool {
        phase.isDisposed
    }

    override func main() {
        guard phase.begin() else {
            // Disposed first: the disposer owns (and has released) state and action.
            return
        }
        let disposable = action.unsafelyUnwrapped(state.unsafelyUnwrapped)
        state = nil
        action = nil
        result = disposable
        let published = phase.finish()
        if !published {
            result = nil
            disposable.dispose()
        }
    }

    /// Cancelled by the queue or by `dispose()`: counts as disposed.
    override func cancel() {
        super.cancel()
        disposeAction()
    }

    func dispose() {
        cancel()
    }

    private func disposeAction() {
        let previous = phase.dispose()
        switch previous {
        case .pending:
            // Won against the runner, which will not touch these any more:
            // release the state and action now, not when the item is dropped.
            timer?.cancel()
            state = nil
            action = nil
        case .finished:
            let disposable = result
            result = nil
            disposable?.dispose()
        default:
            break
        }
    }
}
