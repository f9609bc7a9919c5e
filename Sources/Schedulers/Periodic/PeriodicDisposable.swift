/// The handle of a periodic job: disposing it stops the job.
///
/// Keeps guarantee 6 in Guarantees.md: once `dispose()` returns, no tick starts;
/// a tick already started when `dispose()` is called completes (when
/// `dispose()` is called from inside the action, the current tick finishes and
/// no further tick starts). Ticks of one job never overlap.
///
/// A tick starts when the job, under its lock, finds itself not disposed and
/// takes the tick's state; it calls the action right after, outside the lock.
/// So a tick that started just before `dispose()` took the lock may reach the
/// action's first line just after `dispose()` returned: the action runs at
/// most once after `dispose()` returns, and no tick follows it. `dispose()`
/// does not wait for that tick, so an action may take a lock that the thread
/// calling `dispose()` holds.
public protocol PeriodicDisposable: Cancelable {
    /// How many ticks did not run: those dropped because their due time had
    /// passed when an earlier tick returned (every missed tick under
    /// `MissedTickPolicy.skip`, the ticks of a stall, a backlog beyond the
    /// bound, under `.boundedCatchUp` and `.default`; for native timers, fires
    /// merged or due while the previous tick ran), and those whose scheduled
    /// action the scheduler dropped without running it (an operation queue's
    /// `cancelAllOperations()`). Always zero with a zero period, and under
    /// `.catchUp` unless the scheduler dropped a tick.
    var skippedTicks: Int { get }
}
