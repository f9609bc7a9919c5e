/// A periodic job to measure: starts ticking into a recorder and reports
/// how many ticks it skipped, if it can know.
public struct PeriodicJob: Sendable {
    public let id: VariantID
    public let unavailableReason: String?
    /// Ticks on the main thread, so the main queue must be serviced.
    public let needsMainQueue: Bool
    /// Starts the job; the returned value stops it and reports skipped ticks.
    let start: @Sendable (_ recorder: TickRecorder) throws -> RunningJob
    /// How long a run may wait for its ticks; `nil`: four times the run's length plus 5 s.
    let stallTimeoutSeconds: Double?

    init(
        id: VariantID, unavailableReason: String? = nil, needsMainQueue: Bool = false,
        stallTimeoutSeconds: Double? = nil,
        start: @escaping @Sendable (TickRecorder) throws -> RunningJob
    ) {
        self.id = id
        self.stallTimeoutSeconds = stallTimeoutSeconds
        self.unavailableReason = unavailableReason
        self.needsMainQueue = needsMainQueue
        self.start = start
    }

    /// The `variant` column's value.
    public var name: String { id.name }

    static func unavailable(_ id: VariantID, reason: String) -> PeriodicJob {
        PeriodicJob(id: id, unavailableReason: reason) { _ in throw BenchmarkFailure("\(id.name): \(reason)") }
    }
}

/// A started job.
struct RunningJob {
    /// Stops ticking.
    let stop: () -> Void
    /// Ticks skipped or merged; `nil` when the job cannot tell (the value is left empty).
    let skippedTicks: () -> Int?
}
