import Dispatch

/// One action handed to a dispatch queue, and the disposable returned for it.
///
/// Keeps guarantee 5 in Guarantees.md: disposed before it starts, the action never
/// runs; disposed while it runs, it finishes, is not run again, and what it
/// returned is disposed as soon as it returns; disposed after it finished,
/// what it returned is disposed at once.
///
/// A relative item owns the one-shot timer that will run it. Disposing the
/// item before it is due cancels that timer, which releases the timer's
/// handler and with it the item, its state and its action at once instead of
/// at the due time (guarantee 8 in Guarantees.md).
final class DispatchScheduledItem<StateType>: Cancelable, @unchecked Sendable {
    private let phase = ScheduledActionPhase()
    // Read and cleared by whichever thread moves the phase out of `.pending`:
    // the runner (to `.running`) or the disposer (to `.disposed`).
    private var state: StateType?
    private var action: ((StateType) -> Disposable)?
    // Written by the running thread before it publishes `.finished`; read
    // afterwards only by the single `dispose()` that sees `.finished`.
    private var result: Disposable?
    private let timer: DispatchSourceTimer?

    init(state: StateType, action: @escaping (StateType) -> Disposable, timer: DispatchSourceTimer? = nil) {
        self.state = state
        self.action = action
        self.timer = timer
    }

    var isDisposed: Bool {
        phase.isDisposed
    }

    /// Runs the action unless the item was disposed. Called once, on the queue.
    func run() {
        // A relative item's timer is one-shot: cancelling it releases its
        // handler, which breaks the timer -> handler -> item -> timer cycle.
        timer?.cancel()
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
            // Disposed while running: the action finished; now dispose what it returned.
            result = nil
            disposable.dispose()
        }
    }

    func dispose() {
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
