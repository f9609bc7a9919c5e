/// The handle of a periodic job: disposing it stops the job.
///
/// Keeps guarantee 6 in Guarantees.md: once `dispose()` returns, no tick starts;
/// a tick already running when `dispose()` is called completes (when
/// `dispose()` is called from inside the action, the current tick finishes and
/// no further tick starts). Ticks of one job never overlap.
public protocol PeriodicDisposable: Cancelable {
    /// How many ticks were dropped because their due time had passed when an
    /// earlier tick returned: every missed tick under `MissedTickPolicy.skip`,
    /// the ticks of a stall (a backlog beyond the bound) under
    /// `.boundedCatchUp` and `.default`. Always zero under `.catchUp`, with a
    /// zero period, and for native timers that do not count.
    var skippedTicks: Int { get }
}
