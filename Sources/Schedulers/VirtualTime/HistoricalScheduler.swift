import Foundation

/// A virtual-time scheduler whose clock is a `Date`: replays timed work
/// against recorded or made-up dates, without waiting.
///
/// Everything `VirtualTimeScheduler` promises holds (serial, ordered by due
/// date then scheduling order, guarantees 5 and 8 in Guarantees.md): call
/// `advanceTo(_:)` with a date, or `start()`, to run what is due.
public final class HistoricalScheduler: VirtualTimeScheduler<HistoricalSchedulerTimeConverter>,
    @unchecked Sendable
{
    /// Creates a stopped scheduler whose clock reads `initialClock`
    /// (the Unix epoch by default).
    public init(initialClock: RxTime = Date(timeIntervalSince1970: 0)) {
        super.init(initialClock: initialClock, converter: HistoricalSchedulerTimeConverter())
    }
}
