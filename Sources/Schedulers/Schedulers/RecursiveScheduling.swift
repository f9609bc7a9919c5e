import Dispatch

extension ImmediateScheduler {
    /// Schedules `action`, which may schedule itself again through `recurse`.
    ///
    /// On `CurrentThreadScheduler` each `recurse` call is queued on the
    /// trampoline and runs after the current action returns, so a chain of any
    /// length runs in constant stack space. Disposing the returned disposable
    /// cancels the pending recursions; an action already running finishes.
    ///
    /// - Parameters:
    ///   - state: The state for the first run.
    ///   - action: Receives the state and a `recurse` function that schedules
    ///     the next run with a new state.
    public func scheduleRecursive<State>(
        _ state: State,
        action: @escaping (_ state: State, _ recurse: (State) -> Void) -> Void
    ) -> Disposable {
        let recursive = AnyRecursiveScheduler<State>(immediate: self, action: action)
        recursive.schedule(state)
        return recursive
    }
}

extension Scheduler {
    /// Schedules `action` after `dueTime`; it may schedule itself again,
    /// each time with its own due time, through the `AnyRecursiveScheduler`
    /// it receives. Disposing the result cancels every pending run.
    public func scheduleRecursive<State>(
        _ state: State,
        dueTime: RxTimeInterval,
        action: @escaping (_ state: State, _ scheduler: AnyRecursiveScheduler<State>) -> Void
    ) -> Disposable {
        let recursive = AnyRecursiveScheduler<State>(relative: self, action: action)
        recursive.schedule(state, dueTime: dueTime)
        return recursive
    }
}

/// Schedules the next run of a recursive action, and cancels all pending runs on dispose.
///
/// Handed to the action of `scheduleRecursive(_:dueTime:action:)`; the
/// immediate form hands its action a plain `recurse` function instead.
public final class AnyRecursiveScheduler<State>: Cancelable, @unchecked Sendable {
    private enum Target {
        case immediate(ImmediateScheduler)
        case relative(Scheduler)
    }

    /// A scheduled run that has not started: its disposable arrives after
    /// `schedule` returns, which may be after the run has already started.
    private struct PendingRun {
        var id: UInt64
        var disposable: Disposable?
    }

    private let target: Target
    private let lock = Lock()
    private var action: ((State, AnyRecursiveScheduler<State>) -> Void)?
    private var pending: [PendingRun] = []
    private var nextID: UInt64 = 0
    private var disposed = false
    // Allocated once and handed to every run of an immediate action.
    private lazy var recurse: (State) -> Void = { [unowned self] state in
        self.schedule(state)
    }

    fileprivate init(
        immediate scheduler: ImmediateScheduler,
        action: @escaping (State, (State) -> Void) -> Void
    ) {
        target = .immediate(scheduler)
        self.action = { state, recursive in action(state, recursive.recurse) }
    }

    fileprivate init(
        relative scheduler: Scheduler,
        action: @escaping (State, AnyRecursiveScheduler<State>) -> Void
    ) {
        target = .relative(scheduler)
        self.action = action
    }

    /// Whether the recursion has been disposed.
    public var isDisposed: Bool {
        lock.withLock { disposed }
    }

    /// Schedules the next run with `state`, after `dueTime` on a timed
    /// scheduler (at once on an immediate one).
    public func schedule(_ state: State, dueTime: RxTimeInterval) {
        scheduleRun(state, dueTime: dueTime)
    }

    /// Schedules the next run with `state` as soon as the scheduler allows.
    public func schedule(_ state: State) {
        scheduleRun(state, dueTime: nil)
    }

    private func scheduleRun(_ state: State, dueTime: RxTimeInterval?) {
        let id: UInt64? = lock.withLock {
            guard !disposed else { return nil }
            nextID &+= 1
            pending.append(PendingRun(id: nextID, disposable: nil))
            return nextID
        }
        guard let id else { return }
        // The closures capture nothing, so scheduling allocates no closure.
        let disposable: Disposable
        switch (target, dueTime) {
        case (.relative(let scheduler), let dueTime?):
            disposable = scheduler.scheduleRelative((self, id, state), dueTime: dueTime) { run in
                run.0.run(id: run.1, state: run.2)
            }
        case (.relative(let scheduler as ImmediateScheduler), _), (.immediate(let scheduler), _):
            disposable = scheduler.schedule((self, id, state)) { run in
                run.0.run(id: run.1, state: run.2)
            }
        }
        let stillPending: Bool = lock.withLock {
            guard let index = pending.firstIndex(where: { $0.id == id }) else { return false }
            pending[index].disposable = disposable
            return true
        }
        if !stillPending && isDisposed {
            disposable.dispose()
        }
    }

    private func run(id: UInt64, state: State) -> Disposable {
        let action: ((State, AnyRecursiveScheduler<State>) -> Void)? = lock.withLock {
            guard let index = pending.firstIndex(where: { $0.id == id }) else { return nil }
            pending.remove(at: index)
            return disposed ? nil : self.action
        }
        action?(state, self)
        return Disposables.create()
    }

    /// Cancels every pending run; a run already executing finishes.
    public func dispose() {
        let toDispose: [PendingRun] = lock.withLock {
            guard !disposed else { return [] }
            disposed = true
            action = nil
            let all = pending
            pending = []
            return all
        }
        for run in toDispose {
            run.disposable?.dispose()
        }
    }
}
