/// How long each scenario runs.
enum RunLimit: Sendable, Equatable {
    /// Exactly this many iterations.
    case iterations(Int)
    /// As many iterations as fit in this many seconds.
    case duration(seconds: Double)
}
