/// One action queued on a `VirtualTimeScheduler`; also the disposable handed back for it.
///
/// Phases: `pending` (queued), `running`, `finished` (holding what the action
/// returned), `disposed`. Disposing a pending item takes it out of the queue
/// at once and releases its state and action (guarantees 5 and 8 in Guarantees.md);
/// disposing a running item lets it finish and then disposes what it
/// returned; disposing a finished item disposes what it returned.
///
/// `time`, `sequence` and `queueIndex` belong to the scheduler and are only
/// touched under the scheduler's lock; `phase` is guarded by the item's lock.
class VirtualSchedulerItem<Converter: VirtualTimeConverterType>: Cancelable, @unchecked Sendable {
    private enum Phase {
        case pending
        case running
        case finished(Disposable)
        case disposed
    }

    let time: Converter.VirtualTimeUnit
    /// Breaks ties between equal times: lower runs first (scheduling order).
    var sequence: UInt64 = 0
    /// Position in the scheduler's heap, or `nil` when not queued.
    var queueIndex: Int?

    // Weak: the scheduler owns its queue, so a strong reference back would
    // keep both alive as long as the item is queued.
    private weak var owner: VirtualTimeScheduler<Converter>?
    private let lock = Lock()
    private var phase = Phase.pending

    init(owner: VirtualTimeScheduler<Converter>, time: Converter.VirtualTimeUnit) {
        self.owner = owner
        self.time = time
    }

    var isDisposed: Bool {
        lock.withLock {
            if case .disposed = phase { return true }
            return false
        }
    }

    /// Runs the action unless the item was disposed; called by the scheduler
    /// after taking the item out of its queue.
    final func run() {
        let starts: Bool = lock.withLock {
            guard case .pending = phase else { return false }
            phase = .running
            return true
        }
        guard starts else { return }
        let result = invokeAndReleasePayload()
        let disposedWhileRunning: Bool = lock.withLock {
            guard case .running = phase else { return true }
            phase = .finished(result)
            return false
        }
        if disposedWhileRunning {
            result.dispose()
        }
    }

    func dispose() {
        let (wasQueued, result): (Bool, Disposable?) = lock.withLock {
            switch phase {
            case .pending:
                phase = .disposed
                return (true, nil)
            case .running:
                phase = .disposed
                return (false, nil)
            case .finished(let result):
                phase = .disposed
                return (false, result)
            case .disposed:
                return (false, nil)
            }
        }
        if wasQueued {
            // Outside the lock: the state's deinit may run arbitrary code.
            releasePayload()
            owner?.removeQueued(self)
        }
        result?.dispose()
    }

    /// Runs the action with its state, dropping both before returning.
    /// Called once, by the thread that moved the item to `running`.
    func invokeAndReleasePayload() -> Disposable {
        Disposables.create()
    }

    /// Drops the state and action of an item that will never run. Called
    /// once, by the thread that moved the item from `pending` to `disposed`.
    func releasePayload() {}
}

/// A queued action with its state: the concrete item, one allocation per schedule.
final class VirtualSchedulerAction<Converter: VirtualTimeConverterType, StateType>:
    VirtualSchedulerItem<Converter>, @unchecked Sendable
{
    private var state: StateType?
    private var action: ((StateType) -> Disposable)?

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

    override func invokeAndReleasePayload() -> Disposable {
        guard let action, let state else { return Disposables.create() }
        self.action = nil
        self.state = nil
        return action(state)
    }

    override func releasePayload() {
        action = nil
        state = nil
    }
}
