/// Which implementation `observe(on:path:)` uses.
public enum ObserveOnPath: Sendable {
    /// The serial fast path when the scheduler conforms to `SerialScheduler`,
    /// the generic path otherwise.
    case automatic
    /// The generic path, even on a serial scheduler: to measure the two side by side.
    case generic
}
