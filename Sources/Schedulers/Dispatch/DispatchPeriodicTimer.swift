import Dispatch
import Foundation
import Synchronization

/// A scheduler whose periodic jobs run natively on a repeating dispatch
/// timer (`DispatchPeriodicTimer`): the dispatch schedulers and
/// `OperationQueueScheduler`. `Scheduler.schedulePeriodic`, the one
/// implementation, starts the timer where the scheduler places it instead
/// of emulating.
protocol DispatchTimerScheduler: PeriodicScheduler {
    /// Where a new periodic job's timer fires and its ticks run. Asked once
    /// per job, after the period has been validated.
    func periodicPlacement() -> DispatchPeriodicPlacement
}

/// Where a native periodic job runs: what sets one dispatch-timer scheduler's
/// periodic jobs apart from another's.
struct DispatchPeriodicPlacement {
    /// Where a tick's action runs.
    enum TickExecution {
        /// On the timer's own (target) queue, inside the timer's handler.
        case onTimerQueue
        /// On this serial queue, enqueued through this gate when the timer
        /// fires (`DispatchQueueConfiguration`): a tick takes its place in
        /// the queue's order among the executor's jobs when it falls due.
        case throughGate(ExecutorBatchGate, DispatchQueue)
        /// As an operation on an operation queue, with this priority.
        case operationQueue(OperationQueue, Operation.QueuePriority)
    }

    /// The queue the timer fires on (for `.onTimerQueue`, the queue the action runs on).
    let timerQueue: DispatchQueue
    /// How late the system may fire the timer, so that it can coalesce wakeups.
    let leeway: DispatchTimeInterval
    /// Where each tick's action runs.
    let execution: TickExecution
}

/// Native periodic work on a repeating `DispatchSourceTimer`: the disposable
/// returned by the dispatch schedulers' `schedulePeriodic`.
///
/// - Fixed rate: libdispatch arms a repeating timer for `start + k * period`,
///   so a late tick does not push the later ones back.
/// - Ticks of one job never overlap (guarantee 6 in Guarantees.md), even on a
///   concurrent queue: the timer's handler is serial, and a tick handed to an
///   `OperationQueue` keeps the job in `ticking` until it has finished; a fire
///   that comes due meanwhile is skipped.
/// - No tick starts after `dispose()` returns (guarantee 6): each tick checks,
///   under the lock, that the job is not disposed before it takes the state.
///   A tick already started when `dispose()` is called completes (its action
///   may reach its first line just after `dispose()` returned; `dispose()`
///   does not wait for it); its result is dropped.
/// - The job runs until disposed: dropping the disposable does not stop it
///   (the armed timer keeps it alive, as in RxSwift). Disposing releases the
///   state and the action (guarantee 8 in Guarantees.md).
/// - `skippedTicks` counts the ticks that did not run: fires the dispatch
///   timer merged into one handler call (`data - 1` each time), plus fires
///   that came while the previous tick was still running, or, on a gated
///   queue, while a tick was waiting on the queue. With a zero period
///   the timer repeats at libdispatch's shortest interval (as RxSwift's does)
///   and nothing is counted: there are no due times to miss.
/// - A `.never` period ticks once, after `startAfter`, and never again (as
///   RxSwift's repeating dispatch timer with a `.never` interval); the job
///   holds its state until disposed.
final class DispatchPeriodicTimer<StateType>: PeriodicDisposable, @unchecked Sendable {
    private enum Phase {
        /// Between ticks: the state the next tick receives.
        case waiting(StateType)
        /// A tick has taken the state and is running the action.
        case ticking
        /// Disposed: no tick starts any more.
        case disposed
    }

    private let lock = Lock()
    private var phase: Phase
    private var action: ((StateType) -> StateType)?
    private var skipped = 0
    /// The operation of the current tick, when ticks go to an operation
    /// queue: `dispose()` cancels it, so a queued tick releases its state at
    /// once even if the queue is suspended.
    private var tickOperation: Operation?
    private let timer: HandOffTimer
    /// Whether fires that did not run count in `skippedTicks`: not with a zero
    /// period, which has no due times to miss.
    private let countsSkips: Bool
    /// On a gated queue: fires not yet handed to a tick, and whether a tick
    /// is on the queue to take them. Guarded by `lock`.
    private var forwardedFires = 0
    private var tickForwarded = false

