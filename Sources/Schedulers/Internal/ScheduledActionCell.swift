import Synchronization

/// Where one scheduled action is in its life: `pending` → `running` →
/// `finished`, or `disposed` from any of them.
///
/// The runner and a disposer race for `pending`, and exactly one wins; a
/// disposer that finds `running` leaves the runner to dispose the action's
/// result when `finish()` fails; one that finds `finished` disposes the
/// result itself. Whoever moves the phase out of `pending` owns the state and
/// the action.
@usableFromInline
struct ScheduledActionPhase: ~Copyable, Sendable {
    /// The phase `dispose()` found.
    @usableFromInline
    enum Previous: Int {
        case pending, running, finished, disposed
    }

    @usableFromInline
    let value = SyncAtomic<Int>(Previous.pending.rawValue)

    @inlinable
    init() {}

    /// Whether `dispose()` has been called.
    @inlinable
    var isDisposed: Bool {
        value.load(ordering: .acquiring) == Previous.disposed.rawValue
    }

    /// The runner claims the action; `false` when a disposer came first.
    @inlinable
    func begin() -> Bool {
        move(from: .pending, to: .running)
    }

    /// The runner publishes the action's result; `false` when a disposer came
    /// while it ran, so the runner must dispose the result itself.
    @inlinable
    func finish() -> Bool {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .cellPublishByStore {
            value.store(Previous.finished.rawValue, ordering: .releasing)
            return true
        }
        #endif
        return move(from: .running, to: .finished)
    }

    @inlinable
    func move(from expected: Previous, to desired: Previous) -> Bool {
        value.compareExchange(
            expected: expected.rawValue, desired: desired.rawValue, ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// Marks the action disposed and says what it found.
    @inlinable
    func dispose() -> Previous {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .brokenCell {
            let found = value.load(ordering: .acquiring)
            value.store(Previous.disposed.rawValue, ordering: .releasing)
            return Previous(rawValue: found)!
        }
        #endif
        // Always a valid raw value: only `Previous` raw values are ever stored.
        return Previous(rawValue: value.exchange(Previous.disposed.rawValue, ordering: .acquiringAndReleasing))!
    }

    /// Makes a finished or disposed phase pending again, for an item reused
    /// by the one thread that can still reach it.
    @inlinable
    func reset() {
        value.store(Previous.pending.rawValue, ordering: .relaxed)
    }
}

/// The run-once life of one scheduled action, written once for every
/// scheduler's item (trampoline, dispatch, operation queue, virtual time):
/// its phase, the hand-off of its state, action and result between the
/// thread that runs it and a thread that disposes it, running it, and
/// disposing it.
///
/// The contract it keeps for all of them: disposed before it starts, the
/// action never runs, and its state and action are released at once;
/// disposed while it runs, it finishes, is not run again, and what it
/// returned is disposed as soon as it returns; disposed after it finished,
/// what it returned is disposed at once. `runAction()` is called at most
/// once; `disposeAction()` any number of times, from any thread.
///
/// A conforming class only stores the four fields; the stored fields, not
/// one stored struct, so that each thread writes only the fields the phase
/// has handed it (a struct would be modified as a whole, by both threads).
@usableFromInline
protocol ScheduledActionCell: AnyObject {
    associatedtype State
    /// Decides who owns the fields below.
    var phase: ScheduledActionPhase { get }
    /// Read and cleared by whichever thread moves the phase out of
    /// `pending`: the runner (to `running`) or the disposer (to `disposed`).
    var state: State? { get set }
    var action: ((State) -> Disposable)? { get set }
    /// Written by the runner before it publishes `finished`; read afterwards
    /// only by the one `disposeAction()` that finds `finished`.
    var result: Disposable? { get set }
    /// Called once, by the disposer that wins over a pending action.
    func didDisposeBeforeRun()
    /// Whether that disposer releases the state and the action at once
    /// (`true`), or leaves them to the runner, which releases them when it
    /// finds the action disposed (`false`: the trampoline's item, whose own
    /// thread may read them without the phase once nothing else holds it).
    static var disposerReleasesPendingAction: Bool { get }
}

extension ScheduledActionCell {
    @inlinable
    func didDisposeBeforeRun() {}

    @inlinable
    static var disposerReleasesPendingAction: Bool {
        true
    }

    /// Whether the action has been disposed.
    @inlinable
    var isActionDisposed: Bool {
        phase.isDisposed
    }

    /// Runs the action unless it was disposed first; `false` when it was.
    @inlinable
    @discardableResult
    func runAction() -> Bool {
        guard phase.begin() else {
            // Disposed first: the disposer owns state and action, and has
            // released them unless it left that to the runner.
            if !Self.disposerReleasesPendingAction {
                state = nil
                action = nil
            }
            return false
        }
        // Both set until the phase leaves `pending`, which `begin()` just did.
        let disposable = action!(state!)
        state = nil
        action = nil
        result = disposable
        if !phase.finish() {
            // Disposed while running: the action finished; dispose what it returned.
            result = nil
            disposable.dispose()
        }
        return true
    }

    /// Disposes the action: skips it if pending, else disposes what it
    /// returned once it has returned.
    @inlinable
    func disposeAction() {
        switch phase.dispose() {
        case .pending:
            // Won against the runner, which will not touch these any more:
            // release the state and action now, not when the item is dropped.
            didDisposeBeforeRun()
            if Self.disposerReleasesPendingAction {
                state = nil
                action = nil
            }
        case .finished:
            let disposable = result
            result = nil
            disposable?.dispose()
        case .running, .disposed:
            break
        }
    }
}
