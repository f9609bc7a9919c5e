import Dispatch

extension ImmediateScheduler {
    /// Schedules `action`, which may schedule itself again through `recurse`.
    ///
    /// On `CurrentThreadScheduler` each `recurse` call is queued on the
    /// trampoline and runs after the current action returns, so a chain of any
    /// length runs in constant stack space; there a chain step allocates
    /// nothing and takes no lock (one object serves the whole recursion).
    /// Disposing it there from another thread while a step runs releases
    /// the action as soon as that step returns (guarantees 5 and 8 in Guarantees.md). Disposing the returned disposable
    /// cancels the pending recursions; an action already running finishes.
    ///
    /// - Parameters:
    ///   - state: The state for the first run.
    ///   - action: Receives the state and a `recurse` function that schedules
    ///     the next run with a new state.
    @inlinable
    public func scheduleRecursive<State>(
        _ state: State,
        action: @escaping (_ state: State, _ recurse: (State) -> Void) -> Void
    ) -> Disposable {
        if self is CurrentThreadScheduler {
            // The trampoline's own path: no allocation, no lock per step.
            return TrampolineRecursion.start(state, action: action)
        }
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
///
/// Keeps guarantee 5 in Guarantees.md: a run disposed before it starts never runs;
/// a run executing while `dispose()` is called finishes, and its `recurse` /
/// `schedule` calls are ignored. Guarantee 8: `dispose()` releases the action
/// at once, and a run that has executed keeps nothing alive.
///
/// A pending run keeps the recursion, and through it the scheduler, alive,
/// as in RxSwift: `_ = scheduler.scheduleRecursive(...)` keeps running even
/// when nothing else holds the scheduler. Disposing releases the action at
/// once and cancels the pending runs; a cancelled run that the scheduler
/// still holds keeps the recursion object (not its action) until the
/// scheduler drops it.
///
/// Cost of one recursion step: the scheduler's own allocation for the
/// scheduled action, nothing more (the run's bookkeeping reuses one array).
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

    /// The action, wrapped in a struct so that it crosses the generic
    /// `withLock` as a plain value: a bare closure would be reabstracted
    /// there and back, allocating two thunks per run.
    private struct Action {
        let body: (State, AnyRecursiveScheduler<State>) -> Void
    }

    /// What one scheduled run carries to the scheduler as its state: the
    /// recursion, which run it is, and the user's state. Holding the
    /// recursion here (not in a closure) keeps it alive while a run is
    /// pending and lets the scheduled action be one shared, capture-free
    /// closure.
    private struct Run {
        let recursion: AnyRecursiveScheduler<State>
        let id: UInt64
        let state: State
    }

    /// A scheduler action kept at the abstraction the generic `schedule`
    /// methods take, so passing it on needs no reabstraction thunk.
    private struct ScheduledAction<Argument> {
        let body: (Argument) -> Disposable
    }

    private let target: Target
    // Made once per recursion: a method reference of a generic class captures
    // its type metadata, so naming `Self.execute` at each step would allocate.
    private let executeRun = ScheduledAction<Run>(body: AnyRecursiveScheduler.execute)
    private let lock = Lock()
    // All mutable fields are touched only with `lock` held.
    private var action: Action?
    private var pending: [PendingRun] = []
    private var nextID: UInt64 = 0
    private var disposed = false

    @usableFromInline
    init(
        immediate scheduler: ImmediateScheduler,
        action: @escaping (State, (State) -> Void) -> Void
    ) {
        target = .immediate(scheduler)
        // `recurse` is non-escaping, so this closure literal lives on the stack.
        self.action = Action { state, recursion in
            action(state) { recursion.schedule($0) }
        }
    }

    fileprivate init(
        relative scheduler: Scheduler,
        action: @escaping (State, AnyRecursiveScheduler<State>) -> Void
    ) {
        target = .relative(scheduler)
        self.action = Action(body: action)
    }

    /// Whether the recursion has been disposed.
    public var isDisposed: Bool {
        lock.withLock { disposed }
    }

    /// Schedules the next run with `state`, after `dueTime` on a timed
    /// scheduler (at once on an immediate one). Does nothing once disposed.
    public func schedule(_ state: State, dueTime: RxTimeInterval) {
        scheduleRun(state, dueTime: dueTime)
    }

    /// Schedules the next run with `state` as soon as the scheduler allows.
    /// Does nothing once disposed.
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
        let run = Run(recursion: self, id: id, state: state)
        let disposable: Disposable
        switch target {
        case .relative(let scheduler):
            if let dueTime {
                disposable = scheduler.scheduleRelative(run, dueTime: dueTime, action: executeRun.body)
            } else {
                disposable = scheduler.schedule(run, action: executeRun.body)
            }
        case .immediate(let scheduler):
            disposable = scheduler.schedule(run, action: executeRun.body)
        }
        let stillPending: Bool = lock.withLock {
            guard let index = pendingIndex(of: id) else { return false }
            pending[index].disposable = disposable
            return true
        }
        if !stillPending && isDisposed {
            // Disposed between the two locks: `dispose()` could not see this disposable.
            disposable.dispose()
        }
    }

    /// Where the pending run `id` is; call with `lock` held. A plain loop, not
    /// `firstIndex(where:)`: unspecialised generic code (a debug build) reads
    /// collections through a coroutine whose frame is allocated per call.
    private func pendingIndex(of id: UInt64) -> Int? {
        var index = 0
        while index < pending.count {
            if pending[index].id == id {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The one scheduled action of every run.
    private static func execute(_ run: Run) -> Disposable {
        run.recursion.execute(id: run.id, state: run.state)
        return Disposables.create()
    }

    private func execute(id: UInt64, state: State) {
        let action: Action? = lock.withLock {
            guard let index = pendingIndex(of: id) else { return nil }
            pending.remove(at: index)
            return disposed ? nil : self.action
        }
        action?.body(state, self)
    }

    /// Cancels every pending run; a run already executing finishes.
    public func dispose() {
        let (toDispose, released): ([PendingRun], Action?) = lock.withLock {
            guard !disposed else { return ([], nil) }
            disposed = true
            let released = action
            action = nil
            let all = pending
            pending = []
            return (all, released)
        }
        for run in toDispose {
            run.disposable?.dispose()
        }
        // The action (and what it captured) dies here, outside the lock: its
        // deinits are user code, which may call back into this recursion.
        _ = consume released
    }
}
