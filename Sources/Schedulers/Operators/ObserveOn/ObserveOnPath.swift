/// Which implementation `observe(on:path:)` uses.
///
/// The library has two: the *fast path* (`fast-path` in BenchRunner's
/// results), for a scheduler that conforms to `SerialScheduler`, and the
/// *generic path* (`generic`), for any scheduler.
public enum ObserveOnPath: Sendable {
    /// The fast path when the scheduler conforms to `SerialScheduler`, the
    /// generic path otherwise: what `observe(on:)` uses.
    case automatic
    /// The generic path, even on a serial scheduler: to measure the two side by side.
    case generic
}
