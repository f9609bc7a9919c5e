/// What periodic emulation does when a tick ends after later ticks were already due.
///
/// Emulated periodic work is fixed-rate: tick `k` is due at `start + k·period`
/// on the scheduler's monotonic clock, whatever happened to earlier ticks. A
/// tick that runs late (the scheduler was busy, or the action took longer
/// than a period) can leave one or more later due times in the past. This
/// policy decides what happens to those missed ticks. Either way the ticks
/// after them stay on the original grid: lateness never turns into drift.
///
/// The default of `Scheduler.schedulePeriodicEmulated` is `.skip`.
public enum MissedTickPolicy: Sendable {
    /// Runs every missed tick, back to back, as soon as the late tick returns;
    /// then continues at the next due time still in the future. No tick is
    /// lost, so the number of runs equals the number of due times passed, but
    /// the caught-up ticks run late and close together. The catch-up runs
    /// inside the late tick's scheduled action, so an action that always takes
    /// longer than a period keeps that action going and never yields the
    /// scheduler; prefer `.skip` when that can happen.
    case catchUp

    /// Drops every tick whose due time already passed when the late tick
    /// returns and continues at the first due time not yet passed. Each dropped
    /// tick is counted in `PeriodicDisposable.skippedTicks`. A due time equal
    /// to the current time is not missed: that tick runs at once.
    case skip
}
