/// The state machine behind `schedulePeriodicEmulated`: one fixed-rate
/// periodic job, run by recursive relative scheduling.
///
/// Tick `k` is due at `start + k·period` on the scheduler's monotonic clock;
/// with a zero period there is no grid: each tick is scheduled with a zero
/// delay once the previous one has returned; with a `.never` period
/// (`periodNanoseconds` `nil`) tick 0 is the only one. The lock guards `phase`, the action, the state and the skipped count; the
/// action runs outside it. Transitions:
///
/// - `waiting(k)` → `ticking(k)`: the scheduled tick starts (`beginTick`);
/// - `ticking(k)` → `waiting(k')`: the tick returned; tick `k'` is scheduled,
///   or, when it is already due, starts at once through `beginTick` again;
/// - `waiting(k)` → `waiting(k')`: the scheduler dropped tick `k`'s action
///   without running it (`scheduledActionWasDropped`); `k` counts as skipped
///   and tick `k'` is scheduled, as if `k` had returned at once;
/// - any → `disposed`: `dispose()`; a running tick completes, none begins.
final class EmulatedPeriodicJob<SchedulerKind: Scheduler, State>: PeriodicDisposable, DroppedActionHandling,
    @unchecked Sendable
{
    private enum Phase {
        /// Tick `tick` is due; `pending` is its scheduled action, once
        /// `scheduleRelative` has returned it.
        case waiting(tick: Int64, pending: Disposable?)
        /// Tick `tick` is running.
        case ticking(tick: Int64)
        /// Disposed: no tick starts any more.
        case disposed
    }

    /// Whether a tick may start, with what it needs to run.
    private enum TickStart {
        case run(tick: Int64, action: (State) -> State, state: State)
        case disposed
    }

    /// What follows a tick whose action has returned.
    private enum NextStep {
        /// Disposed during the tick.
        case stop
        /// The next tick is due now, or missed and caught up: run it at once.
        case runNow
        /// The next tick is due in `delayNanoseconds`.
        case schedule(tick: Int64, delayNanoseconds: Int64)
    }

    private let scheduler: SchedulerKind
    private let startNanoseconds: Int64
    /// The period; 0 for a `.never` period, which `ticksOnce` marks.
    private let periodNanoseconds: Int64
    /// A `.never` period: after tick 0 the job only waits to be disposed.
    private let ticksOnce: Bool
    /// A backlog is dropped only when it holds more than `catchUpTicks` ticks
    /// and its oldest tick is more than `catchUpNanoseconds` overdue: both
    /// `Int64.max` for `.catchUp`, both 0 for `.skip`.
    private let catchUpTicks: Int64
    private let catchUpNanoseconds: Int64
    private let lock = Lock()
    // Guarded by `lock`.
    private var phase = Phase.waiting(tick: 0, pending: nil)
    private var action: ((State) -> State)?
    private var state: State?
    private var skipped = 0

    init(
        scheduler: SchedulerKind,
        state: State,
        startNanoseconds: Int64,
        periodNanoseconds: Int64?,
        missedTicks: MissedTickPolicy,
        action: @escaping (State) -> State
    ) {
        self.scheduler = scheduler
        self.state = state
        self.startNanoseconds = startNanoseconds
        self.periodNanoseconds = periodNanoseconds ?? 0
        ticksOnce = periodNanoseconds == nil
        switch missedTicks {
        case .catchUp:
            (catchUpTicks, catchUpNanoseconds) = (.max, .max)
        case .skip:
            (catchUpTicks, catchUpNanoseconds) = (0, 0)
        case .boundedCatchUp(let maxTicks, let maxDuration):
            catchUpTicks = Int64(max(0, maxTicks))
            catchUpNanoseconds = maxDuration.dueNanoseconds ?? .max
        }
        self.action = action
    }

    var isDisposed: Bool {
        lock.withLock {
            if case .disposed = phase { return true }
            return false
        }
    }

    var skippedTicks: Int {
        lock.withLock { skipped }
    }

    func dispose() {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .emulatedPeriodicUnlockedRead, case .disposed = phase {
            // The mutant: a fast path that reads `phase` without its lock.
            return
        }
        #endif
        let released: (pending: Disposable?, action: ((State) -> State)?, state: State?) =
            lock.withLock {
                let pending: Disposable?
                switch phase {
                case .disposed:
                    return (nil, nil, nil)
                case .waiting(_, let scheduled):
                    pending = scheduled
                case .ticking:
                    pending = nil
                }
                phase = .disposed
                let released = (pending, action, state)
                action = nil
                state = nil
                return released
            }
        // The action and state die here, outside the lock: their deinit may run arbitrary code.
        released.pending?.dispose()
    }

    /// Schedules tick `tick` to run after `delayNanoseconds`. Called while
    /// `phase` is `waiting(tick, nil)` or, for the first tick, from the start.
    func scheduleTick(_ tick: Int64, delayNanoseconds: Int64) {
        let pending = scheduler.scheduleRelative(self, dueTime: .nanoseconds(Int(delayNanoseconds))) { job in
            job.runTicks()
            return Disposables.create()
        }
        let disposedMeanwhile: Bool = lock.withLock {
            switch phase {
            case .waiting(let waitingTick, nil) where waitingTick == tick:
                phase = .waiting(tick: tick, pending: pending)
                return false
            case .disposed:
                return true
            case .waiting, .ticking:
                // The tick already started (on another thread): `pending` is spent.
                return false
            }
        }
        if disposedMeanwhile {
            pending.dispose()
        }
    }

    /// The scheduled action: runs the due tick, then at once any tick that is
    /// due now or missed and caught up, then schedules the next one.
    private func runTicks() {
        while case .run(let tick, let action, let state) = beginTick() {
            let newState = action(state)
            switch finishTick(tick, newState: newState) {
            case .stop:
                return
            case .runNow:
                continue
            case .schedule(let nextTick, let delayNanoseconds):
                scheduleTick(nextTick, delayNanoseconds: delayNanoseconds)
                return
            }
        }
    }

    /// `waiting(k)` → `ticking(k)`, handing out the action and state, or `.disposed`
    /// once disposed. Checked under the lock at the start of every tick, so no
    /// tick starts after `dispose()` has returned; the action is called right
    /// after, outside the lock, so a tick that started just before `dispose()`
    /// may reach the action's first line just after it returned.
    private func beginTick() -> TickStart {
        lock.withLock {
            guard case .waiting(let tick, _) = phase, let action, let state else { return .disposed }
            phase = .ticking(tick: tick)
            return .run(tick: tick, action: action, state: state)
        }
    }

    /// After tick `tick` returned `newState`: `ticking(k)` → `waiting(k')`,
    /// saying whether tick `k'` runs at once or must be scheduled.
    private func finishTick(_ tick: Int64, newState: State) -> NextStep {
        let (next, missed, delay) = tickAfter(tick)
        let stillActive: Bool = lock.withLock {
            guard case .ticking = phase else { return false }
            state = newState
            skipped += missed
            phase = .waiting(tick: next, pending: nil)
            return true
        }
        guard stillActive, !ticksOnce else { return .stop }
        if periodNanoseconds == 0 {
            return .schedule(tick: next, delayNanoseconds: 0)
        }
        return delay <= 0 ? .runNow : .schedule(tick: next, delayNanoseconds: delay)
    }

    /// The tick to run after `tick`, once `tick` is over now: how many due
    /// times the missed-tick policy drops on the way, and the delay until the
    /// next tick is due (zero or less: due now, or missed and caught up).
    private func tickAfter(_ tick: Int64) -> (next: Int64, missed: Int, delay: Int64) {
        if periodNanoseconds == 0 {
            // No grid: the next tick goes through the scheduler, never inline,
            // so other work (and a virtual clock) can move between ticks.
            return (tick + 1, 0, 0)
        }
        let now = Int64(clamping: scheduler.monotonicNanoseconds)
        var first = tick + 1
        var dropped = 0
        let oldestDue = dueNanoseconds(of: first)
        if oldestDue < now {
            let firstNotPassed = firstTick(dueAtOrAfter: now)
            let backlog = firstNotPassed - first
            if backlog > catchUpTicks, now - oldestDue > catchUpNanoseconds {
                dropped = Int(clamping: backlog)
                first = firstNotPassed
            }
        }
        return (first, dropped, dueNanoseconds(of: first) - now)
    }

    /// The scheduler dropped the action of the waiting tick without running
    /// it (an `OperationQueueScheduler` whose queue cancelled its operations):
    /// that tick is skipped and counted, as the native timer counts a
    /// cancelled tick, and the job goes on with the same state. The next
    /// tick is always scheduled, never run here, inside the queue's cancel.
    func scheduledActionWasDropped() {
        let waiting: Int64? = lock.withLock {
            guard case .waiting(let tick, _) = phase else { return nil }
            return tick
        }
        guard let waiting else { return }
        let (next, missed, delay) = tickAfter(waiting)
        let goesOn: Bool = lock.withLock {
            guard case .waiting(let tick, _) = phase, tick == waiting else { return false }
            // A zero period has no due times to miss, so nothing counts (as natively).
            skipped += missed + (periodNanoseconds > 0 ? 1 : 0)
            phase = .waiting(tick: next, pending: nil)
            return true
        }
        if goesOn, !ticksOnce {
            scheduleTick(next, delayNanoseconds: max(0, delay))
        }
    }

    /// `start + tick·period`, saturating.
    private func dueNanoseconds(of tick: Int64) -> Int64 {
        let (offset, overflow) = tick.multipliedReportingOverflow(by: periodNanoseconds)
        return overflow ? .max : startNanoseconds.addingSaturating(offset)
    }

    /// The first tick whose due time is not before `time` (`time` ≥ start).
    private func firstTick(dueAtOrAfter time: Int64) -> Int64 {
        let elapsed = time - startNanoseconds
        let (whole, remainder) = elapsed.quotientAndRemainder(dividingBy: periodNanoseconds)
        return remainder == 0 ? whole : whole + 1
    }
}
