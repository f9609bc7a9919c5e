/// How `BenchRunner compare` judges one metric: which direction is better,
/// and whether its values are exact counts or noisy measurements.
///
/// The rule, in this order:
/// 1. ``CSVSchema`` (the table of every metric BenchRunner writes) names the
///    metric, for its benchmark or else for any benchmark: its direction and
///    `isExactCount` win. So a metric is judged the way the code that writes it
///    declares, and both sides of the CSV contract read one table.
/// 2. Otherwise, a name ending in `_per_s` is a rate: higher is better;
///    everything else (times, latencies, lateness, drift, counts of skipped
///    ticks, allocations, bytes) is a cost: lower is better. The metric is
///    exact when its name starts with `allocs_` or `bytes_`.
///
/// Exact counts are deterministic (allocations counted by jemalloc; the depth
/// the trampoline is driven to), so any change in the bad direction is a
/// regression and no statistical test is needed; being exact, they can gate
/// CI, which timings cannot. Informational metrics describe the machine rather than
/// the code (the plain recursion limit) and get no verdict.
public struct MetricComparisonRule: Sendable, Equatable {
    /// Which direction of change is an improvement.
    public enum Preference: String, Sendable {
        case higherIsBetter = "higher is better"
        case lowerIsBetter = "lower is better"
        /// Describes the machine or the run, not the code: shown, never judged.
        case informational = "informational"
    }

    /// The metric's name as written in the CSV `metric` column.
    public let metric: String
    /// Which direction is better.
    public let preference: Preference
    /// Exact counts are compared without a test: any change in the bad direction is worse.
    public let isExact: Bool
    /// A time set by thread wake-ups and timers (``CSVSchema/isWakeUpBound(metric:variant:in:)``):
    /// judged against ``CompareOptions/wakeUpThreshold`` rather than ``CompareOptions/threshold``.
    public let isWakeUpBound: Bool

    /// The rule for `metric` of `variant` in `benchmark`, following the order documented on the type.
    public init(metric: String, benchmark: String? = nil, variant: String? = nil) {
        self.metric = metric
        isWakeUpBound = benchmark.map { CSVSchema.isWakeUpBound(metric: metric, variant: variant ?? "", in: $0) } ?? false
        let declared = benchmark.flatMap { CSVSchema.metric(metric, in: $0) } ?? CSVSchema.metric(named: metric)
        let countsVary = declared?.isExactCount == true
            && benchmark.flatMap { CSVSchema.benchmark(named: $0) }?.countsVary(for: variant ?? "") == true
        if let declared, declared.isSingleRunTail || countsVary {
            // Shown, not judged: see `Metric.isSingleRunTail` and
            // `BenchmarkSchema.varyingCountVariants`.
            preference = .informational
            isExact = false
            return
        }
        if let declared {
            switch declared.direction {
            case .higherIsBetter: preference = .higherIsBetter
            case .lowerIsBetter: preference = .lowerIsBetter
            case .informational: preference = .informational
            }
            isExact = declared.isExactCount
            return
        }
        (preference, isExact) = Self.ruleFromName(metric)
    }

    /// Step 2 of the rule: direction and exactness from the name alone.
    static func ruleFromName(_ metric: String) -> (preference: Preference, isExact: Bool) {
        (
            metric.hasSuffix("_per_s") ? .higherIsBetter : .lowerIsBetter,
            metric.hasPrefix("allocs_") || metric.hasPrefix("bytes_")
        )
    }

    /// Whether going from `base` to `new` moves in the bad direction.
    public func isWorse(from base: Double, to new: Double) -> Bool {
        switch preference {
        case .higherIsBetter: new < base
        case .lowerIsBetter: new > base
        case .informational: false
        }
    }
}
