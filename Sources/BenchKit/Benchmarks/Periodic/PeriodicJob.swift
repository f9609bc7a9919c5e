/// A periodic job to measure: starts ticking into a recorder and reports
/// how many ticks it skipped, if it can know.
public struct PeriodicJob: Sendable {
    public let name: String
    public let unavailableReason: String?
    /// Ticks on the main thread, so the main queue must be serviced.
    public let needsMainQueue: Bool
    /// Starts the job; the returned value stops it and reports skipped ticks.
    let start: @Sendable (_ recorder: TickRecorder) throws -> RunningJob

    init(
        name: String, unavailableReason: String? = nil, needsMainQueue: Bool = false,
        start: @escaping @Sendable (TickRecorder) throws -> RunningJob
    ) {
        self.name = name
        self.unavailableReason = unavailableReason
        self.needsMainQueue = needsMainQueue
        self.start = start
    }

    static func unavailable(_ name: String, reason: String) -> PeriodicJob {
        PeriodicJob(name: name, unavailableReason: reason) { _ in throw BenchmarkFailure("\(name): \(reason)") }
    }
}

/// A started job.
struct RunningJob {
    /// Stops ticking.
    let stop: () -> Void
    /// Ticks skipped or merged; `nil` when the job cannot tell (the value is left empty).
    let skippedTicks: () -> Int?
}