    /// Creates and starts the job.
    ///
    /// - Parameters:
    ///   - placement: Where the timer fires and the ticks run.
    ///   - startAfter: Nanoseconds to the first tick (already clamped to zero), or `nil` for never.
    ///   - periodNanoseconds: The validated period; zero repeats the timer at
    ///     libdispatch's shortest interval (1 ns, as libdispatch itself turns a
    ///     zero interval into), and then no fire counts as skipped; `nil`
    ///     (`.never`) fires once.
    init(
        state: StateType,
        placement: DispatchPeriodicPlacement,
        startAfter: Int64?,
        periodNanoseconds: Int64?,
        action: @escaping (StateType) -> StateType
    ) {
        // The schedule counts from the call, not from when the timer source
        // is ready: creating it can take a while on a loaded machine, and
        // that delay would shift every tick.
        let called = SyncPoint.dispatchNow()
        phase = .waiting(state)
        self.action = action
        countsSkips = (periodNanoseconds ?? 0) > 0
        timer = HandOffTimer(queue: placement.timerQueue)
        // TIMER-SLACK: the kernel's timer slack (50 µs by default on Linux,
        // prctl PR_SET_TIMERSLACK) stretches sleeps with a timeout (nanosleep,
        // poll, futex), but libdispatch on Linux arms its timers with timerfd,
        // whose expiry ignores slack: lowering the slack of every dispatch
        // thread leaves a timer's lateness unchanged (Performance.md,
        // "Periodic timers and timer slack"). So the slack is left alone;
        // `leeway` (zero by default) is the knob that counts.
        let deadline: DispatchTime = startAfter.map { called + .nanoseconds(Int($0)) } ?? .distantFuture
        let repeating: DispatchTimeInterval = periodNanoseconds.map { .nanoseconds(Int(max(1, $0))) } ?? .never
        timer.schedule(deadline: deadline, repeating: repeating, leeway: placement.leeway)
        // The handler holds the job until `dispose()` cancels the timer, which
        // releases the handler: the cycle lasts exactly as long as the job.
        switch placement.execution {
        case .onTimerQueue:
            timer.setEventHandler { [self] in
                fireOnTimerQueue()
            }
        case .operationQueue(let queue, let priority):
            timer.setEventHandler { [self] in
                fireOnOperationQueue(queue, priority: priority)
            }
        case .throughGate(let gate, let queue):
            // Made once per job; it holds the job until it has run, and the
            // handler holds it until the timer is cancelled.
            let tick: @Sendable @convention(block) () -> Void = { [self] in
                runForwardedTick()
            }
            timer.setEventHandler { [self] in
                forwardFire(through: gate, to: queue, tick: tick)
            }
        }
        timer.activate()
    }

    /// Validates `period`, then creates and starts the job on the timer
    /// `placement` gives (asked after the validation).
    ///
    /// A `.never` period ticks once, after `startAfter`.
    ///
    /// - Precondition: `period` is zero or positive (finite, or `.never`); a
    ///   negative period stops the program with a message naming `period`.
    convenience init(
        state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        placement: @autoclosure () -> DispatchPeriodicPlacement,
        action: @escaping (StateType) -> StateType
    ) {
        let periodNanoseconds = period.validatedPeriodNanoseconds(argument: "period")
        self.init(
            state: state, placement: placement(), startAfter: startAfter.dueNanoseconds,
            periodNanoseconds: periodNanoseconds, action: action)
    }

    var skippedTicks: Int {
        lock.withLock { skipped }
    }

    var isDisposed: Bool {
        lock.withLock {
            if case .disposed = phase { return true }
            return false
        }
    }

    /// Stops the job: no tick starts after this returns.
    func dispose() {
        let released: (StateType?, ((StateType) -> StateType)?, Operation?)? = lock.withLock {
            let state: StateType?
            switch phase {
            case .disposed:
                return nil
            case .waiting(let waiting):
                state = waiting
            case .ticking:
                #if SCHEDULERS_MUTANTS
                if Mutant.active == .periodicMissedCancel {
                    // The mutant: leaves the job to the running tick.
                    return nil
                }
                #endif
                state = nil
            }
            phase = .disposed
            let action = self.action
            self.action = nil
            let operation = tickOperation
            tickOperation = nil
            return (state, action, operation)
        }
        guard let released else { return }
        timer.cancel()
        // A queued tick that has not started never will: let the queue drop it.
        released.2?.cancel()
        // `released` drops the state and the action here, outside the lock:
        // their deinitialisers may call back into this job.
    }

    // MARK: - Ticks

    private func fireOnTimerQueue() {
        guard let (state, action) = beginTick(fires: Int(clamping: timer.data)) else { return }
        finishTick(with: action(state))
    }

    /// The timer fired, on `DispatchQueueConfiguration.timerFireQueue`: the
    /// fires wait for a tick, and unless one is on the queue already, a tick
    /// is enqueued on it through the gate (fires that come while it waits
    /// join it, counted as skipped, as the timer merges fires).
    private func forwardFire(
        through gate: ExecutorBatchGate, to queue: DispatchQueue,
        tick: @escaping @Sendable @convention(block) () -> Void
    ) {
        let fires = Int(clamping: timer.data)
        let enqueues: Bool = lock.withLock {
            if case .disposed = phase { return false }
            forwardedFires += fires
            guard !tickForwarded else { return false }
            tickForwarded = true
            return true
        }
        guard enqueues else { return }
        gate.enqueueFiredTimer {
            if !SyncPoint.controllerTook(tick, for: queue) {
                queue.async(execute: tick)
            }
        }
    }

