/// What periodic emulation does when a tick ends after later ticks were already due.
///
/// Emulated periodic work is fixed-rate: tick `k` is due at `start + k·period`
/// on the scheduler's monotonic clock, whatever happened to earlier ticks. A
/// tick that runs late (the scheduler was busy or woke up late, or the action
/// took longer than a period) can leave one or more later due times in the
/// past: the backlog. This policy decides what happens to it. Whatever it
/// decides, the ticks after the backlog stay on the original grid: lateness
/// never turns into drift. Due times are on the monotonic clock, so changing
/// the wall clock never creates a backlog.
///
/// A due time equal to the current time is not missed: that tick runs at once
/// under every policy.
///
/// The default of `Scheduler.schedulePeriodic` (emulated) and of
/// `schedulePeriodicEmulated` is `MissedTickPolicy.default`: catch up a short
/// backlog, skip a stall.
public enum MissedTickPolicy: Sendable, Equatable {
    /// Runs every missed tick, back to back, as soon as the late tick returns;
    /// then continues at the next due time still in the future. No tick is
    /// lost, so the number of runs equals the number of due times passed, but
    /// the caught-up ticks run late and close together, however long the
    /// backlog (after a stall of an hour, an hour of ticks runs at once). The
    /// catch-up runs inside the late tick's scheduled action, so an action
    /// that always takes longer than a period keeps that action going and
    /// never yields the scheduler; prefer a bounded policy when that can happen.
    case catchUp

    /// Drops every tick whose due time already passed when the late tick
    /// returns and continues at the first due time not yet passed. Each dropped
    /// tick is counted in `PeriodicDisposable.skippedTicks`. Even a timer that
    /// wakes up a little late loses ticks this way: a tick that runs more than
    /// a period late drops the next one.
    case skip

    /// Catches up a short backlog as `.catchUp` does and skips a long one (a
    /// stall) as `.skip` does.
    ///
    /// When a tick returns, the backlog is the set of ticks whose due time has
    /// passed. It is caught up (run at once, back to back) when it holds at
    /// most `maxTicks` ticks **or** its oldest tick is at most `maxDuration`
    /// overdue; otherwise it is a stall, and the whole backlog is dropped and
    /// counted in `PeriodicDisposable.skippedTicks`; the job goes on at the
    /// first due time not yet passed. The backlog is judged again after every
    /// tick, caught-up ones included, so a job whose action is slower than its
    /// period falls further behind until the bound is passed, then skips and
    /// yields the scheduler: catching up never keeps it busy for ever.
    ///
    /// A negative `maxTicks` counts as zero; a negative `maxDuration` counts as
    /// zero and `.never` as unbounded (no backlog is ever skipped for its age).
    case boundedCatchUp(maxTicks: Int, maxDuration: RxTimeInterval)

    /// The default: `.boundedCatchUp(maxTicks: 10, maxDuration: .milliseconds(100))`.
    ///
    /// Why these bounds: a timer wakes up late by its leeway plus the
    /// operating system's wake-up and scheduling latency. A scheduler built
    /// on `DispatchQueue.asyncAfter` has libdispatch's default leeway, a tenth
    /// of the delay but at least 1 ms; the emulation asks for delays shorter
    /// than one period. So on a quiet machine a tick fires at most about one
    /// period plus 1 ms (or plus a tenth of the period) late, and when it
    /// returns at most two or three later due times have passed, or, for
    /// periods under a millisecond, about a millisecond of them. On a busy
    /// machine the scheduler itself adds tens of milliseconds now and then.
    /// Ten ticks, or 100 ms, leave a margin above both, so such a
    /// timer never skips; a stall (a suspended process, a debugger, a pause
    /// of more than 100 ms that is also more than ten periods) is skipped
    /// instead of being replayed as a flood, and a caught-up burst is at most
    /// 100 ms (or ten periods) worth of ticks.
    public static let `default` = MissedTickPolicy.boundedCatchUp(maxTicks: 10, maxDuration: .milliseconds(100))
}
