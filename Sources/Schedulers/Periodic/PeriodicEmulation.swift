extension Scheduler {
    /// Runs `action` first after `startAfter`, then every `period`: natively
    /// on the library's dispatch schedulers and `OperationQueueScheduler`, by
    /// emulation on every other scheduler (the default for every scheduler
    /// without a native timer).
    ///
    /// - Native: a repeating dispatch timer, fixed rate, placed where the
    ///   scheduler says (each scheduler documents where its ticks run). It
    ///   returns a `PeriodicDisposable` (cast to read `skippedTicks`); no tick
    ///   starts after `dispose()` returns, and ticks never overlap (guarantee
    ///   6). A zero period, as in RxSwift, repeats the timer at libdispatch's
    ///   shortest interval, and no tick counts as skipped.
    /// - Emulated: the same as
    ///   `schedulePeriodicEmulated(_:startAfter:period:missedTicks:action:)`
    ///   with `missedTicks: .default` (catch up a short backlog, skip a
    ///   stall); see there for timing, zero periods and disposal.
    ///
    /// A `.never` period ticks once, after `startAfter`, and never again, as
    /// RxSwift's periodic scheduling does (and `Observable.timer(_:period:scheduler:)`
    /// with a `.never` period); `interval(.never, scheduler:)` never ticks.
    ///
    /// - Precondition: `period` is zero or positive (finite, or `.never`); a
    ///   negative period stops the program with a message naming `period`.
    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        // A cast, not a requirement: the native schedulers are the library's
        // own (`DispatchTimerScheduler` is internal), and this runs once per job.
        if let native = self as? any DispatchTimerScheduler {
            return DispatchPeriodicTimer(
                state: state, startAfter: startAfter, period: period,
                placement: native.periodicPlacement(), action: action)
        }
        return schedulePeriodicEmulated(state, startAfter: startAfter, period: period, action: action)
    }

    /// Runs `action` periodically by recursive relative scheduling, at a fixed
    /// rate on this scheduler's monotonic clock, even on a scheduler that has
    /// a native periodic timer (so the two can be compared).
    ///
    /// Timing: tick `k` (from 0) is due at `start + k·period`, where `start`
    /// is `monotonicNanoseconds` at the call plus `startAfter`. When a tick
    /// returns, the next one is scheduled with `scheduleRelative` for its due
    /// time minus the current time, so a late tick never delays the ones after
    /// it: lateness does not accumulate into drift. When a tick returns after
    /// later due times have already passed, `missedTicks` decides (see
    /// `MissedTickPolicy`): the default, `.default`, runs a short backlog at
    /// once, back to back, and drops a stall (more than 10 ticks and more than
    /// 100 ms overdue), counting what it dropped in `skippedTicks`; `.catchUp`
    /// runs every missed tick; `.skip` drops every missed tick. A due time
    /// equal to the current time is not missed: that tick runs at once, under
    /// every policy. Due times are on the monotonic clock, so a change of the
    /// wall clock never makes ticks due.
    ///
    /// A zero period (accepted, as in RxSwift) has no grid: each tick is
    /// scheduled with `scheduleRelative` and a zero delay once the previous
    /// one has returned, so the job ticks as often as the scheduler runs work
    /// that is due now, never inline, and never skips. On `TestScheduler`
    /// (with its default processing delay) that is once per virtual tick. On a
    /// virtual-time scheduler that runs work due now without moving its clock
    /// (`HistoricalScheduler`, `TestScheduler(simulateProcessingDelay: false)`)
    /// the clock could never move again, so there a zero period stops the
    /// program with a message naming `period` instead of hanging.
    ///
    /// Each run receives the state the previous run returned. Ticks never
    /// overlap: the next tick is scheduled only after the current one returns.
    ///
    /// Disposal (guarantee 6 in Guarantees.md): once `dispose()` returns, no tick
    /// starts; a tick already started (it took its state under the job's lock)
    /// completes, and its action may reach its first line just after
    /// `dispose()` returned; `dispose()` does not wait for it (see
    /// `PeriodicDisposable`). Disposing releases the action and the state
    /// (guarantee 8). Until then the job keeps the scheduler alive, as any
    /// pending timer does: dispose it, or it runs on.
    ///
    /// A tick whose scheduled action the scheduler drops without running it
    /// (an `OperationQueueScheduler` whose queue cancelled its operations) is
    /// skipped and counted in `skippedTicks`; the next tick is scheduled and
    /// receives the same state.
    ///
    /// A negative `startAfter` counts as zero; `.never` means no tick ever runs.
    /// A `.never` period ticks once, after `startAfter`, and never again.
    /// On a scheduler that runs work due now a little later (`TestScheduler`'s
    /// processing delay), a first tick due at once (a zero or negative
    /// `startAfter`) runs that much later and `start` is that time, so the
    /// grid follows the first tick, as in RxSwift: on `TestScheduler` a job
    /// with period 1 made at 200 ticks at 201, 202, 203.
    ///
    /// - Precondition: `period` is zero or positive (finite, or `.never`); a
    ///   negative period stops the program with a message naming `period`.
    public func schedulePeriodicEmulated<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        missedTicks: MissedTickPolicy = .default,
        action: @escaping (StateType) -> StateType
    ) -> PeriodicDisposable {
        let periodNanoseconds = period.validatedPeriodNanoseconds(argument: "period")
        if periodNanoseconds == 0, let virtual = self as? any ZeroDelayProgress {
            precondition(
                virtual.zeroDelayMovesClock,
                "period is zero, but this virtual-time scheduler runs work due now without moving its clock, so the ticks would never let time pass; use a positive period, or a TestScheduler with simulateProcessingDelay"
            )
        }
        let startDelay = startAfter.dueNanoseconds
        let now = Int64(clamping: monotonicNanoseconds)
        var firstTickDelay = startDelay ?? 0
        if firstTickDelay == 0, (periodNanoseconds ?? 0) > 0, let lagging = self as? any ZeroDelayProgress {
            // Work due now runs this much later here (TestScheduler's
            // processing delay): so does the first tick, and the grid starts
            // where it runs, as RxSwift's does.
            firstTickDelay = lagging.zeroDelayLagNanoseconds
        }
        let job = EmulatedPeriodicJob(
            scheduler: self,
            state: state,
            startNanoseconds: now.addingSaturating(firstTickDelay),
            periodNanoseconds: periodNanoseconds,
            missedTicks: missedTicks,
            action: action
        )
        if let startDelay {
            job.scheduleTick(0, delayNanoseconds: startDelay)
        }
        return job
    }
}

extension Int64 {
    /// `self + other`, clamped to `Int64.max` / `Int64.min` instead of trapping.
    func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
