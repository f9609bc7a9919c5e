/// A periodic job to measure: starts ticking into a recorder and reports
/// how many ticks it skipped, if it can know.
/// Made with its memberwise initializer, where only `id` and `start` are required.
package struct PeriodicJob: MeasuredVariant, Sendable {
    package let id: VariantID
    package internal(set) var unavailableReason: String?
    /// Ticks on the main thread, so the main queue must be serviced.
    package internal(set) var needsMainQueue = false
    /// How long a run may wait for its ticks; `nil`: four times the run's length plus 5 s.
    var stallTimeoutSeconds: Double?
    /// Starts the job; the returned value stops it and reports skipped ticks.
    let start: @Sendable (_ recorder: TickRecorder) throws -> RunningJob

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
