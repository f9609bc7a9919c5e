/// The handle of a periodic job: disposing it stops the job.
///
/// Keeps guarantee 6 in Guarantees.md: once `dispose()` returns, no tick starts;
/// a tick already running when `dispose()` is called completes (when
/// `dispose()` is called from inside the action, the current tick finishes and
/// no further tick starts). Ticks of one job never overlap.
public protocol PeriodicDisposable: Cancelable {
    /// How many ticks were dropped under `MissedTickPolicy.skip` because their
    /// due time had passed when an earlier tick returned. Always zero under
    /// `.catchUp` and for native timers that do not count.
    var skippedTicks: Int { get }
}