    /// A tick enqueued through the gate, on the queue: takes the fires
    /// forwarded so far, so a fire from now on enqueues the next tick.
    private func runForwardedTick() {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .timerLostWakeup {
            // The mutant: the tick says it is no longer on the queue only
            // after running, in a critical section of its own, so a fire
            // during the tick finds one forwarded, adds to the fires and
            // enqueues nothing: its wake-up is lost until a later fire.
            let fires: Int = lock.withLock {
                let fires = forwardedFires
                forwardedFires = 0
                return fires
            }
            if let (state, action) = beginTick(fires: fires) {
                finishTick(with: action(state))
            }
            lock.withLock { tickForwarded = false }
            return
        }
        #endif
        let fires: Int = lock.withLock {
            let fires = forwardedFires
            forwardedFires = 0
            tickForwarded = false
            return fires
        }
        guard let (state, action) = beginTick(fires: fires) else { return }
        finishTick(with: action(state))
    }

    private func fireOnOperationQueue(_ queue: OperationQueue, priority: Operation.QueuePriority) {
        guard let (state, action) = beginTick(fires: Int(clamping: timer.data)) else { return }
        let operation = PeriodicTickOperation(job: self, state: state, action: action)
        operation.queuePriority = priority
        let submit: Bool = lock.withLock {
            guard case .ticking = phase else { return false }
            tickOperation = operation
            return true
        }
        // Disposed since the tick began: the operation, and the state in it, are dropped.
        guard submit else { return }
        SyncPoint.handOff(to: queue, operation)
    }

    /// Takes the state for a tick, or says why there is none: disposed, or
    /// the previous tick still running (then this fire is skipped).
    private func beginTick(fires: Int) -> (StateType, (StateType) -> StateType)? {
        lock.withLock {
            if countsSkips {
                skipped += max(0, fires - 1)
            }
            switch phase {
            case .waiting(let state):
                guard let action else { return nil }
                phase = .ticking
                return (state, action)
            case .ticking:
                if countsSkips {
                    skipped += 1
                }
                return nil
            case .disposed:
                return nil
            }
        }
    }

    /// Whether a tick handed to an operation queue may still start: `false`
    /// once the job is disposed.
    fileprivate func tickMayStart() -> Bool {
        lock.withLock {
            if case .ticking = phase { return true }
            return false
        }
    }

    /// Stores the state for the next tick; after `dispose()` it is dropped.
    fileprivate func finishTick(with state: StateType) {
        let dropped: (StateType?, Operation?) = lock.withLock {
            let operation = tickOperation
            tickOperation = nil
            guard case .ticking = phase else { return (state, operation) }
            phase = .waiting(state)
            return (nil, operation)
        }
        _ = dropped
    }

    /// A tick that never ran (its operation was cancelled): the state is kept
    /// for the next tick and the tick counts as skipped.
    fileprivate func abandonTick(keeping state: StateType) {
        let dropped: (StateType?, Operation?) = lock.withLock {
            let operation = tickOperation
            tickOperation = nil
            guard case .ticking = phase else { return (state, operation) }
            if countsSkips { skipped += 1 }
            phase = .waiting(state)
            return (nil, operation)
        }
        _ = dropped
    }
}

/// One tick of a periodic job handed to an `OperationQueue`.
///
/// Exactly one of `main()` and `cancel()` settles the tick: the action runs
/// and its result becomes the next state, or (cancelled before it started,
/// for example by `cancelAllOperations()`) the tick is abandoned and counted
/// as skipped, the job going on with the same state.
private final class PeriodicTickOperation<StateType>: Operation, @unchecked Sendable {
    private let settled = SyncAtomic<Bool>(false)
    // Read only by whichever of main()/cancel() wins `settled`.
    private var job: DispatchPeriodicTimer<StateType>?
    private var state: StateType?
    private var action: ((StateType) -> StateType)?

    init(job: DispatchPeriodicTimer<StateType>, state: StateType, action: @escaping (StateType) -> StateType) {
        self.job = job
        self.state = state
        self.action = action
    }

    override func main() {
        guard !settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Set in init, cleared only here or in cancel(), by the one winner of `settled`.
        let job = self.job!
        let state = self.state!
        let action = self.action!
        self.job = nil
        self.state = nil
        self.action = nil
        // Queued before `dispose()`, started after it: must not start.
        guard job.tickMayStart() else { return }
        job.finishTick(with: action(state))
    }

    override func cancel() {
        super.cancel()
        guard !settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Set in init, cleared only here or in main(), by the one winner of `settled`.
        let job = self.job!
        let state = self.state!
        self.job = nil
        self.state = nil
        self.action = nil
        job.abandonTick(keeping: state)
    }
}
